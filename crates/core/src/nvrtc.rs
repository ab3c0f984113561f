//! NVRTC, the run-time CUDA C++ compiler, loaded at run time like the driver. cudarc's loader
//! looks only for the CUDA version it was built for (12), so the library is found here, among
//! the names CUDA 11 to 13 use, `CUDA_NODE_NVRTC_PATH`, `CUDA_NODE_LIBRARY_PATH` (wheel
//! layouts included, `dynlib.rs`) and the toolkit's usual folders.

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
    /// LTO-IR output (CUDA 12.0+; `nvrtcGetNVVM` before).
    ltoir_size: Option<unsafe extern "C" fn(Program, *mut usize) -> Status>,
    ltoir: Option<unsafe extern "C" fn(Program, *mut c_char) -> Status>,
    /// The architectures it can compile for (CUDA 11.2+).
    num_archs: Option<unsafe extern "C" fn(*mut c_int) -> Status>,
    archs: Option<unsafe extern "C" fn(*mut c_int) -> Status>,
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
        macro_rules! opt {
            ($n:literal) => {
                // SAFETY: as above; a missing symbol is `None`.
                unsafe { lib.get($n) }.ok().map(|s| *s)
            };
        }
        Some(Api {
            ltoir_size: opt!(b"nvrtcGetLTOIRSize\0"),
            ltoir: opt!(b"nvrtcGetLTOIR\0"),
            num_archs: opt!(b"nvrtcGetNumSupportedArchs\0"),
            archs: opt!(b"nvrtcGetSupportedArchs\0"),
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

/// The architectures NVRTC can compile for, as numbers (`90` for sm_90), oldest first.
pub fn supported_archs() -> Result<Vec<i32>> {
    let api = api()?;
    let (Some(num), Some(get)) = (api.num_archs, api.archs) else {
        return Err(Error::named("NVRTC_ERROR", "this NVRTC (before CUDA 11.2) cannot list its architectures"));
    };
    let mut n: c_int = 0;
    // SAFETY: `n` is a valid out-pointer.
    check(api, unsafe { num(&mut n) }, "nvrtcGetNumSupportedArchs")?;
    let mut out = vec![0 as c_int; n.max(0) as usize];
    // SAFETY: `out` holds the `n` ints NVRTC reported.
    check(api, unsafe { get(out.as_mut_ptr()) }, "nvrtcGetSupportedArchs")?;
    Ok(out)
}

fn check(api: &Api, status: Status, what: &str) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    // SAFETY: nvrtcGetErrorString returns a static NUL-terminated string for any status.
    let text = unsafe { CStr::from_ptr((api.error_string)(status)) }.to_string_lossy().into_owned();
    Err(Error::named(if status == 6 { "NVRTC_ERROR_COMPILATION" } else { "NVRTC_ERROR" }, format!("{what} failed: {text}")))
}

/// What a compile makes: a cubin (for one `sm_XX`), PTX, or LTO-IR (for nvJitLink).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Cubin,
    Ptx,
    Ltoir,
}

impl Target {
    /// `'cubin'`, `'ptx'` or `'ltoir'`.
    pub fn parse(s: &str) -> Result<Target> {
        match s {
            "cubin" => Ok(Target::Cubin),
            "ptx" => Ok(Target::Ptx),
            "ltoir" => Ok(Target::Ltoir),
            _ => Err(Error::type_error(format!("target must be 'cubin', 'ptx' or 'ltoir', got '{s}'"))),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Target::Cubin => "cubin",
            Target::Ptx => "ptx",
            Target::Ltoir => "ltoir",
        }
    }
}

/// `arch` as NVRTC's `--gpu-architecture` for `target`: `90`, `sm_90`, `compute_90` (and `sm_90a`)
/// are all accepted; a cubin needs a real architecture (`sm_`), PTX and LTO-IR take a virtual one.
pub fn arch_option(arch: &str, target: Target) -> Result<String> {
    let digits = arch.strip_prefix("sm_").or_else(|| arch.strip_prefix("compute_")).unwrap_or(arch);
    let (num, suffix) = digits.split_at(digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len()));
    if num.len() < 2 || num.len() > 3 || !(suffix.is_empty() || suffix == "a" || suffix == "f") {
        return Err(Error::type_error(format!("arch must look like '90', 'sm_90' or 'compute_90', got '{arch}'")));
    }
    Ok(match target {
        Target::Cubin => format!("sm_{num}{suffix}"),
        Target::Ptx | Target::Ltoir => format!("compute_{num}{suffix}"),
    })
}

