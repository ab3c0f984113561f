//! Loading CUDA's libraries (NVRTC, nvJitLink, cuBLAS, cuSOLVER, cuSPARSE, cuTENSOR, cuRAND) at run time, by the names CUDA
//! 11 to 13 give them, an override variable, `CUDA_NODE_LIBRARY_PATH` (folders, searched also
//! as NVIDIA's Python wheels lay them out, so `pip install --target DIR nvidia-cuda-nvrtc` works)
//! and the toolkit's usual folders.

use libloading::Library;

/// Where `stem` (e.g. `cublas`) is looked for, in order: `override_var`, then the library's names
/// (`lib{stem}.so.{version}` for each of `versions`, then `lib{stem}.so`; `windows` on Windows),
/// then the same names in each folder of `CUDA_NODE_LIBRARY_PATH` (and its wheel layouts), then
/// in the toolkit's folders.
pub fn candidates(stem: &str, override_var: &str, versions: &[&str], windows: &[&str]) -> Vec<String> {
    let mut c = Vec::new();
    if let Some(p) = std::env::var(override_var).ok().filter(|p| !p.is_empty()) {
        c.push(p);
    }
    let names: Vec<String> = if cfg!(windows) {
        windows.iter().map(|n| n.to_string()).collect()
    } else if cfg!(target_os = "macos") {
        vec![format!("lib{stem}.dylib")]
    } else {
        let mut n: Vec<String> = versions.iter().map(|v| format!("lib{stem}.so.{v}")).collect();
        n.push(format!("lib{stem}.so"));
        n
    };
    for d in library_path_dirs() {
        c.extend(names.iter().map(|n| format!("{d}/{n}")));
    }
    c.extend(names.iter().cloned());
    let mut dirs: Vec<String> =
        ["CUDA_PATH", "CUDA_HOME"].iter().filter_map(|v| std::env::var(v).ok()).map(|d| format!("{d}/lib64")).collect();
    dirs.push("/usr/local/cuda/lib64".into());
    for d in dirs {
        c.extend(names.iter().map(|n| format!("{d}/{n}")));
    }
    c
}

/// The folders named by `CUDA_NODE_LIBRARY_PATH` (separated as `PATH` is), each followed by where
/// NVIDIA's wheels put libraries under it: `nvidia/cu13/lib` (CUDA 13's wheels, all libraries in
/// one folder), `nvidia/<library>/lib` (CUDA 12's), `cutensor/lib` (cuTENSOR's wheels), and
/// `lib`, `lib64`, `bin` (Windows).
pub fn library_path_dirs() -> Vec<String> {
    let Some(list) = std::env::var_os("CUDA_NODE_LIBRARY_PATH") else { return Vec::new() };
    let mut out = Vec::new();
    for d in std::env::split_paths(&list) {
        let d = d.to_string_lossy().trim_end_matches(['/', '\\']).to_string();
        if d.is_empty() {
            continue;
        }
        out.push(d.clone());
        for sub in [
            "nvidia/cu13/lib",
            "nvidia/cu13/bin",
            "nvidia/cuda_nvrtc/lib",
            "nvidia/nvjitlink/lib",
            "nvidia/cublas/lib",
            "nvidia/cusolver/lib",
            "nvidia/curand/lib",
            "nvidia/cusparse/lib",
            "nvidia/nccl/lib",
            "nvidia/cufft/lib",
            "nvidia/cu12/lib",
            "cutensor/lib",
            "lib",
            "lib64",
            "bin",
        ] {
            out.push(format!("{d}/{sub}"));
        }
    }
    out
}

/// The first candidate that loads, or the list of what was tried.
pub fn open(candidates: &[String]) -> Result<Library, String> {
    open_with(candidates, Some)
}

/// The first candidate that loads and that `bind` accepts (it resolves the symbols it needs,
/// `None` where one is missing, and the next candidate is tried), or the list of what was tried.
pub fn open_with<T>(candidates: &[String], mut bind: impl FnMut(Library) -> Option<T>) -> Result<T, String> {
    for name in candidates {
        // SAFETY: loading a CUDA library runs its initialisers, which have no preconditions.
        if let Ok(lib) = unsafe { Library::new(name) } {
            if let Some(t) = bind(lib) {
                return Ok(t);
            }
        }
    }
    Err(candidates.join(", "))
}

/// Where pip puts NVIDIA's library wheels (`nvidia-nccl-cu12` installs `nvidia/nccl/lib/`): the
/// `rel` folder under each Python site-packages folder found in the usual places (the active
/// virtual or conda environment, the user's, the system's, and `PYTHONPATH`).
pub fn wheel_dirs(rel: &str) -> Vec<String> {
    let mut roots: Vec<String> = Vec::new();
    if let Ok(pp) = std::env::var("PYTHONPATH") {
        roots.extend(pp.split(':').filter(|p| !p.is_empty()).map(String::from));
    }
    let mut prefixes: Vec<String> = ["VIRTUAL_ENV", "CONDA_PREFIX"].iter().filter_map(|v| std::env::var(v).ok()).collect();
    if let Ok(home) = std::env::var("HOME") {
        prefixes.push(format!("{home}/.local"));
    }
    prefixes.extend(["/usr/local".to_string(), "/usr".to_string(), "/opt/conda".to_string()]);
    for prefix in prefixes {
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(format!("{prefix}/{lib}")) else { continue };
            let mut pythons: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("python3"))
                .collect();
            pythons.sort();
            pythons.reverse();
            for py in pythons {
                for site in ["site-packages", "dist-packages"] {
                    roots.push(format!("{prefix}/{lib}/{py}/{site}"));
                }
            }
        }
    }
    roots.push("/usr/lib/python3/dist-packages".into());
    roots.into_iter().map(|r| format!("{r}/{rel}")).filter(|d| std::path::Path::new(d).is_dir()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn library_path_is_searched_in_wheel_layouts() {
        // No other test of this crate reads this variable.
        std::env::set_var("CUDA_NODE_LIBRARY_PATH", "/w1");
        let c = super::candidates("nvrtc", "CUDA_NODE_TEST_NO_OVERRIDE", &["13", "12"], &["nvrtc64_130_0.dll"]);
        std::env::remove_var("CUDA_NODE_LIBRARY_PATH");
        if cfg!(target_os = "linux") {
            let at = |s: &str| c.iter().position(|x| x == s).unwrap_or_else(|| panic!("{s} not in {c:?}"));
            assert!(at("/w1/libnvrtc.so.13") < at("/w1/nvidia/cu13/lib/libnvrtc.so.13"));
            assert!(at("/w1/nvidia/cu13/lib/libnvrtc.so.13") < at("/w1/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"));
            assert!(at("/w1/nvidia/cuda_nvrtc/lib/libnvrtc.so.12") < at("libnvrtc.so.13"), "wheels come before the system's names");
            assert!(c.iter().any(|x| x == "/w1/nvidia/cufft/lib/libnvrtc.so.12"), "cuFFT's CUDA 12 wheel folder is searched");
        }
    }
}
