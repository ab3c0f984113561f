//! NVRTC, the run-time CUDA C++ compiler, loaded at run time like the driver. cudarc's loader
//! looks only for the CUDA version it was built for (12), so the library is found here, among
//! the names CUDA 11 to 13 use, `CUDA_NODE_NVRTC_PATH`, and the toolkit's usual folders.

use crate::error::{Error, Result};
#[cfg(not(target_family = "wasm"))]
use libloading::Library;
/// WebAssembly loads no libraries: NVRTC is never found there.
#[cfg(target_family = "wasm")]
type Library = ();
use std::ffi::{c_char, c_int, CStr, CString};
use std::sync::OnceLock;

type Program = *mut std::ffi::c_void;
type Status = c_int;

/// The NVRTC entry points this library uses.
struct Api {
    _lib: Library,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    error_string: unsafe extern "C" fn(Status) -> *const c_char,
    create: unsafe extern "C" fn(*mut Program, *const c_char, *const c_char, c_int, *const *const c_char, *const *const c_char) -> Status,
    destroy: unsafe extern "C" fn(*mut Program) -> Status,
    add_name: unsafe extern "C" fn(Program, *const c_char) -> Status,
    compile: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    cubin_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    cubin: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    ptx_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    ptx: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    lowered: unsafe extern "C" fn(Program, *const c_char, *mut *const c_char) -> Status,
}

/// Where NVRTC is looked for, in order.
#[cfg(target_family = "wasm")]
pub fn candidates() -> Vec<String> {
    vec!["nothing (the WebAssembly build loads no libraries)".into()]
}

/// Where NVRTC is looked for, in order.
#[cfg(not(target_family = "wasm"))]
pub fn candidates() -> Vec<String> {
    crate::dynlib::candidates(
        "nvrtc",
        "CUDA_NODE_NVRTC_PATH",
        &["13", "12", "11.2"],
        &["nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_112_0.dll"],
    )
}

fn api() -> Result<&'static Api> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(|tried| {
        Error::named("NVRTC_ERROR_NOT_FOUND", format!("NVRTC (the CUDA runtime compiler) could not be loaded: looked for {tried}. Install the CUDA toolkit's nvrtc, or set CUDA_NODE_NVRTC_PATH to the library"))
    })
}

#[cfg(target_family = "wasm")]
fn load() -> std::result::Result<Api, String> {
    Err(candidates().join(", "))
}

#[cfg(not(target_family = "wasm"))]
fn load() -> std::result::Result<Api, String> {
    crate::dynlib::open_with(&candidates(), |lib| {
        macro_rules! sym {
            ($n:literal) => {
                // SAFETY: the symbol is NVRTC's, with the signature declared in `Api` (nvrtc.h).
                *unsafe { lib.get($n) }.ok()?
            };
        }
        Some(Api {
            version: sym!(b"nvrtcVersion\0"),
            error_string: sym!(b"nvrtcGetErrorString\0"),
            create: sym!(b"nvrtcCreateProgram\0"),
            destroy: sym!(b"nvrtcDestroyProgram\0"),
            add_name: sym!(b"nvrtcAddNameExpression\0"),
            compile: sym!(b"nvrtcCompileProgram\0"),
            log_size: sym!(b"nvrtcGetProgramLogSize\0"),
            log: sym!(b"nvrtcGetProgramLog\0"),
            cubin_size: sym!(b"nvrtcGetCUBINSize\0"),
            cubin: sym!(b"nvrtcGetCUBIN\0"),
            ptx_size: sym!(b"nvrtcGetPTXSize\0"),
            ptx: sym!(b"nvrtcGetPTX\0"),
            lowered: sym!(b"nvrtcGetLoweredName\0"),
            _lib: lib,
        })
    })
}

/// NVRTC's `(major, minor)`.
pub fn version() -> Result<(i32, i32)> {
    let api = api()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both are valid out-pointers.
    check(api, unsafe { (api.version)(&mut major, &mut minor) }, "nvrtcVersion")?;
    Ok((major, minor))
}

fn check(api: &Api, status: Status, what: &str) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any status.
    let text = unsafe { CStr::from_ptr((api.error_string)(status)) }.to_string_lossy().into_owned();
    Err(Error::named(if status == 6 { "NVRTC_ERROR_COMPILATION" } else { "NVRTC_ERROR" }, format!("{what} failed: {text}")))
}