/// What a compile produced.
pub struct Compiled {
    pub image: Vec<u8>,
    pub target: Target,
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

/// Compiles CUDA C++ `code` for `arch` into `target`. A failed compile is
/// `NVRTC_ERROR_COMPILATION` with the log; the log of a successful one (warnings) is returned.
pub fn compile(
    code: &str,
    file_name: &str,
    options: &[String],
    name_expressions: &[String],
    arch: &str,
    target: Target,
) -> Result<Compiled> {
    let arch = arch_option(arch, target)?;
    let api = api()?;
    let (ltoir_size, ltoir) = match (target, api.ltoir_size, api.ltoir) {
        (Target::Ltoir, Some(a), Some(b)) => (Some(a), Some(b)),
        (Target::Ltoir, ..) => return Err(Error::named("NVRTC_ERROR", "this NVRTC (before CUDA 12.0) cannot make LTO-IR")),
        _ => (None, None),
    };
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
    if target == Target::Ltoir {
        opts.push(cstring("-dlto", "an option")?);
    }
    for o in options {
        opts.push(cstring(o, "a compiler option")?);
    }
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: the program is live; `ptrs` holds `ptrs.len()` NUL-terminated strings that outlive the call.
    let status = unsafe { (api.compile)(prog.1, ptrs.len() as c_int, ptrs.as_ptr()) };
    let log = program_log(api, prog.1);
    if status != 0 {
        return Err(match check(api, status, "nvrtcCompileProgram") {
            Err(Error::Named { code: name, .. }) => {
                Error::named(name, format!("kernel compilation failed:\n{}{}", log.trim_end(), source_line(code, file_name, &log)))
            }
            Err(e) => e,
            Ok(()) => unreachable!("a failing status is an error"),
        });
    }
    let (size_fn, get_fn, what) = match target {
        Target::Cubin => (api.cubin_size, api.cubin, "nvrtcGetCUBIN"),
        Target::Ptx => (api.ptx_size, api.ptx, "nvrtcGetPTX"),
        Target::Ltoir => (ltoir_size.expect("checked above"), ltoir.expect("checked above"), "nvrtcGetLTOIR"),
    };
    let mut size = 0usize;
    // SAFETY: the program compiled; `size` is a valid out-pointer.
    check(api, unsafe { size_fn(prog.1, &mut size) }, what)?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` holds the `size` bytes NVRTC reported.
    check(api, unsafe { get_fn(prog.1, image.as_mut_ptr() as *mut c_char) }, what)?;
    let mut lowered = Vec::new();
    for (expr, c) in name_expressions.iter().zip(&names) {
        let mut out: *const c_char = std::ptr::null();
        // SAFETY: the program compiled with this name expression added; the result lives as
        // long as the program, and is copied out below.
        check(api, unsafe { (api.lowered)(prog.1, c.as_ptr(), &mut out) }, "nvrtcGetLoweredName")?;
        // SAFETY: NVRTC returned a NUL-terminated string.
        lowered.push((expr.clone(), unsafe { CStr::from_ptr(out) }.to_string_lossy().into_owned()));
    }
    Ok(Compiled { image, target, log, lowered })
}

/// The source line the log's first message points at (`kernel.cu(3): error: ...`), quoted, so
/// the error shows it without the source at hand.
fn source_line(code: &str, file_name: &str, log: &str) -> String {
    let line = || -> Option<(usize, &str)> {
        let at = log.find(&format!("{file_name}("))? + file_name.len() + 1;
        let n: usize = log[at..].split(')').next()?.parse().ok()?;
        Some((n, code.lines().nth(n.checked_sub(1)?)?))
    };
    line().map_or(String::new(), |(n, text)| format!("\n  {n} | {}", text.trim_end()))
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

/// The mangled name NVRTC gave `expression`, from a compile's `(expression, name)` pairs;
/// `NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID` (as `nvrtcGetLoweredName` answers) for one the
/// compile was not given.
pub fn lowered<'a>(mut pairs: impl Iterator<Item = (&'a str, &'a str)>, expression: &str) -> Result<&'a str> {
    pairs
        .find(|(e, _)| *e == expression)
        .map(|(_, name)| name)
        .ok_or_else(|| Error::named("NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", format!("{expression} was not given in nameExpressions")))
}
