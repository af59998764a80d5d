# Warnings every target in the project gets; errors when COMMDX_WERROR (CI) is on.
add_library(commdx_warnings INTERFACE)
target_compile_options(commdx_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow)
# g++ 12 reports -Wdangling-pointer false positives inside simdjson's inlined ondemand/dom code
# (Debian's simdjson 3.0.1); the middle-end warning ignores system-header suppression.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(commdx_warnings INTERFACE -Wno-dangling-pointer)
endif()
# g++ 12 at -O3 (Release) reports two known false positives from libstdc++'s inlined std::string
# code, each pointing into /usr/include/c++/12 with a template backtrace: -Wrestrict on the memcpy
# in char_traits.h when strings are concatenated or replaced (GCC bug 105329), and
# -Wmaybe-uninitialized on the destructor of a std::string member of a braced temporary
# (push_back(Pending{...}), EvidenceRef{...}). Off for g++ < 13 in Release only: the -O2 builds
# (RelWithDebInfo: scripts/quickstart.sh, scripts/test.sh, CI) are clean and keep both.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(commdx_warnings INTERFACE
    $<$<CONFIG:Release>:-Wno-restrict -Wno-maybe-uninitialized>)
endif()
if(COMMDX_WERROR)
  target_compile_options(commdx_warnings INTERFACE -Werror)
endif()
# Sanitizers: COMMDX_SANITIZE (tests) and COMMDX_BUILD_FUZZERS (clang) each instrument everything;
# both on (scripts/configure.sh with SANITIZE=ON and clang) is one build for the tests and the
# fuzz targets. The fuzz targets add the libFuzzer main (tests/fuzz/CMakeLists.txt).
if(COMMDX_BUILD_FUZZERS OR COMMDX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(COMMDX_BUILD_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
if(COMMDX_SANITIZE)
  add_compile_options(-fno-sanitize-recover=all)
endif()
