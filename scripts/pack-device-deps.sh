#!/usr/bin/env bash
# Packs what ptxbench needs on the GPU machine (no network there, none of our Debian/PyPI deps)
# into .deps/device, the one folder a device call carries:
#   usr/          headers, libraries and CMake configs of nlohmann-json, CLI11, cpp-httplib, fmt,
#                 yaml-cpp, GoogleTest/GMock and libcurl, laid out like /usr so the configs
#                 relocate (CMAKE_PREFIX_PATH=.deps/device/usr)
#   fallback-lib/ the runtime dependencies of the carried libcurl (searched last)
#   sandbox/      bwrap (Debian's bubblewrap; the GPU machine has none) and, in sandbox/lib, the
#                 libraries it links besides libc; ptxbench finds it through PTXBENCH_BWRAP
#   pydeps/       the PyPI parts: TVM-FFI headers and library, cudnn-frontend headers, the
#                 wheels' cuobjdump/nvdisasm (PTXBENCH_PYDEPS=.deps/device/pydeps)
#   wheels/       the training packages the GPU machine's Python (3.12) lacks: trl, datasets and
#                 their pure-Python needs (dill, multiprocess), at deps/python-train.txt's pins;
#                 gpu-check.sh installs them into a folder on PYTHONPATH (parts 55 and 60)
# scripts/gpu-check.sh builds the tree on the GPU machine against these.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/.deps/device"
multiarch=/usr/lib/x86_64-linux-gnu
rm -rf "$out"
mkdir -p "$out/usr/include" "$out/usr/lib/x86_64-linux-gnu/cmake" "$out/usr/share/cmake" \
         "$out/fallback-lib" "$out/pydeps/tvm_ffi/lib"

cp -r /usr/include/nlohmann /usr/include/CLI /usr/include/httplib.h /usr/include/fmt \
      /usr/include/yaml-cpp /usr/include/gtest /usr/include/gmock "$out/usr/include/"
cp -r /usr/include/x86_64-linux-gnu/curl "$out/usr/include/"
# The sandbox's seccomp filter (libseccomp) and serve/'s compiled cpp-httplib, with the headers
# cpp-httplib's TLS/compression support includes (the GPU machine has the libraries' runtimes
# only in part: their own dependencies go to fallback-lib below).
cp /usr/include/seccomp.h /usr/include/seccomp-syscalls.h "$out/usr/include/"
cp -r /usr/include/openssl /usr/include/brotli /usr/include/zlib.h "$out/usr/include/"
cp /usr/include/x86_64-linux-gnu/openssl/* "$out/usr/include/openssl/"  # opensslconf.h, configuration.h
[ -e /usr/include/zconf.h ] && cp /usr/include/zconf.h "$out/usr/include/"
[ -e /usr/include/x86_64-linux-gnu/zconf.h ] && cp /usr/include/x86_64-linux-gnu/zconf.h "$out/usr/include/"
cp -a "$multiarch"/libseccomp.so* "$multiarch"/libcpp-httplib.so* "$out/usr/lib/x86_64-linux-gnu/"
cp -a "$multiarch"/libfmt.so* "$multiarch"/libyaml-cpp.so* "$multiarch"/libgtest*.a \
      "$multiarch"/libgmock*.a "$multiarch"/libcurl.so "$multiarch"/libcurl.so.4* \
      "$out/usr/lib/x86_64-linux-gnu/"
cp -r "$multiarch"/cmake/fmt "$multiarch"/cmake/yaml-cpp "$multiarch"/cmake/GTest \
      "$out/usr/lib/x86_64-linux-gnu/cmake/"
cp -r /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$out/usr/share/cmake/"

# libcurl's dependencies, minus the C/C++ runtime every Linux has.
ldd "$multiarch/libcurl.so.4" "$multiarch/libcpp-httplib.so" | awk '/=>/ {print $3}' |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$out/fallback-lib/"; done

mkdir -p "$out/sandbox/lib"
cp /usr/bin/bwrap "$out/sandbox/"
ldd /usr/bin/bwrap | awk '/=>/ {print $3}' | grep -Ev '/libc\.so' |
  while read -r lib; do cp -L "$lib" "$out/sandbox/lib/"; done

py="$root/.deps/python"
cp -r "$py/tvm_ffi/include" "$out/pydeps/tvm_ffi/"
cp "$py/tvm_ffi/lib/libtvm_ffi.so" "$out/pydeps/tvm_ffi/lib/"
cp -r "$py/include" "$out/pydeps/include"
mkdir -p "$out/pydeps/nvidia/cu13"
cp -r "$py/nvidia/cu13/bin" "$out/pydeps/nvidia/cu13/"  # cuobjdump, nvdisasm of the wheels

pin() { grep -E "^$1==" "$root/deps/python-train.txt"; }
"$root/.deps/python-train/bin/python" -m pip download -q --no-deps --only-binary=:all: \
  --python-version 3.12 --implementation cp --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$out/wheels" \
  "$(pin trl)" "$(pin datasets)" "$(pin dill)" "$(pin multiprocess)"

du -sh "$out"
