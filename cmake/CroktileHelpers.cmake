# croktile_add_kernel(): Croktile sources -> a static library plus a header declaring
# their __co__ functions. Included by CroktileConfig.cmake.
#
#   croktile_add_kernel(<name> <source>...
#                       [TARGET cpu|cuda|opencl|factor] [PROFILE <profile>]
#                       [KERNEL_TEMPLATES] [ARCH <arch>...]
#                       [OPTIONS <croktilec flag>...]
#                       [INCLUDE_DIRECTORIES <dir>...]
#                       [COMPILE_DEFINITIONS <NAME[=VALUE]>...])
#
# Each source is transpiled by `croktilec -S` (a custom command with a depfile, so editing
# a header it includes reruns it) into `<stem>.gen.cpp` (`.cu` for cuda), which CMake then
# compiles with its own CXX (CUDA) rules into the STATIC library <name>: compiler
# launchers, compile_commands.json and IDEs see an ordinary library. Link <name> and
# `#include "<name>.h"`, which declares the host-callable __co__ functions.
#
#   TARGET, PROFILE      what croktilec -t / --profile select (default: the default profile);
#                        an unknown one, or a target whose compiler CMake lacks, is an error here
#   KERNEL_TEMPLATES     croktilec -kt (factor: template specialisations + C wrappers)
#   ARCH                 cuda: the GPU architectures (default: the profile's). Several
#                        (ARCH sm_80 sm_90a) build each kernel for each into the one library,
#                        which runs the one for the GPU it finds (croktilec -arch=sm_80,sm_90a);
#                        native: this machine's GPUs, found when CMake configures. An -arch= in
#                        OPTIONS means the same.
#   OPTIONS              more croktilec flags for the transpile (e.g. -Werror)
#   INCLUDE_DIRECTORIES, COMPILE_DEFINITIONS
#                        for the transpile (-I, -D) and the compile of the generated sources
#                        (PRIVATE). Whatever else the library's INCLUDE_DIRECTORIES and
#                        COMPILE_DEFINITIONS hold later reaches croktilec too.
#
# The generated source is the whole translation unit, host code included: a source used
# here must not define main() (keep main in an ordinary .cpp of the executable).
#
# factor: the transpile also writes `<stem>.gen.dev.cpp`, which the profile's device_cc
# (with all of the profile's flags, -fPIC -shared) builds into `<stem>.gen.so`; the object
# of `<stem>.gen.cpp` embeds that module, so the library needs nothing beside it. A
# profile that names no device_cc (factor-sim: the module runs on the CPU of the program)
# builds it with CMake's C++ compiler, so a cross CMAKE_TOOLCHAIN_FILE crosses it too.
#
# Cross-compiling: the toolchain file's compilers build everything generated; croktilec
# runs on the build machine. A profile's cxx, triple and sysroot are croktilec's own.
#
# Usage requirements of <name>: Croktile::runtime, Threads::Threads, and per target
# OpenCL::OpenCL (opencl), CUDA::cudart (cuda), ${CMAKE_DL_LIBS} (factor), plus the
# profile's `libs` and `link_flags`. The profile's `flags` apply to the compile, except -O,
# -g, -std= and -pthread, which CMake's build type, C++17 and Threads decide. For cuda the
# architectures (ARCH, else the profile's arch: sm_90a) become the library's
# CUDA_ARCHITECTURES (90a).

# The croktilec options that select a profile: -t/--profile as given (into <select_var>)
# and --toolchain-file for CROKTILE_TOOLCHAIN_FILE (into <file_var>), shared by the
# kernel library's and the Python bindings' commands so that both pick the same profile.
function(_croktile_selection select_var file_var target profile)
  set(_select)
  set(_file_arg)
  if(target)
    list(APPEND _select -t "${target}")
  endif()
  if(profile)
    list(APPEND _select --profile "${profile}")
  endif()
  if(CROKTILE_TOOLCHAIN_FILE)
    get_filename_component(_file "${CROKTILE_TOOLCHAIN_FILE}" ABSOLUTE)
    set(_file_arg --toolchain-file "${_file}")
  endif()
  set(${select_var} "${_select}" PARENT_SCOPE)
  set(${file_var} "${_file_arg}" PARENT_SCOPE)
