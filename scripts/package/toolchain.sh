#!/usr/bin/env bash
# Sourced by scripts/package.sh: lays out in $tools (a git-ignored folder) what the portable build
# needs beyond Debian's build packages, each from the registries this project uses:
#   $tools/venv           zig (PyPI `ziglang`: clang + libc++ + stub libraries of old glibc
#                         versions) and auditwheel, in a virtualenv of their own
#   $tools/bin/cc, c++    zig cc / zig c++ aimed at x86_64 Linux with glibc $glibc (baseline CPU)
#   $tools/simdjson       simdjson's single-file sources from Debian's source package of the
#                         version installed (Debian ships only the shared library)
#   $tools/include        the headers taken from /usr/include (CLI11, zlib): the folder itself
#                         is never searched, so that glibc 2.36's headers can't mix with zig's
# Safe to run again: what is already there is kept.
set -euo pipefail
: "${tools:?} ${glibc:?}"
zig_version=0.17.1
mkdir -p "$tools/bin" "$tools/include"
if ! "$tools/venv/bin/python" -c "import ziglang, auditwheel" 2>/dev/null; then
  python3 -m venv "$tools/venv"
  "$tools/venv/bin/python" -m pip install -q "ziglang==$zig_version" auditwheel
fi
zig=$("$tools/venv/bin/python" -c \
  "import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), 'zig'))")
for tool in cc c++; do  # rewritten only when changed: a compiler cache keys on its time stamp
  printf '#!/bin/sh\nexec "%s" %s -target x86_64-linux-gnu.%s "$@"\n' "$zig" "$tool" "$glibc" \
    >"$tools/bin/$tool.new"
  chmod +x "$tools/bin/$tool.new"
  if cmp -s "$tools/bin/$tool.new" "$tools/bin/$tool"; then rm "$tools/bin/$tool.new"
  else mv "$tools/bin/$tool.new" "$tools/bin/$tool"; fi
done
cp -r /usr/include/CLI "$tools/include/"
cp /usr/include/zlib.h /usr/include/zconf.h "$tools/include/"
if [ ! -f "$tools/simdjson/simdjson.cpp" ]; then
  # apt-get source with a private list of deb-src entries, so the system's apt setup is untouched.
  apt=$tools/apt
  mkdir -p "$apt/lists/partial" "$apt/parts" "$apt/get"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n%s\n%s\n' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
    >"$apt/parts/src.sources"
  opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt/parts"
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -qq
        -o APT::Sandbox::User=root)  # the files are written as the caller, not _apt
  version=$(dpkg-query -W -f='${Version}' libsimdjson-dev 2>/dev/null || true)
  apt-get "${opts[@]}" update
  (cd "$apt/get" && apt-get "${opts[@]}" source --download-only "simdjson${version:+=$version}")
  tar -xzf "$apt"/get/simdjson_*.orig.tar.gz -C "$apt/get"
  mkdir -p "$tools/simdjson"
  cp "$apt"/get/simdjson-*/singleheader/simdjson.{h,cpp} "$apt"/get/simdjson-*/LICENSE \
    "$tools/simdjson/"
fi
