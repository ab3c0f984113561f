#!/usr/bin/env bash
# Builds cuda-node for WebAssembly (wasm32-wasip1, the sim backend) into
# npm/wasm32-wasi/cuda-node.wasm32-wasi.wasm.
#   --install   first installs the toolchain from Debian's registry when it is absent
#               (rustc-web, rust-web-src, wasi-libc; rust-lld comes with rustup's Rust)
# Needs `npm install` done (emnapi's link archive comes from the `emnapi` package).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--install" ] && ! (. scripts/wasm-env.sh) 2>/dev/null; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends rustc-web rust-web-src wasi-libc >/dev/null
fi
. scripts/wasm-env.sh
[ -f "$EMNAPI_LINK_DIR/libemnapi-basic-napi-rs.a" ] || { echo "emnapi's archive is missing at $EMNAPI_LINK_DIR: run npm install" >&2; exit 1; }
# shellcheck disable=SC2086
cargo build --release $WASM_CARGO_FLAGS -p cuda-node
out=npm/wasm32-wasi/cuda-node.wasm32-wasi.wasm
cp "$CARGO_TARGET_DIR/wasm32-wasip1/release/cuda_node.wasm" "$out"
if command -v wasm-opt >/dev/null; then wasm-opt -O2 --enable-bulk-memory --enable-sign-ext --enable-mutable-globals --enable-nontrapping-float-to-int "$out" -o "$out"; fi
echo "built $out ($(stat -c %s "$out") bytes)"