endfunction()

function(croktile_add_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "KERNEL_TEMPLATES" "TARGET;PROFILE"
                        "OPTIONS;INCLUDE_DIRECTORIES;COMPILE_DEFINITIONS;ARCH")
  set(_where "croktile_add_kernel(${name})")
  if(ARG_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "${_where}: ${ARG_KEYWORDS_MISSING_VALUES} needs a value")
  endif()
  set(_sources ${ARG_UNPARSED_ARGUMENTS})
  if(NOT _sources)
    message(FATAL_ERROR "${_where}: no Croktile source given (.co.cpp)")
  endif()

  # -- the architectures: ARCH, or an -arch= among the OPTIONS (croktilec resolves the list)
  set(_arch_given ${ARG_ARCH})
  set(_options)
  foreach(_option IN LISTS ARG_OPTIONS)
    if(_option MATCHES "^--?arch=(.*)$")
      set(_arch_given "${CMAKE_MATCH_1}")
    else()
      list(APPEND _options "${_option}")
    endif()
  endforeach()
  set(_arch_option)
  if(_arch_given)
    list(JOIN _arch_given "," _arch_joined)
    set(_arch_option "-arch=${_arch_joined}")
  endif()

  # -- which profile: croktilec knows the profiles, their targets and code generators
  _croktile_selection(_select _select_file "${ARG_TARGET}" "${ARG_PROFILE}")
  _croktile_profile(_json "${_where}" ${_select} ${_select_file} ${_arch_option})
  string(JSON _profile GET "${_json}" selected)
  if(_profile STREQUAL "" OR _profile STREQUAL "null")
    string(JSON _profile GET "${_json}" default)
  endif()
  string(JSON _target GET "${_json}" profiles "${_profile}" target)
  string(JSON _supported GET "${_json}" profiles "${_profile}" supported)
  if(NOT _supported)
    message(FATAL_ERROR "${_where}: croktilec ${CROKTILE_VERSION} cannot generate code for target "
                        "'${_target}' yet (profile '${_profile}')")
  endif()
  string(JSON _suffix GET "${_json}" profiles "${_profile}" source_suffix)
  _croktile_json_list(_flags "${_json}" profiles "${_profile}" flags)
  _croktile_json_list(_link_flags "${_json}" profiles "${_profile}" link_flags)
  _croktile_json_list(_libs "${_json}" profiles "${_profile}" libs)
  _croktile_json_list(_archs "${_json}" archs)   # those of the profile, or of -arch
  if(_arch_given)
    if(NOT _target STREQUAL "cuda")
      message(FATAL_ERROR "${_where}: ARCH (${_arch_joined}) is for TARGET cuda; profile '${_profile}' "
                          "is for ${_target}")
    endif()
    list(JOIN _archs "," _arch_joined)   # native: the GPUs found now, for the transpile too
    set(_arch_option "-arch=${_arch_joined}")
  endif()

  # -- the target's toolchain on the CMake side
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  set(_usage Croktile::runtime)
  if(_target STREQUAL "cuda")
    if(NOT "CUDA" IN_LIST _languages)
      include(CheckLanguage)
      check_language(CUDA)
      if(CMAKE_CUDA_COMPILER)
        message(FATAL_ERROR "${_where}: TARGET cuda needs CMake's CUDA language: call "
                            "enable_language(CUDA) (or project(... LANGUAGES CXX CUDA)) before "
                            "croktile_add_kernel (a CUDA compiler is at ${CMAKE_CUDA_COMPILER})")
      endif()
      message(FATAL_ERROR "${_where}: TARGET cuda needs a CUDA compiler and none was found: install "
                          "the CUDA toolkit (nvcc), or set CMAKE_CUDA_COMPILER, and enable_language(CUDA)")
    endif()
    if(NOT TARGET CUDA::cudart)
      find_package(CUDAToolkit)
    endif()
    if(NOT TARGET CUDA::cudart)
      message(FATAL_ERROR "${_where}: TARGET cuda needs the CUDA runtime library (find_package(CUDAToolkit) "
                          "found no CUDA::cudart)")
    endif()
    list(APPEND _usage CUDA::cudart)
  else()
    if(NOT "CXX" IN_LIST _languages)
      message(FATAL_ERROR "${_where}: TARGET ${_target} compiles the generated C++ with CMake's CXX "
                          "language: enable it (project(... LANGUAGES CXX))")
    endif()
  endif()
  if(_target STREQUAL "opencl")
    if(NOT TARGET OpenCL::OpenCL)
      find_package(OpenCL)
    endif()
    if(NOT TARGET OpenCL::OpenCL)
      message(FATAL_ERROR "${_where}: TARGET opencl needs the OpenCL headers and ICD loader, and "
                          "find_package(OpenCL) found none (Debian: ocl-icd-opencl-dev opencl-headers; "
                          "or set OpenCL_ROOT)")
    endif()
    list(APPEND _usage OpenCL::OpenCL)
    list(REMOVE_ITEM _libs OpenCL)
  elseif(_target STREQUAL "factor")
    list(APPEND _usage ${CMAKE_DL_LIBS})
    list(REMOVE_ITEM _libs dl)
    _croktile_device_compiler(_device_cc "${_where}" "${_json}" "${_profile}")
    set(_device_flags ${_flags})   # the device compiler is not CMake's: all of the profile's flags
  endif()
  if(NOT TARGET Threads::Threads)
    find_package(Threads REQUIRED)
  endif()
  list(APPEND _usage Threads::Threads)
  list(REMOVE_ITEM _libs pthread cudart)
  list(FILTER _flags EXCLUDE REGEX "^-(O.*|g.*|std=.*|pthread)$")

  # -- one transpile per source; <name>.h declares the functions of them all
  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/croktile/${name}")
  set(_include "${_dir}/include")
  list(LENGTH _sources _count)
  set(_kt)
  if(ARG_KERNEL_TEMPLATES)
    set(_kt -kt)
  endif()
  # the transpile sees the -I and -D the compile of the generated source sees
  set(_includes "$<TARGET_PROPERTY:${name},INCLUDE_DIRECTORIES>")
  set(_defines "$<TARGET_PROPERTY:${name},COMPILE_DEFINITIONS>")
  set(_outputs)
  set(_headers)
  set(_stems)
  set(_source_dirs)
  foreach(_source IN LISTS _sources)
    get_filename_component(_abs "${_source}" ABSOLUTE)
    get_filename_component(_file "${_abs}" NAME)
    get_filename_component(_source_dir "${_abs}" DIRECTORY)
    if(NOT _file MATCHES "^(.+)\\.(co\\.cpp|co\\.cc|co\\.cu|co)$")
      message(FATAL_ERROR "${_where}: ${_source} is not a Croktile source (.co.cpp, .co); compile "
                          "plain C++ in a target of its own")
    endif()
    set(_stem "${CMAKE_MATCH_1}")
    set(_unique "${_stem}")
    set(_n 1)
    while(_unique IN_LIST _stems)          # a/k.co.cpp and b/k.co.cpp
      math(EXPR _n "${_n} + 1")
      set(_unique "${_stem}-${_n}")
    endwhile()
    list(APPEND _stems "${_unique}")
    list(APPEND _source_dirs "${_source_dir}")
    set(_gen "${_dir}/${_unique}.gen${_suffix}")
    if(_count EQUAL 1)
      set(_header "${_include}/${name}.h")
    else()
      set(_header "${_include}/${name}/${_unique}.h")
      list(APPEND _headers "${name}/${_unique}.h")
    endif()
    # croktilec writes into existing directories only; the include directory also exists
    # before the first build, so IDEs and install(EXPORT) accept it
    get_filename_component(_header_dir "${_header}" DIRECTORY)
    file(MAKE_DIRECTORY "${_header_dir}")
    # the header is a byproduct: croktilec leaves an unchanged one alone, so editing a
    # kernel's body does not recompile the code that includes the header
    set(_gen_outputs "${_gen}")
    if(_target STREQUAL "factor")
      list(APPEND _gen_outputs "${_dir}/${_unique}.gen.dev.cpp")
    endif()
    add_custom_command(
      OUTPUT ${_gen_outputs}
      BYPRODUCTS "${_header}"
      COMMAND Croktile::croktilec -S -t "${_target}" --profile "${_profile}" ${_select_file} ${_kt}
              "$<$<BOOL:${_includes}>:-I$<JOIN:${_includes},;-I>>"
              "$<$<BOOL:${_defines}>:-D$<JOIN:${_defines},;-D>>"
              ${_options} ${_arch_option}
              -MD -MF "${_dir}/${_unique}.d" --emit-header "${_header}" -o "${_gen}" "${_abs}"
      DEPENDS "${_abs}" "${CROKTILE_EXECUTABLE}"
      DEPFILE "${_dir}/${_unique}.d"
      COMMENT "Transpiling ${_file} for ${_target} (croktilec --profile ${_profile})"
      VERBATIM COMMAND_EXPAND_LISTS)
    list(APPEND _outputs "${_gen}" "${_header}")
    if(_target STREQUAL "factor")
      _croktile_factor_module(_module "${_dir}/${_unique}" "${_file}" "${_source_dir}")
      list(APPEND _outputs "${_module}")
    endif()
  endforeach()
  if(NOT _count EQUAL 1)
    list(TRANSFORM _headers PREPEND "#include \"")
    list(TRANSFORM _headers APPEND "\"")
    list(JOIN _headers "\n" _lines)
    file(CONFIGURE OUTPUT "${_include}/${name}.h" CONTENT
         "// Generated by croktile_add_kernel(${name}). Do not edit.\n#pragma once\n${_lines}\n" @ONLY)
    list(APPEND _outputs "${_include}/${name}.h")
  endif()

  add_library(${name} STATIC ${_outputs})
  list(REMOVE_DUPLICATES _source_dirs)
  target_include_directories(${name}
    PUBLIC "$<BUILD_INTERFACE:${_include}>"
    PRIVATE ${_source_dirs} ${ARG_INCLUDE_DIRECTORIES})   # #include "x.h" beside the .co.cpp
  target_compile_definitions(${name} PRIVATE ${ARG_COMPILE_DEFINITIONS})
  target_compile_options(${name} PRIVATE ${_flags})
  target_link_libraries(${name} PUBLIC ${_usage} ${_libs})
  target_link_options(${name} INTERFACE ${_link_flags})
  if(_target STREQUAL "cuda")
    target_compile_features(${name} PRIVATE cuda_std_17)
    set(_cuda_archs)
    foreach(_arch IN LISTS _archs)
      if(_arch MATCHES "^(sm|compute)_([0-9]+[a-z]?)$")
        list(APPEND _cuda_archs "${CMAKE_MATCH_2}")
      endif()
    endforeach()
    if(_cuda_archs)
      set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${_cuda_archs}")
    endif()
  endif()
