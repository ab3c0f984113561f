fn main() {
    println!("cargo:rerun-if-changed=csrc/nvtx.c");
    // The folders `automod::dir!` declares (ops.rs, cuda/mod.rs, cuda/raw/mod.rs, sim/mod.rs): a
    // file added there reruns this, and so the macro that lists it.
    for dir in ["src/ops", "src/cuda", "src/cuda/raw", "src/sim"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    // WebAssembly has no NVTX tool to attach: nvtx.rs answers as NVTX does with none attached.
    if std::env::var("CARGO_CFG_TARGET_FAMILY").is_ok_and(|f| f.split(',').any(|f| f == "wasm")) {
        return;
    }
    cc::Build::new().file("csrc/nvtx.c").include(".").warnings(false).compile("cuda_node_nvtx");
}
