#!/usr/bin/env bash
# Builds the commdx binary for any x86_64 Linux with glibc >= $COMMDX_GLIBC (default 2.17) and
# packs it twice into dist/, for GPU nodes where nothing can be built:
#   commdx-<version>-py3-none-manylinux_2_<N>_x86_64[...].whl   `pip install FILE` gives `commdx`
#   commdx-<version>-linux-x86_64.tar.gz                         bin/commdx, docs, one example
# The binary needs only glibc (libc, libm, libdl, libpthread, librt): zig's clang with libc++,
# simdjson, SQLite (for Nsight Systems exports), zlib and the CUDA runtime are linked statically; NCCL, NVML and the CUDA driver are
# dlopen'ed at run time as in every build, so `bench` uses the job's own libnccl.
#   scripts/package.sh        build folder build-pkg/ (tools in build-pkg/tools, CMake in
#                             build-pkg/cmake), output in dist/ (COMMDX_DIST_DIR to change)
# Then tests/package/check_package.sh dist installs both into fresh places and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
root=build-pkg
export tools=$PWD/$root/tools glibc=${COMMDX_GLIBC:-2.17}
dist=${COMMDX_DIST_DIR:-dist}
source scripts/package/toolchain.sh
cuda_args=()
# nvcc compiles the device kernels with g++ as its host compiler; the host-side launch stubs it
# emits call only the CUDA runtime, so they link into the libc++ binary (a stray libstdc++
# symbol would fail the link, a stray library make_dist.py's check).
# librt (shm_open, for the CUDA runtime before glibc 2.34) is zig's stub: name it, not a path.
[ -x /usr/local/cuda/bin/nvcc ] && cuda_args=(-DCMAKE_CUDA_HOST_COMPILER=/usr/bin/g++
                                              -DCUDAToolkit_rt_LIBRARY=rt)
cmake -S . -B "$root/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$tools/bin/cc" -DCMAKE_CXX_COMPILER="$tools/bin/c++" \
  -DCOMMDX_BUILD_TESTS=OFF -DCOMMDX_BUILD_BENCHMARKS=OFF -DCOMMDX_WERROR=OFF \
  -DCOMMDX_SIMDJSON_SOURCE="$tools/simdjson" -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
  -DCOMMDX_WITH_SQLITE=ON -DCOMMDX_SQLITE_SOURCE="$tools/sqlite" -DCOMMDX_WITH_ISAL=OFF \
  -DCLI11_INCLUDE_DIR="$tools/include" -DZLIB_INCLUDE_DIR="$tools/include" \
  -DZLIB_LIBRARY=/usr/lib/x86_64-linux-gnu/libz.a "${cuda_args[@]}" >/dev/null
cmake --build "$root/cmake" --target commdx
bin=$root/commdx
cp "$root/cmake/commdx" "$bin"
strip "$bin"
version=$("$bin" --version | awk '{print $2}')
project_version=$(sed -n 's/^project(commdx VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
if [ "$version" != "$project_version" ]; then
  echo "package: commdx --version says '$version', CMakeLists.txt '$project_version'" >&2
  exit 1
fi
python3 scripts/package/make_dist.py --binary "$bin" --version "$version" --out "$dist" \
  --glibc "$glibc" \
  --licenses "$tools/simdjson/LICENSE" "$tools/sqlite/copyright" /usr/share/doc/libcli11-dev/copyright \
  /usr/share/doc/zlib1g/copyright "$(dirname "$zig")/lib/libcxx/LICENSE.TXT"
"$tools/venv/bin/auditwheel" show "$dist"/commdx-"$version"-*.whl
ls -la "$dist"
