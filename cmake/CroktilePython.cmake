# croktile_add_python_module(): Croktile sources -> a Python extension module whose
# functions are their host-callable __co__ functions. Included by CroktileConfig.cmake.
#
#   croktile_add_python_module(<name> <source>...
#                              [TARGET cpu|cuda|opencl|factor] [PROFILE <profile>]
#                              [KERNEL_TEMPLATES] [ARCH <arch>...] [OPTIONS <croktilec flag>...]
#                              [INCLUDE_DIRECTORIES <dir>...] [COMPILE_DEFINITIONS <NAME[=VALUE]>...])
#
# The sources become a static library as croktile_add_kernel(<name>_kernels ...) makes it
# (position-independent, hidden symbols); `croktilec -S --emit-python-bindings` writes the
# module's nanobind source from the same sources and flags, and nanobind's own CMake
# function (nanobind_add_module, NB_STATIC) builds the module <name> from it: `import <name>`.
# The type stub is written to <binary dir>/croktile/<name>/<name>.pyi; the target's
# property CROKTILE_PYTHON_STUB names it, for install(FILES ...). Needs nanobind
# (pip install nanobind, or croktile, which depends on it) and CMake's Python
# (Development.Module); scikit-build-core projects have both.
function(croktile_add_python_module name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "KERNEL_TEMPLATES" "TARGET;PROFILE"
                        "OPTIONS;INCLUDE_DIRECTORIES;COMPILE_DEFINITIONS;ARCH")
  set(_where "croktile_add_python_module(${name})")
  if(ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${_where}: ${ARG_KEYWORDS_MISSING_VALUES} needs a value")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${_where}: '${name}' is not a valid Python module name")
  endif()
  set(_sources ${ARG_UNPARSED_ARGUMENTS})
  if(NOT _sources)
    message(FATAL_ERROR "${_where}: no Croktile source given (.co.cpp)")
  endif()
  _croktile_find_nanobind("${_where}")

  set(_forward)
  foreach(_key TARGET PROFILE)
    if(ARG_${_key})
      list(APPEND _forward ${_key} "${ARG_${_key}}")
    endif()
  endforeach()
  if(ARG_KERNEL_TEMPLATES)
    list(APPEND _forward KERNEL_TEMPLATES)
  endif()
  foreach(_key OPTIONS INCLUDE_DIRECTORIES COMPILE_DEFINITIONS ARCH)   # ARCH: cuda's, as croktile_add_kernel's
    if(ARG_${_key})
      list(APPEND _forward ${_key} ${ARG_${_key}})
    endif()
  endforeach()
  set(_kernels ${name}_kernels)
  croktile_add_kernel(${_kernels} ${_sources} ${_forward})
  set_target_properties(${_kernels} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

  # the bindings: the same selection and flags as the library's transpile
  _croktile_selection(_select _select_file "${ARG_TARGET}" "${ARG_PROFILE}")
  list(APPEND _select ${_select_file})
  if(ARG_KERNEL_TEMPLATES)
    list(APPEND _select -kt)
  endif()
  set(_abs_sources)
  foreach(_source IN LISTS _sources)
    get_filename_component(_abs "${_source}" ABSOLUTE)
    list(APPEND _abs_sources "${_abs}")
  endforeach()
  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/croktile/${name}")
  set(_scratch "${_dir}/python")
  file(MAKE_DIRECTORY "${_scratch}")
  set(_bindings "${_dir}/${name}.bindings.cpp")
  set(_stub "${_dir}/${name}.pyi")
  set(_includes "$<TARGET_PROPERTY:${_kernels},INCLUDE_DIRECTORIES>")
  set(_defines "$<TARGET_PROPERTY:${_kernels},COMPILE_DEFINITIONS>")
  add_custom_command(
    OUTPUT "${_bindings}" "${_stub}"
    COMMAND Croktile::croktilec -S ${_select}
            "$<$<BOOL:${_includes}>:-I$<JOIN:${_includes},;-I>>"
            "$<$<BOOL:${_defines}>:-D$<JOIN:${_defines},;-D>>"
            ${ARG_OPTIONS} --python-name ${name}
            --emit-python-bindings "${_bindings}" --emit-python-stub "${_stub}" ${_abs_sources}
    WORKING_DIRECTORY "${_scratch}"   # -S also writes the generated sources: here, unused
    DEPENDS ${_abs_sources} "${CROKTILE_EXECUTABLE}"
    COMMENT "Writing the Python bindings of ${name} (croktilec --emit-python-bindings)"
    VERBATIM COMMAND_EXPAND_LISTS)
  nanobind_add_module(${name} NB_STATIC "${_bindings}")
  target_link_libraries(${name} PRIVATE ${_kernels})
  set_target_properties(${name} PROPERTIES CROKTILE_PYTHON_STUB "${_stub}")
  add_custom_target(${name}_stub ALL DEPENDS "${_stub}")
endfunction()

# nanobind's CMake package, found through the Python interpreter CMake uses.
macro(_croktile_find_nanobind where)
  if(NOT COMMAND nanobind_add_module)
    if(NOT TARGET Python::Module)
      find_package(Python 3.9 COMPONENTS Interpreter Development.Module REQUIRED)
    endif()
    if(NOT nanobind_DIR)
      execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
        OUTPUT_VARIABLE _croktile_nb_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _croktile_nb_rc
        ERROR_QUIET)
      if(NOT _croktile_nb_rc EQUAL 0)
        message(FATAL_ERROR "${where}: needs nanobind, which ${Python_EXECUTABLE} does not have "
                            "(pip install nanobind; scikit-build-core: add it to build-system.requires)")
      endif()
      set(nanobind_DIR "${_croktile_nb_dir}")
    endif()
    find_package(nanobind CONFIG REQUIRED)
  endif()
endmacro()
