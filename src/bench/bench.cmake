# The bench layer (included from src/CMakeLists.txt). With the CUDA toolkit: the real backend
# under bench/cuda/ linked with the static CUDA runtime (NCCL is dlopen'ed at run time, so
# nothing else GPU-related is linked). With nvcc as well: the device kernels (kernels.cu), built
# as an object library so the project's C++ warning and sanitizer flags don't reach nvcc.
# Without the toolkit: bench/no_cuda/ (the real backend reports itself missing).
commdx_layer_sources(bench bench_srcs)
set(COMMDX_BENCH_KERNELS OFF)
if(CUDAToolkit_FOUND)
  list(FILTER bench_srcs EXCLUDE REGEX "/bench/no_cuda/")
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS "${CUDAToolkit_BIN_DIR}/nvcc")
    set(CMAKE_CUDA_COMPILER "${CUDAToolkit_BIN_DIR}/nvcc")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER AND NOT COMMDX_NO_NVCC)
    enable_language(CUDA)
    set(COMMDX_BENCH_KERNELS ON)
    list(FILTER bench_srcs EXCLUDE REGEX "/bench/cuda/kernels_stub\\.cc$")
  endif()
else()
  list(FILTER bench_srcs EXCLUDE REGEX "/bench/cuda/")
endif()
commdx_add_layer(bench SOURCES ${bench_srcs} LIBS ${CMAKE_DL_LIBS} Threads::Threads)
if(CUDAToolkit_FOUND)
  target_link_libraries(commdx_bench PRIVATE CUDA::cudart_static)
  target_include_directories(commdx_bench PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
endif()
if(COMMDX_BENCH_KERNELS)
  commdx_layer_include_root(bench bench_root)
  add_library(commdx_bench_kernels OBJECT ${CMAKE_CURRENT_SOURCE_DIR}/bench/cuda/kernels.cu)
  # Directory-level options (sanitizers) are for the host compiler only.
  set_property(TARGET commdx_bench_kernels PROPERTY COMPILE_OPTIONS "")
  set_target_properties(commdx_bench_kernels PROPERTIES
    CUDA_ARCHITECTURES "80-real;90"  # A100, H100/H200 machine code; PTX for newer GPUs
    CUDA_STANDARD 17 POSITION_INDEPENDENT_CODE ON)
  target_include_directories(commdx_bench_kernels PRIVATE ${bench_root})
  target_compile_options(commdx_bench_kernels PRIVATE -Xcompiler=-Wall,-Wextra
    $<$<BOOL:${COMMDX_WERROR}>:-Werror=all-warnings>)
  target_sources(commdx_bench PRIVATE $<TARGET_OBJECTS:commdx_bench_kernels>)
  # The Makefile generator gives commdx_bench a CUDA dialect of its own for the objects above,
  # from CMAKE_CXX_STANDARD (20), which CMake 3.25 cannot ask of nvcc 13: "requires the language
  # dialect CUDA20" at generate time. The kernels are C++17.
  set_target_properties(commdx_bench PROPERTIES CUDA_STANDARD 17)
endif()