/// What a compile produced.
pub struct Compiled {
    /// A cubin for `sm_XX` targets, PTX for `compute_XX` ones.
    pub image: Vec<u8>,
    pub is_cubin: bool,
    pub log: String,
    /// `(name expression, lowered name)` for each name expression.
    pub lowered: Vec<(String, String)>,
}

struct Prog<'a>(&'a Api, Program);

impl Drop for Prog<'_> {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        unsafe { (self.0.destroy)(&mut self.1) };
    }
}

fn cstring(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::type_error(format!("{what} must not contain a NUL byte")))
}

/// Compiles CUDA C++ `code` for `arch` (`sm_90` gives a cubin, `compute_90` PTX).
pub fn compile(code: &str, file_name: &str, options: &[String], name_expressions: &[String], arch: &str) -> Result<Compiled> {
    let api = api()?;
    let src = cstring(code, "kernel source")?;
    let file = cstring(file_name, "file name")?;
    let mut prog: Program = std::ptr::null_mut();
    // SAFETY: `src` and `file` are NUL-terminated and outlive the call; no headers are given.
    let status = unsafe { (api.create)(&mut prog, src.as_ptr(), file.as_ptr(), 0, std::ptr::null(), std::ptr::null()) };
    check(api, status, "nvrtcCreateProgram")?;
    let prog = Prog(api, prog);
    let names: Vec<CString> = name_expressions.iter().map(|n| cstring(n, "a name expression")).collect::<Result<_>>()?;
    for n in &names {
        // SAFETY: the program is live; `n` is NUL-terminated.
        check(api, unsafe { (api.add_name)(prog.1, n.as_ptr()) }, "nvrtcAddNameExpression")?;
    }
    let mut opts: Vec<CString> = vec![cstring(&format!("--gpu-architecture={arch}"), "arch")?];
    for o in options {
        opts.push(cstring(o, "a compiler option")?);
    }
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: the program is live; `ptrs` holds `ptrs.len()` NUL-terminated strings that outlive the call.
    let status = unsafe { (api.compile)(prog.1, ptrs.len() as c_int, ptrs.as_ptr()) };
    let log = program_log(api, prog.1);
    if status != 0 {
        return Err(match check(api, status, "nvrtcCompileProgram") {
            Err(Error::Named { code, .. }) => Error::named(code, format!("kernel compilation failed:\n{}", log.trim_end())),
            Err(e) => e,
            Ok(()) => unreachable!("a failing status is an error"),
        });
    }
    let is_cubin = arch.starts_with("sm_");
    let (size_fn, get_fn) = if is_cubin { (api.cubin_size, api.cubin) } else { (api.ptx_size, api.ptx) };
    let mut size = 0usize;
    // SAFETY: the program compiled; `size` is a valid out-pointer.
    check(api, unsafe { size_fn(prog.1, &mut size) }, "nvrtcGetCUBINSize")?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` holds the `size` bytes NVRTC reported.
    check(api, unsafe { get_fn(prog.1, image.as_mut_ptr() as *mut c_char) }, "nvrtcGetCUBIN")?;
    let mut lowered = Vec::new();
    for (expr, c) in name_expressions.iter().zip(&names) {
        let mut out: *const c_char = std::ptr::null();
        // SAFETY: the program compiled with this name expression added; the result lives as
        // long as the program, and is copied out below.
        check(api, unsafe { (api.lowered)(prog.1, c.as_ptr(), &mut out) }, "nvrtcGetLoweredName")?;
        // SAFETY: NVRTC returned a NUL-terminated string.
        lowered.push((expr.clone(), unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned()));
    }
    Ok(Compiled { image, is_cubin, log, lowered })
}

fn program_log(api: &Api, prog: Program) -> String {
    let mut size = 0usize;
    // SAFETY: the program is live; `size` is a valid out-pointer.
    if unsafe { (api.log_size)(prog, &mut size) } != 0 || size == 0 {
        return String::new();
    }
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds the `size` bytes NVRTC reported.
    if unsafe { (api.log)(prog, buf.as_mut_ptr() as *mut c_char) } != 0 {
        return String::new();
    }
    String::from_utf8_lossy(&buf).trim_end_matches('\0').to_string()
}
