# Sourced by scripts/wasm-build.sh and the wasm tests: the toolchain that builds cuda-node for
# wasm32-wasip1 (rustup's Rust ships no WebAssembly standard library here; Debian's rustc-web
# builds one from rust-web-src with -Zbuild-std). Sets WASM_RUSTC, WASM_LLD, WASI_LIBC and
# CARGO_* variables; returns 1 (saying why) when the toolchain is absent.
WASM_RUSTC=${WASM_RUSTC:-/usr/bin/rustc}
WASI_LIBC=${WASI_LIBC:-/usr/lib/wasm32-wasi}
WASM_LLD=${WASM_LLD:-}
if [ -z "$WASM_LLD" ]; then
  for d in "$(rustc --print sysroot 2>/dev/null)" "$HOME"/.rustup/toolchains/*; do
    f="$d/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld"
    if [ -x "$f" ]; then WASM_LLD=$f; break; fi
  done
fi
wasm_missing=""
"$WASM_RUSTC" --version 2>/dev/null | grep -q . || wasm_missing="$wasm_missing rustc-web($WASM_RUSTC)"
[ -d "$("$WASM_RUSTC" --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library/std" ] || wasm_missing="$wasm_missing rust-web-src"
[ -f "$WASI_LIBC/libc.a" ] || wasm_missing="$wasm_missing wasi-libc($WASI_LIBC)"
[ -n "$WASM_LLD" ] || wasm_missing="$wasm_missing rust-lld"
if [ -n "$wasm_missing" ]; then
  echo "wasm toolchain absent:$wasm_missing (apt-get install rustc-web rust-web-src wasi-libc; rustup's rust-lld)" >&2
  return 1 2>/dev/null || exit 1
fi
export RUSTC="$WASM_RUSTC" RUSTC_BOOTSTRAP=1
export CARGO_TARGET_WASM32_WASIP1_LINKER="$WASM_LLD"
export CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="-C link-self-contained=no -L native=$WASI_LIBC"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/wasm}
export EMNAPI_LINK_DIR=${EMNAPI_LINK_DIR:-$PWD/node_modules/emnapi/lib/wasm32-wasip1}
export WASI_LIBC
# The workspace's rust-version is 1.88, and napi 3.16 and the core call u64::is_multiple_of,
# stable since 1.87: an older rustc-web (bookworm had 1.85) builds with --ignore-rust-version and
# the feature enabled for those two crates; 1.87 and later need neither (and would warn).
wasm_minor=$("$WASM_RUSTC" --version | sed -E 's/^rustc 1\.([0-9]+).*/\1/')
# The release profile strips the native addon's symbols; the module is stripped of debug info
# only, Cargo's default, as it always was (binaryen's wasm-opt, where installed, shrinks it further).
WASM_CARGO_FLAGS="-Zbuild-std=std,panic_abort -Zprofile-rustflags --target wasm32-wasip1 --config profile.release.strip=\"debuginfo\""
if [ "$wasm_minor" -lt 88 ]; then WASM_CARGO_FLAGS="--ignore-rust-version $WASM_CARGO_FLAGS"; fi
if [ "$wasm_minor" -lt 87 ]; then
  for pkg in napi cuda-node-core; do
    for profile in release dev; do
      WASM_CARGO_FLAGS="$WASM_CARGO_FLAGS --config profile.$profile.package.$pkg.rustflags=[\"-Zcrate-attr=feature(unsigned_is_multiple_of)\"]"
    done
  done
fi
export WASM_CARGO_FLAGS
