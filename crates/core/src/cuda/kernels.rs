//! The built-in kernels (`kernels.sleep`, `kernels.fill`), written in PTX so that neither a
//! compiler nor NVRTC is needed: the driver JIT-compiles the text for the device on first use.

use super::raw;
use crate::error::{Check, Result};
use cudarc::driver::sys;
use std::ffi::{c_void, CString};

const SLEEP: &str = r#"
.visible .entry cuda_node_sleep(.param .u64 p_ns)
{
    .reg .pred %p<2>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [p_ns];
    mov.u64 %rd2, %globaltimer;
$L_spin:
    mov.u64 %rd3, %globaltimer;
    sub.u64 %rd4, %rd3, %rd2;
    setp.lt.u64 %p1, %rd4, %rd1;
    @%p1 bra $L_spin;
    ret;
}
"#;

/// A grid-stride loop storing `value` (its low `width` bytes) into `n` elements at `ptr`.
fn fill_entry(width: u8) -> String {
    let (shift, convert, store) = match width {
        1 => (0, "cvt.u16.u64 %rs1, %rd2;", "st.global.u8 [%rd8], %rs1;"),
        2 => (1, "cvt.u16.u64 %rs1, %rd2;", "st.global.u16 [%rd8], %rs1;"),
        4 => (2, "cvt.u32.u64 %r5, %rd2;", "st.global.u32 [%rd8], %r5;"),
        _ => (3, "", "st.global.u64 [%rd8], %rd2;"),
    };
    format!(
        r#"
.visible .entry cuda_node_fill{width}(.param .u64 p_ptr, .param .u64 p_val, .param .u64 p_n)
{{
    .reg .pred %p<2>;
    .reg .b16 %rs<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<9>;
    ld.param.u64 %rd1, [p_ptr];
    ld.param.u64 %rd2, [p_val];
    ld.param.u64 %rd3, [p_n];
    cvta.to.global.u64 %rd1, %rd1;
    {convert}
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, %nctaid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    mul.wide.u32 %rd6, %r4, %r2;
$L_loop:
    setp.ge.u64 %p1, %rd4, %rd3;
    @%p1 bra $L_done;
    shl.b64 %rd7, %rd4, {shift};
    add.u64 %rd8, %rd1, %rd7;
    {store}
    add.u64 %rd4, %rd4, %rd6;
    bra.uni $L_loop;
$L_done:
    ret;
}}
"#
    )
}

pub fn ptx() -> String {
    let mut s = String::from(".version 6.0\n.target sm_50\n.address_size 64\n");
    s.push_str(SLEEP);
    for w in [1, 2, 4, 8] {
        s.push_str(&fill_entry(w));
    }
    s
}

/// The loaded module of one device's context. Functions are plain handles, valid while the
/// module is loaded, which is for the life of the process.
pub struct Kernels {
    pub sleep: sys::CUfunction,
    /// By width: 1, 2, 4, 8 bytes.
    pub fill: [sys::CUfunction; 4],
}

// SAFETY: CUfunction handles may be used from any thread whose current context owns them.
unsafe impl Send for Kernels {}
// SAFETY: as above; the handles are never mutated.
unsafe impl Sync for Kernels {}

impl Kernels {
    /// Loads the module into the current context.
    pub fn load() -> Result<Kernels> {
        let text = CString::new(ptx()).expect("the PTX has no NUL byte");
        // SAFETY: `text` is a NUL-terminated PTX image that outlives the call; a context is current.
        let module = unsafe { raw::module_load_data(text.as_ptr() as *const c_void) }.check("cuModuleLoadData (built-in kernels)")?;
        let get = |name: &str| -> Result<sys::CUfunction> {
            let cname = CString::new(name).expect("kernel names have no NUL byte");
            // SAFETY: `module` was loaded above.
            unsafe { raw::module_get_function(module, &cname) }.check("cuModuleGetFunction")
        };
        Ok(Kernels {
            sleep: get("cuda_node_sleep")?,
            fill: [get("cuda_node_fill1")?, get("cuda_node_fill2")?, get("cuda_node_fill4")?, get("cuda_node_fill8")?],
        })
    }
}

/// Launches `f` with a 1-D grid on `stream`; `args` are pointers to each argument's value.
///
/// # Safety
/// 1. A context owning `f` and `stream` is current.
/// 2. `args` matches the kernel's parameters in number and size.
pub unsafe fn launch(f: sys::CUfunction, grid: u32, block: u32, stream: sys::CUstream, args: &mut [*mut c_void]) -> Result<()> {
    // SAFETY: the caller guarantees (1) and (2); `args` outlives the call, which copies the values.
    unsafe { raw::launch_kernel(f, [grid, 1, 1], [block, 1, 1], 0, stream, args.as_mut_ptr()) }.check("cuLaunchKernel")
}
