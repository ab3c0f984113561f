//! Natively, napi-rs's setup. For WebAssembly (wasm32-wasip1, no threads) the same link lines
//! napi-build 2.6 writes for that target, with the reactor start object taken from the WASI libc
//! the build links (Debian's `wasi-libc`: `WASI_LIBC`), since rustc-web's sysroot has none.
//!
//! And, for every target, the export table (`exports.rs` in `OUT_DIR`, which lib.rs includes):
//! each file of `src/` that declares `exports!` gives its `EXPORTS`, by file name, under the
//! file's own `#![cfg(…)]` if it has one. (Its `src` folder is watched: a new file reruns this, and
//! the `automod::dir!` that declares the files.)
use std::fmt::Write;

fn export_table() {
    println!("cargo:rerun-if-changed=src");
    let mut files: Vec<_> = std::fs::read_dir("src").expect("src/").map(|e| e.expect("src/").path()).collect();
    files.sort();
    let mut table = String::from("&[\n");
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let text = std::fs::read_to_string(path).expect("a source file");
        if !text.lines().any(|l| l.trim_start().starts_with("crate::exports!")) {
            continue;
        }
        if let Some(cfg) = text.lines().find(|l| l.starts_with("#![cfg(")) {
            writeln!(table, "    {}", cfg.replacen("#!", "#", 1)).unwrap();
        }
        let name = path.file_stem().unwrap().to_str().expect("a UTF-8 file name");
        let module = if name == "lib" { "crate".to_string() } else { format!("crate::{name}") };
        writeln!(table, "    {module}::EXPORTS,").unwrap();
    }
    table.push_str("]\n");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("exports.rs");
    std::fs::write(out, table).expect("OUT_DIR/exports.rs");
}

fn main() {
    export_table();
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
