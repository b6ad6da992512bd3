# -DTRACELINT_STATIC=ON: the fully static tracelint of scripts/release.sh
# (docs/install.md). Every library is linked from its static archive:
# Abseil, protobuf, zlib, glibc and libstdc++ from Debian's -dev packages;
# simdjson, fmt and isa-l from TRACELINT_STATIC_DEPS, built from Debian's
# source packages by scripts/static_deps.sh; toml++ and CLI11 are headers.
# Included before the find_package calls (they must find the archives),
# then tracelint_static_imports() after them.

set(TRACELINT_STATIC_DEPS "" CACHE PATH
    "prefix of the simdjson, fmt and isa-l archives (scripts/static_deps.sh)")
if(NOT TRACELINT_STATIC_DEPS OR NOT EXISTS "${TRACELINT_STATIC_DEPS}/stamp")
  message(FATAL_ERROR "TRACELINT_STATIC needs TRACELINT_STATIC_DEPS, the prefix that "
                      "scripts/static_deps.sh built (scripts/release.sh sets both)")
endif()
if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "TRACELINT_STATIC is for Linux with GCC (Debian 12)")
endif()
# The deps' package configs (simdjson, fmt) win over the system's; every
# find_library and pkg-config lookup takes archives only.
list(PREPEND CMAKE_PREFIX_PATH "${TRACELINT_STATIC_DEPS}")
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
set(Protobuf_USE_STATIC_LIBS ON)
set(ZLIB_USE_STATIC_LIBS ON)
set(THREADS_PREFER_PTHREAD_FLAG ON)
# toml++: Debian ships only its shared library, so the static build uses the
# library's header-only mode. Its package config keeps a target that exists,
# and the find_package calls in subdirectories then get this one (GLOBAL).
add_library(tomlplusplus::tomlplusplus INTERFACE IMPORTED GLOBAL)
set_target_properties(tomlplusplus::tomlplusplus PROPERTIES
  INTERFACE_COMPILE_DEFINITIONS "TOML_HEADER_ONLY=1")

# Package configs that name shared objects (Abseil's) are pointed at the
# archive beside each one; a missing archive is an error, never a silent
# dynamic link.
function(tracelint_static_imports)
  get_directory_property(imported IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "SHARED_LIBRARY" AND NOT type STREQUAL "UNKNOWN_LIBRARY")
      continue()
    endif()
    get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
    set(suffixes "")
    if(configs)
      foreach(c IN LISTS configs)
        string(TOUPPER "${c}" c)
        list(APPEND suffixes "_${c}")
      endforeach()
    endif()
    list(APPEND suffixes "")
    foreach(suffix IN LISTS suffixes)
      get_target_property(location ${target} IMPORTED_LOCATION${suffix})
      if(NOT location OR NOT location MATCHES "\\.so(\\.[0-9.]+)?$")
        continue()
      endif()
      string(REGEX REPLACE "\\.so(\\.[0-9.]+)?$" ".a" archive "${location}")
      if(NOT EXISTS "${archive}")
        message(FATAL_ERROR "TRACELINT_STATIC: ${target} has no static archive (${archive})")
      endif()
      set_target_properties(${target} PROPERTIES IMPORTED_LOCATION${suffix} "${archive}")
      set_property(TARGET ${target} PROPERTY IMPORTED_SONAME${suffix})
    endforeach()
  endforeach()
endfunction()
