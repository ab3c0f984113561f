//! nvJitLink, CUDA's linker for cubin, PTX and LTO-IR (cuda.core's `Linker`), loaded at run time
//! like NVRTC: by the names CUDA 12 and 13 give it, `CUDA_NODE_NVJITLINK_PATH`,
//! `CUDA_NODE_LIBRARY_PATH` (wheel layouts included) and the toolkit's folders.

use crate::error::{Error, Result};
#[cfg(not(target_family = "wasm"))]
use libloading::Library;
/// WebAssembly loads no libraries: nvJitLink is never found there.
#[cfg(target_family = "wasm")]
type Library = ();
use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::sync::OnceLock;

type Handle = *mut c_void;
type Status = c_int;

/// The nvJitLink entry points this library uses.
struct Api {
    _lib: Library,
    create: unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> Status,
    destroy: unsafe extern "C" fn(*mut Handle) -> Status,
    add_data: unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> Status,
    complete: unsafe extern "C" fn(Handle) -> Status,
    cubin_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    cubin: unsafe extern "C" fn(Handle, *mut c_void) -> Status,
    ptx_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    ptx: unsafe extern "C" fn(Handle, *mut c_char) -> Status,
    error_log_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    error_log: unsafe extern "C" fn(Handle, *mut c_char) -> Status,
    info_log_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    info_log: unsafe extern "C" fn(Handle, *mut c_char) -> Status,
    version: Option<unsafe extern "C" fn(*mut c_uint, *mut c_uint) -> Status>,
}

/// Where nvJitLink is looked for, in order.
#[cfg(target_family = "wasm")]
pub fn candidates() -> Vec<String> {
    vec!["nothing (the WebAssembly build loads no libraries)".into()]
}

/// Where nvJitLink is looked for, in order.
#[cfg(not(target_family = "wasm"))]
pub fn candidates() -> Vec<String> {
    crate::dynlib::candidates("nvJitLink", "CUDA_NODE_NVJITLINK_PATH", &["13", "12"], &["nvJitLink_130_0.dll", "nvJitLink_120_0.dll"])
}

fn api() -> Result<&'static Api> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(|tried| {
        Error::named(
            "NVJITLINK_ERROR_NOT_FOUND",
            format!(
                "nvJitLink (CUDA's linker, CUDA 12+) could not be loaded: looked for {tried}. Install the toolkit's nvJitLink or the \
                 nvidia-nvjitlink wheel (and set CUDA_NODE_LIBRARY_PATH to where it went), or set CUDA_NODE_NVJITLINK_PATH to the library"
            ),
        )
    })
}

#[cfg(target_family = "wasm")]
fn load() -> std::result::Result<Api, String> {
    Err(candidates().join(", "))
}

#[cfg(not(target_family = "wasm"))]
fn load() -> std::result::Result<Api, String> {
    let tried = candidates();
    for name in &tried {
        // SAFETY: loading nvJitLink runs its initialisers, which have no preconditions.
        let Ok(lib) = (unsafe { Library::new(name) }) else { continue };
        // The header maps each name to a versioned symbol (`__nvJitLinkCreate_13_0`); the plain
        // names are exported too, but look for the versioned ones where they are not.
        macro_rules! sym {
            ($n:literal) => {{
                let plain = concat!("nvJitLink", $n, "\0");
                let versioned = [concat!("__nvJitLink", $n, "_13_0\0"), concat!("__nvJitLink", $n, "_12_0\0")];
                // SAFETY: the symbol is nvJitLink's, with the signature declared in `Api` (nvJitLink.h).
                match std::iter::once(plain).chain(versioned).find_map(|n| unsafe { lib.get(n.as_bytes()) }.ok().map(|s| *s)) {
                    Some(s) => s,
                    None => continue,
                }
            }};
        }
        let api = Api {
            create: sym!("Create"),
            destroy: sym!("Destroy"),
            add_data: sym!("AddData"),
            complete: sym!("Complete"),
            cubin_size: sym!("GetLinkedCubinSize"),
            cubin: sym!("GetLinkedCubin"),
            ptx_size: sym!("GetLinkedPtxSize"),
            ptx: sym!("GetLinkedPtx"),
            error_log_size: sym!("GetErrorLogSize"),
            error_log: sym!("GetErrorLog"),
            info_log_size: sym!("GetInfoLogSize"),
            info_log: sym!("GetInfoLog"),
            // SAFETY: as above; absent before 12.3.
            version: unsafe { lib.get(b"nvJitLinkVersion\0") }.ok().map(|s| *s),
            _lib: lib,
        };
        return Ok(api);
    }
    Err(tried.join(", "))
}

/// nvJitLink's `(major, minor)`.
pub fn version() -> Result<(u32, u32)> {
    let api = api()?;
    let Some(v) = api.version else { return Err(Error::named("NVJITLINK_ERROR", "this nvJitLink (before 12.3) does not say its version")) };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both are valid out-pointers.
    check(unsafe { v(&mut major, &mut minor) }, "nvJitLinkVersion", "")?;
    Ok((major, minor))
}

/// What an input is (`nvJitLinkInputType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    Cubin = 1,
    Ptx = 2,
    Ltoir = 3,
    Fatbin = 4,
    Object = 5,
    Library = 6,
}

impl Input {
    /// `'cubin' | 'ptx' | 'ltoir' | 'fatbin' | 'object' | 'library'`.
    pub fn parse(s: &str) -> Result<Input> {
        Ok(match s {
            "cubin" => Input::Cubin,
            "ptx" => Input::Ptx,
            "ltoir" => Input::Ltoir,
            "fatbin" => Input::Fatbin,
            "object" => Input::Object,
            "library" => Input::Library,
            _ => {
                return Err(Error::type_error(format!(
                    "a link input's kind must be cubin, ptx, ltoir, fatbin, object or library, got '{s}'"
                )))
            }
        })
    }
}

