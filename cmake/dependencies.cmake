# Every dependency comes from a Debian 12 package (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
# Nsight Systems exports (Debian: libsqlite3-dev). OFF: such files are recognised and refused
# with a message that says why. COMMDX_SQLITE_SOURCE: a folder with SQLite's amalgamation
# (sqlite3.c, sqlite3.h), compiled here into a static library (scripts/package.sh: Debian's
# libsqlite3.a needs a newer glibc than the package's floor).
option(COMMDX_WITH_SQLITE "Read Nsight Systems SQLite exports" ON)
set(COMMDX_SQLITE_SOURCE "" CACHE PATH "Build SQLite statically from this amalgamation folder")
if(COMMDX_WITH_SQLITE AND COMMDX_SQLITE_SOURCE)
  enable_language(C)
  add_library(commdx_sqlite3 STATIC ${COMMDX_SQLITE_SOURCE}/sqlite3.c)
  target_include_directories(commdx_sqlite3 SYSTEM PUBLIC ${COMMDX_SQLITE_SOURCE})
  # Read-only use from one thread per database: no extension loading, no shared cache.
  target_compile_definitions(commdx_sqlite3 PRIVATE SQLITE_OMIT_LOAD_EXTENSION=1
                             SQLITE_OMIT_SHARED_CACHE=1 SQLITE_DEFAULT_MEMSTATUS=0)
  target_link_libraries(commdx_sqlite3 PUBLIC Threads::Threads)
  add_library(SQLite::SQLite3 ALIAS commdx_sqlite3)
elseif(COMMDX_WITH_SQLITE)
  find_package(SQLite3 REQUIRED)
endif()
find_package(PkgConfig REQUIRED)
# COMMDX_SIMDJSON_SOURCE: a folder with simdjson's single-file sources (simdjson.h, simdjson.cpp),
# compiled here into a static library instead of linking Debian's shared one (Debian ships no .a);
# scripts/package.sh sets it so that the packaged binary needs no libsimdjson.
set(COMMDX_SIMDJSON_SOURCE "" CACHE PATH "Build simdjson statically from this source folder")
if(COMMDX_SIMDJSON_SOURCE)
  add_library(commdx_simdjson STATIC ${COMMDX_SIMDJSON_SOURCE}/simdjson.cpp)
  target_include_directories(commdx_simdjson SYSTEM PUBLIC ${COMMDX_SIMDJSON_SOURCE})
  target_compile_definitions(commdx_simdjson PUBLIC SIMDJSON_THREADS_ENABLED=1)
  target_link_libraries(commdx_simdjson PUBLIC Threads::Threads)
  add_library(simdjson::simdjson ALIAS commdx_simdjson)
else()
  find_package(simdjson CONFIG QUIET)
endif()
if(NOT COMMDX_SIMDJSON_SOURCE AND NOT simdjson_FOUND)
  pkg_check_modules(SIMDJSON REQUIRED IMPORTED_TARGET simdjson)
  add_library(simdjson::simdjson ALIAS PkgConfig::SIMDJSON)
endif()
# ISA-L's inflater for .gz traces (3x zlib's speed); zlib is used where it is missing or OFF
# (scripts/package.sh: Debian ships only a shared libisal).
option(COMMDX_WITH_ISAL "Inflate .gz traces with ISA-L where installed" ON)
if(COMMDX_WITH_ISAL)
  pkg_check_modules(ISAL QUIET IMPORTED_TARGET libisal)
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
