# The version of the Croktile CMake package is the version of the croktile_driver Python
# package it ships in (`__version__` in croktile_driver/__init__.py), read from beside this
# file: croktile_driver/data/cmake/ where pip installs it, cmake/ in a source checkout.
#
# Before 1.0 a minor release may break users, so find_package(Croktile 0.1) accepts
# 0.1.x (x >= the requested patch) and not 0.2 (find_package(Croktile 0): any 0.x); from
# 1.0 on, any later release of the same major version. Ranges (0.1...0.3) are honoured.
set(PACKAGE_VERSION "")
foreach(_croktile_init "${CMAKE_CURRENT_LIST_DIR}/../../__init__.py"
                       "${CMAKE_CURRENT_LIST_DIR}/../croktile_driver/__init__.py")
  if(EXISTS "${_croktile_init}")
    file(STRINGS "${_croktile_init}" _croktile_line REGEX "^__version__ *= *[\"'][^\"']+[\"']")
    string(REGEX REPLACE "^__version__ *= *[\"']([^\"']+)[\"'].*" "\\1" PACKAGE_VERSION "${_croktile_line}")
    break()
  endif()
endforeach()
unset(_croktile_init)
unset(_croktile_line)

set(PACKAGE_VERSION_COMPATIBLE FALSE)
set(PACKAGE_VERSION_EXACT FALSE)
if(NOT PACKAGE_VERSION MATCHES "^([0-9]+)\\.([0-9]+)")
  set(PACKAGE_VERSION "unknown")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  return()
endif()
set(_croktile_major "${CMAKE_MATCH_1}")
set(_croktile_minor "${CMAKE_MATCH_2}")

if(PACKAGE_FIND_VERSION_RANGE)
  if(PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION_MIN AND
     ((PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "INCLUDE" AND PACKAGE_VERSION VERSION_LESS_EQUAL PACKAGE_FIND_VERSION_MAX)
      OR (PACKAGE_FIND_VERSION_RANGE_MAX STREQUAL "EXCLUDE" AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION_MAX)))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  endif()
elseif(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION
       AND PACKAGE_FIND_VERSION_MAJOR EQUAL _croktile_major
       AND (_croktile_major GREATER 0 OR PACKAGE_FIND_VERSION_COUNT LESS 2
            OR PACKAGE_FIND_VERSION_MINOR EQUAL _croktile_minor))
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
unset(_croktile_major)
unset(_croktile_minor)
