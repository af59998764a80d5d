#!/usr/bin/env bash
# Builds the binaries that travel to the GPU machine (Ubuntu 24.04, other system libraries) into
# devbin/ (git-ignored): libstdc++ and libgcc linked statically, the CUDA runtime static (as
# always), NCCL and NVML dlopen'ed at run time, libsimdjson and libsqlite3 carried beside the
# binaries, ISA-L left out (zlib inflates .gz).
#   scripts/device/build.sh            # build dir build-dev (COMMDX_BUILD_DIR to reuse another)
# Then carry devbin/ and run scripts/device/checks.sh there (see that file).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${COMMDX_BUILD_DIR:-build-dev}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  -DCOMMDX_WITH_ISAL=OFF -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
cmake --build "$build" --target commdx commdx_gpu_tests
rm -rf devbin && mkdir -p devbin
cp "$build/commdx" "$build/tests/gpu/commdx_gpu_tests" devbin/
strip devbin/commdx devbin/commdx_gpu_tests  # debug info would not fit the 64 MiB that travels
for lib in libsimdjson libsqlite3; do  # not on every system: carried beside the binary
  path=$(ldd devbin/commdx | awk -v l="$lib" '$1 ~ l {print $3}')
  [ -n "$path" ] && cp -L "$path" devbin/
done
echo "devbin/ holds:"; ls -la devbin
echo "libraries the binary needs (all but libsimdjson and libsqlite3 must be on any glibc system):"
ldd devbin/commdx