endfunction()

# factor: the profile's device compiler (a command, maybe with flags), which must exist;
# CMake's C++ compiler (with its target, sysroot and flags) where the profile names none.
function(_croktile_device_compiler out where json profile)
  string(JSON _given ERROR_VARIABLE _none GET "${json}" profiles "${profile}" device_cc_given)
  if(NOT _given)
    set(_cc "${CMAKE_CXX_COMPILER}")
    if(CMAKE_CXX_COMPILER_TARGET AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      list(APPEND _cc "--target=${CMAKE_CXX_COMPILER_TARGET}")
    endif()
    if(CMAKE_SYSROOT)
      list(APPEND _cc "--sysroot=${CMAKE_SYSROOT}")
    endif()
    separate_arguments(_cxx_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS}")
    set(${out} ${_cc} ${_cxx_flags} PARENT_SCOPE)
    return()
  endif()
  string(JSON _cc ERROR_VARIABLE _none GET "${json}" profiles "${profile}" device_cc)
  string(JSON _path ERROR_VARIABLE _none GET "${json}" profiles "${profile}" device_cc_path)
  if(NOT _cc OR _cc STREQUAL "null")
    set(_cc cc)
  endif()
  if(NOT _path OR _path STREQUAL "null")
    message(FATAL_ERROR "${where}: TARGET factor builds its device module with the device compiler "
                        "'${_cc}' of profile '${profile}', which was not found")
  endif()
  separate_arguments(_cc UNIX_COMMAND "${_cc}")
  list(POP_FRONT _cc)
  set(${out} "${_path}" ${_cc} PARENT_SCOPE)
endfunction()

# factor: the device module of one transpiled source (<base>.gen.dev.cpp -> <base>.gen.so),
# built with the profile's device compiler and embedded in the object of <base>.gen.cpp,
# whose compile therefore waits for it and names it (CROKTILE_FACTOR_MODULE). Uses the
# caller's _device_cc, _device_flags, _includes and _defines.
function(_croktile_factor_module out base file source_dir)
  set(_module "${base}.gen.so")
  add_custom_command(
    OUTPUT "${_module}"
    COMMAND ${_device_cc} ${_device_flags} -fPIC -shared -fvisibility=hidden
            "-I$<JOIN:$<TARGET_PROPERTY:Croktile::runtime,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
            "$<$<BOOL:${_includes}>:-I$<JOIN:${_includes},;-I>>"
            "$<$<BOOL:${_defines}>:-D$<JOIN:${_defines},;-D>>"
            -iquote "${source_dir}" -MD -MF "${_module}.d" "${base}.gen.dev.cpp" -o "${_module}"
    DEPENDS "${base}.gen.dev.cpp"
    DEPFILE "${_module}.d"
    COMMENT "Building the factor device module of ${file}"
    VERBATIM COMMAND_EXPAND_LISTS)
  set_source_files_properties("${_module}" PROPERTIES HEADER_FILE_ONLY ON)
  set_source_files_properties("${base}.gen.cpp" PROPERTIES
    COMPILE_DEFINITIONS "CROKTILE_FACTOR_MODULE=\"${_module}\""
    OBJECT_DEPENDS "${_module}")
  set(${out} "${_module}" PARENT_SCOPE)
endfunction()

# Runs croktilec --print-toolchains --format=json for the selection (once per configure)
# and makes a change to the profile files it read rerun the configure.
function(_croktile_profile out where)
  string(MD5 _key "${ARGN}")
  get_property(_json GLOBAL PROPERTY "_CROKTILE_PROFILE_${_key}")
  if(NOT _json)
    execute_process(COMMAND "${CROKTILE_EXECUTABLE}" --print-toolchains --format=json ${ARGN}
      OUTPUT_VARIABLE _json ERROR_VARIABLE _err RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      string(REGEX REPLACE "^croktilec: (error: )?" "" _err "${_err}")
      string(STRIP "${_err}" _err)
      message(FATAL_ERROR "${where}: ${_err}")
    endif()
    set_property(GLOBAL PROPERTY "_CROKTILE_PROFILE_${_key}" "${_json}")
  endif()
  _croktile_json_list(_files "${_json}" files)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_files})
  set(${out} "${_json}" PARENT_SCOPE)
endfunction()

# A JSON array of strings as a CMake list.
function(_croktile_json_list out json)
  set(_items)
  string(JSON _n ERROR_VARIABLE _missing LENGTH "${json}" ${ARGN})
  if(NOT _missing AND _n GREATER 0)
    math(EXPR _last "${_n} - 1")
    foreach(_i RANGE ${_last})
      string(JSON _item GET "${json}" ${ARGN} ${_i})
      list(APPEND _items "${_item}")
    endforeach()
  endif()
  set(${out} "${_items}" PARENT_SCOPE)
endfunction()