/// What a link produced: a cubin, or PTX (with `-ptx` and LTO-IR inputs).
pub struct Linked {
    pub image: Vec<u8>,
    pub is_ptx: bool,
    /// The info log (also on success).
    pub log: String,
}

fn check(status: Status, what: &str, log: &str) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    const NAMES: [&str; 16] = [
        "NVJITLINK_SUCCESS",
        "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
        "NVJITLINK_ERROR_MISSING_ARCH",
        "NVJITLINK_ERROR_INVALID_INPUT",
        "NVJITLINK_ERROR_PTX_COMPILE",
        "NVJITLINK_ERROR_NVVM_COMPILE",
        "NVJITLINK_ERROR_INTERNAL",
        "NVJITLINK_ERROR_THREADPOOL",
        "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
        "NVJITLINK_ERROR_FINALIZE",
        "NVJITLINK_ERROR_NULL_INPUT",
        "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
        "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
        "NVJITLINK_ERROR_ARCH_MISMATCH",
        "NVJITLINK_ERROR_OUTDATED_LIBRARY",
        "NVJITLINK_ERROR_MISSING_FATBIN",
    ];
    let code = NAMES.get(status as usize).copied().unwrap_or("NVJITLINK_ERROR");
    let log = log.trim_end();
    Err(Error::named(code, if log.is_empty() { format!("{what} failed ({code})") } else { format!("{what} failed ({code}):\n{log}") }))
}

struct Linker<'a>(&'a Api, Handle);

impl Drop for Linker<'_> {
    fn drop(&mut self) {
        // SAFETY: created by nvJitLinkCreate and destroyed once.
        unsafe { (self.0.destroy)(&mut self.1) };
    }
}

impl Linker<'_> {
    fn log(
        &self,
        size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
        get: unsafe extern "C" fn(Handle, *mut c_char) -> Status,
    ) -> String {
        let mut n = 0usize;
        // SAFETY: the handle is live; `n` is a valid out-pointer.
        if unsafe { size(self.1, &mut n) } != 0 || n == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; n];
        // SAFETY: `buf` holds the `n` bytes reported.
        if unsafe { get(self.1, buf.as_mut_ptr() as *mut c_char) } != 0 {
            return String::new();
        }
        String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
    }
    fn error_log(&self) -> String {
        self.log(self.0.error_log_size, self.0.error_log)
    }
}

/// Links `inputs` (kind, bytes, name for messages) with nvJitLink `options` (`-arch=sm_90` is
/// required; `-lto` for LTO-IR, `-ptx` for PTX out). A failure is `NVJITLINK_ERROR_*` with the
/// error log.
pub fn link(inputs: &[(Input, &[u8], String)], options: &[String]) -> Result<Linked> {
    if inputs.is_empty() {
        return Err(Error::range("a link needs at least one input"));
    }
    if !options.iter().any(|o| o.starts_with("-arch=")) {
        return Err(Error::type_error("a link needs the target architecture among its options, e.g. '-arch=sm_90'"));
    }
    let api = api()?;
    let opts: Vec<CString> = options
        .iter()
        .map(|o| CString::new(o.as_str()).map_err(|_| Error::type_error("a linker option must not contain a NUL byte")))
        .collect::<Result<_>>()?;
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut h: Handle = std::ptr::null_mut();
    // SAFETY: `ptrs` holds `ptrs.len()` NUL-terminated strings that outlive the call.
    check(unsafe { (api.create)(&mut h, ptrs.len() as u32, ptrs.as_ptr()) }, "nvJitLinkCreate", "")?;
    let linker = Linker(api, h);
    for (kind, data, name) in inputs {
        if data.is_empty() {
            return Err(Error::range(format!("link input {name} is empty")));
        }
        // PTX is text that must end with its NUL.
        let mut owned;
        let bytes: &[u8] = if *kind == Input::Ptx && data.last() != Some(&0) {
            owned = data.to_vec();
            owned.push(0);
            &owned
        } else {
            data
        };
        let cname = CString::new(name.as_str()).map_err(|_| Error::type_error("a link input's name must not contain a NUL byte"))?;
        // SAFETY: the handle is live; `bytes` and `cname` outlive the call (nvJitLink copies).
        let status = unsafe { (api.add_data)(linker.1, *kind as c_int, bytes.as_ptr() as *const c_void, bytes.len(), cname.as_ptr()) };
        check(status, &format!("adding {name} to the link"), &linker.error_log())?;
    }
    // SAFETY: the handle is live.
    check(unsafe { (api.complete)(linker.1) }, "the link", &linker.error_log())?;
    let is_ptx = options.iter().any(|o| o == "-ptx");
    let (size_fn, what) = if is_ptx { (api.ptx_size, "nvJitLinkGetLinkedPtx") } else { (api.cubin_size, "nvJitLinkGetLinkedCubin") };
    let mut size = 0usize;
    // SAFETY: the link completed; `size` is a valid out-pointer.
    check(unsafe { size_fn(linker.1, &mut size) }, what, "")?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` holds the `size` bytes reported.
    let status = unsafe {
        if is_ptx {
            (api.ptx)(linker.1, image.as_mut_ptr() as *mut c_char)
        } else {
            (api.cubin)(linker.1, image.as_mut_ptr() as *mut c_void)
        }
    };
    check(status, what, "")?;
    if is_ptx {
        while image.last() == Some(&0) {
            image.pop();
        }
    }
    Ok(Linked { image, is_ptx, log: linker.log(api.info_log_size, api.info_log) })
}
