# Warnings every target in the project gets; errors when COMMDX_WERROR (CI) is on.
add_library(commdx_warnings INTERFACE)
target_compile_options(commdx_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow)
# g++ 12 reports -Wdangling-pointer false positives inside simdjson's inlined ondemand/dom code
# (Debian's simdjson 3.0.1); the middle-end warning ignores system-header suppression.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(commdx_warnings INTERFACE -Wno-dangling-pointer)
endif()
if(COMMDX_WERROR)
  target_compile_options(commdx_warnings INTERFACE -Werror)
endif()
if(COMMDX_BUILD_FUZZERS)
  # Everything is instrumented for coverage; the fuzz targets add the libFuzzer main.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(COMMDX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
