//! Loading CUDA's libraries (NVRTC, cuBLAS, cuSOLVER) at run time, by the names CUDA 11 to 13
//! give them, an override variable, and the toolkit's usual folders.

use libloading::Library;

/// Where `stem` (e.g. `cublas`) is looked for, in order: `override_var`, then the library's names
/// (`lib{stem}.so.{version}` for each of `versions`, then `lib{stem}.so`; `windows` on Windows),
/// then the same names in the toolkit's folders.
pub fn candidates(stem: &str, override_var: &str, versions: &[&str], windows: &[&str]) -> Vec<String> {
    let mut c = Vec::new();
    if let Ok(p) = std::env::var(override_var) {
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
    c.extend(names.iter().cloned());
    let mut dirs: Vec<String> =
        ["CUDA_PATH", "CUDA_HOME"].iter().filter_map(|v| std::env::var(v).ok()).map(|d| format!("{d}/lib64")).collect();
    dirs.push("/usr/local/cuda/lib64".into());
    for d in dirs {
        c.extend(names.iter().map(|n| format!("{d}/{n}")));
    }
    c
}

/// The first candidate that loads, or the list of what was tried.
pub fn open(candidates: &[String]) -> Result<Library, String> {
    for name in candidates {
        // SAFETY: loading a CUDA library runs its initialisers, which have no preconditions.
        if let Ok(lib) = unsafe { Library::new(name) } {
            return Ok(lib);
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
