# find_package(Croktile): build Croktile kernels as ordinary CMake libraries.
#
#   find_package(Croktile 0.1 REQUIRED)        # CMAKE_PREFIX_PATH += `croktilec --cmake-dir`
#   croktile_add_kernel(ele_add ele_add.co.cpp TARGET cpu)
#   add_executable(app main.cpp)
#   target_link_libraries(app PRIVATE ele_add)  # main.cpp: #include "ele_add.h"
#
# Provides
#   croktile_add_kernel()   see CroktileHelpers.cmake
#   croktile_add_python_module()  see CroktilePython.cmake
#   Croktile::runtime       INTERFACE target: the runtime headers (croktile.h, ...), C++17
#   Croktile::croktilec     IMPORTED executable: the driver
#   CROKTILE_EXECUTABLE     its path (a cache variable: set it to use another croktilec)
#   CROKTILE_VERSION        the package version (= croktilec --version)
#   CROKTILE_TOOLCHAIN_FILE optional cache variable: extra toolchain profiles (YAML) for
#                           every kernel, as croktilec --toolchain-file
#
# The files sit in croktile_driver/data/cmake/ of the installed Python package (or cmake/
# of a source checkout), with the runtime headers in ../runtime and croktilec in the bin
# (Scripts) directory of the same Python environment.

if(CMAKE_VERSION VERSION_LESS 3.20)
  set(Croktile_FOUND FALSE)
  set(Croktile_NOT_FOUND_MESSAGE "Croktile needs CMake 3.20 or later (this is ${CMAKE_VERSION})")
  return()
endif()
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.31)

get_filename_component(_croktile_data "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(CROKTILE_VERSION "${Croktile_VERSION}")

# croktilec: first the one installed with this package (<prefix>/lib/pythonX.Y/site-packages/
# croktile_driver/data/cmake -> <prefix>/bin; Windows: <prefix>/Lib/site-packages/... ->
# <prefix>/Scripts), then PATH. It runs on the build machine: a cross toolchain file's
# CMAKE_FIND_ROOT_PATH (the target's root) does not apply.
get_filename_component(_croktile_prefix "${CMAKE_CURRENT_LIST_DIR}/../../../../../.." ABSOLUTE)
get_filename_component(_croktile_win_prefix "${CMAKE_CURRENT_LIST_DIR}/../../../../.." ABSOLUTE)
find_program(CROKTILE_EXECUTABLE croktilec
  HINTS "${_croktile_prefix}/bin" "${_croktile_win_prefix}/Scripts"
  NO_CMAKE_FIND_ROOT_PATH
  DOC "The croktilec driver of the Croktile package")
if(NOT CROKTILE_EXECUTABLE)
  set(Croktile_FOUND FALSE)
  set(Croktile_NOT_FOUND_MESSAGE
      "croktilec was not found next to ${CMAKE_CURRENT_LIST_DIR} nor on PATH: "
      "`pip install` the croktile package, or set CROKTILE_EXECUTABLE")
  cmake_policy(POP)
  return()
endif()

# a croktilec of another installation would generate code for other runtime headers
execute_process(COMMAND "${CROKTILE_EXECUTABLE}" --version
  OUTPUT_VARIABLE _croktile_out ERROR_VARIABLE _croktile_out RESULT_VARIABLE _croktile_rc)
string(REGEX MATCH "[0-9]+\\.[0-9]+[^ \n]*" _croktile_exe_version "${_croktile_out}")
if(NOT _croktile_rc EQUAL 0 OR NOT _croktile_exe_version STREQUAL CROKTILE_VERSION)
  string(STRIP "${_croktile_out}" _croktile_out)
  set(Croktile_FOUND FALSE)
  set(Croktile_NOT_FOUND_MESSAGE
      "${CROKTILE_EXECUTABLE} (`--version`: '${_croktile_out}') is not croktilec ${CROKTILE_VERSION}, "
      "the version of the CMake package in ${CMAKE_CURRENT_LIST_DIR}: set CROKTILE_EXECUTABLE to the "
      "croktilec installed with it")
  cmake_policy(POP)
  return()
endif()

set(CROKTILE_TOOLCHAIN_FILE "" CACHE FILEPATH
    "Extra Croktile toolchain profiles (YAML) for every croktile_add_kernel(), as croktilec --toolchain-file")

if(NOT TARGET Croktile::croktilec)
  add_executable(Croktile::croktilec IMPORTED)
  set_target_properties(Croktile::croktilec PROPERTIES IMPORTED_LOCATION "${CROKTILE_EXECUTABLE}")
endif()
if(NOT TARGET Croktile::runtime)
  add_library(Croktile::runtime INTERFACE IMPORTED)
  set_target_properties(Croktile::runtime PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_croktile_data}/runtime"
    INTERFACE_COMPILE_FEATURES cxx_std_17)
endif()

include("${CMAKE_CURRENT_LIST_DIR}/CroktileHelpers.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/CroktilePython.cmake")

unset(_croktile_data)
unset(_croktile_prefix)
unset(_croktile_win_prefix)
unset(_croktile_out)
unset(_croktile_rc)
unset(_croktile_exe_version)
cmake_policy(POP)
