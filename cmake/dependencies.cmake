# Every dependency comes from a Debian 12 package (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(simdjson CONFIG QUIET)
if(NOT simdjson_FOUND)
  pkg_check_modules(SIMDJSON REQUIRED IMPORTED_TARGET simdjson)
  add_library(simdjson::simdjson ALIAS PkgConfig::SIMDJSON)
endif()
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()
# CUDA headers (for the runtime API and nccl.h) come from the toolkit; NCCL, NVML and the driver
# are loaded with dlopen at run time, so nothing GPU-related is linked.
find_package(CUDAToolkit QUIET)
