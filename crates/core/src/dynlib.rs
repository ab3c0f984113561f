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
