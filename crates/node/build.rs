//! Natively, napi-rs's setup. For WebAssembly (wasm32-wasip1, no threads) the same link lines
//! napi-build 2.6 writes for that target, with the reactor start object taken from the WASI libc
//! the build links (Debian's `wasi-libc`: `WASI_LIBC`), since rustc-web's sysroot has none.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("wasi") {
        napi_build::setup();
        return;
    }
    println!("cargo:rerun-if-env-changed=EMNAPI_LINK_DIR");
    println!("cargo:rerun-if-env-changed=WASI_LIBC");
    let link_dir = std::env::var("EMNAPI_LINK_DIR")
        .expect("EMNAPI_LINK_DIR must name emnapi's lib/wasm32-wasip1 folder (scripts/wasm-env.sh sets it)");
    let libc = std::env::var("WASI_LIBC").unwrap_or_else(|_| "/usr/lib/wasm32-wasi".into());
    println!("cargo:rustc-link-search={link_dir}");
    // emnapi's single-threaded archive for napi-rs: async work and threadsafe functions are the
    // JS implementations of @emnapi/core's plugins.
    println!("cargo:rustc-link-lib=static=emnapi-basic-napi-rs");
    let args = [
        "--export=malloc",
        "--export=free",
        "--export=emnapi_create_env",
        "--export=emnapi_delete_env",
        "--export=napi_register_wasm_v1",
        "--export-if-defined=node_api_module_get_api_version_v1",
        "--export-if-defined=emnapi_thread_crashed",
        "--export-table",
        "--import-memory",
        "--import-undefined",
        "--max-memory=4294967296",
        "-zstack-size=8388608",
        "--no-check-features",
        "--export=_initialize",
    ];
    for a in args {
        println!("cargo:rustc-link-arg={a}");
    }
    println!("cargo:rustc-link-arg={libc}/crt1-reactor.o");
}
