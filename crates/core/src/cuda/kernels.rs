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

/// The set-condition kernel: reads the element at `ptr` as `dtype` (as `CondTest` numbers
/// them), compares it with `value` by `op` (6: passes the element itself, a switch's index) and
/// calls `cudaGraphSetConditional`, which the driver resolves at load (CUDA 12.3+). In its own
/// module, loaded at first use: an older driver cannot load it, and the other built-ins must
/// still load there.
const SET_CONDITION: &str = r#"
.version 6.0
.target sm_50
.address_size 64

.extern .func cudaGraphSetConditional
(
    .param .b64 cudaGraphSetConditional_param_0,
    .param .b32 cudaGraphSetConditional_param_1
)
;

.visible .entry cuda_node_set_condition(.param .u64 p_handle, .param .u64 p_ptr, .param .u64 p_value, .param .u32 p_dtype, .param .u32 p_op)
{
    .reg .pred %p<12>;
    .reg .b16 %rs<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<2>;
    .reg .f64 %fd<3>;
    ld.param.u64 %rd1, [p_handle];
    ld.param.u64 %rd2, [p_ptr];
    ld.param.u64 %rd3, [p_value];
    ld.param.u32 %r1, [p_dtype];
    ld.param.u32 %r2, [p_op];
    cvta.to.global.u64 %rd2, %rd2;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $L_u8;
    setp.eq.u32 %p1, %r1, 1;
    @%p1 bra $L_s8;
    setp.eq.u32 %p1, %r1, 2;
    @%p1 bra $L_u16;
    setp.eq.u32 %p1, %r1, 3;
    @%p1 bra $L_s16;
    setp.eq.u32 %p1, %r1, 4;
    @%p1 bra $L_u32;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 bra $L_s32;
    setp.eq.u32 %p1, %r1, 6;
    @%p1 bra $L_u64;
    setp.eq.u32 %p1, %r1, 7;
    @%p1 bra $L_s64;
    setp.eq.u32 %p1, %r1, 8;
    @%p1 bra $L_f32;
    ld.global.f64 %fd1, [%rd2];
    bra.uni $L_flt;
$L_u8:
    ld.global.u8 %rs1, [%rd2];
    cvt.u64.u16 %rd4, %rs1;
    bra.uni $L_uns;
$L_s8:
    ld.global.s8 %rs1, [%rd2];
    cvt.s64.s16 %rd4, %rs1;
    bra.uni $L_sig;
$L_u16:
    ld.global.u16 %rs1, [%rd2];
    cvt.u64.u16 %rd4, %rs1;
    bra.uni $L_uns;
$L_s16:
    ld.global.s16 %rs1, [%rd2];
    cvt.s64.s16 %rd4, %rs1;
    bra.uni $L_sig;
$L_u32:
    ld.global.u32 %r3, [%rd2];
    cvt.u64.u32 %rd4, %r3;
    bra.uni $L_uns;
$L_s32:
    ld.global.s32 %r3, [%rd2];
    cvt.s64.s32 %rd4, %r3;
    bra.uni $L_sig;
$L_u64:
    ld.global.u64 %rd4, [%rd2];
    bra.uni $L_uns;
$L_s64:
    ld.global.u64 %rd4, [%rd2];
    bra.uni $L_sig;
$L_f32:
    ld.global.f32 %f1, [%rd2];
    cvt.f64.f32 %fd1, %f1;
    bra.uni $L_flt;
$L_uns:
    setp.eq.u32 %p2, %r2, 6;
    @%p2 bra $L_raw;
    setp.eq.u64 %p3, %rd4, %rd3;
    setp.ne.u64 %p4, %rd4, %rd3;
    setp.lt.u64 %p5, %rd4, %rd3;
    setp.le.u64 %p6, %rd4, %rd3;
    setp.gt.u64 %p7, %rd4, %rd3;
    setp.ge.u64 %p8, %rd4, %rd3;
    bra.uni $L_pick;
$L_sig:
    setp.eq.u32 %p2, %r2, 6;
    @%p2 bra $L_raw;
    setp.eq.s64 %p3, %rd4, %rd3;
    setp.ne.s64 %p4, %rd4, %rd3;
    setp.lt.s64 %p5, %rd4, %rd3;
    setp.le.s64 %p6, %rd4, %rd3;
    setp.gt.s64 %p7, %rd4, %rd3;
    setp.ge.s64 %p8, %rd4, %rd3;
    bra.uni $L_pick;
$L_flt:
    setp.eq.u32 %p2, %r2, 6;
    @%p2 bra $L_fraw;
    mov.b64 %fd2, %rd3;
    setp.eq.f64 %p3, %fd1, %fd2;
    setp.neu.f64 %p4, %fd1, %fd2;
    setp.lt.f64 %p5, %fd1, %fd2;
    setp.le.f64 %p6, %fd1, %fd2;
    setp.gt.f64 %p7, %fd1, %fd2;
    setp.ge.f64 %p8, %fd1, %fd2;
    bra.uni $L_pick;
$L_fraw:
    cvt.rzi.u32.f64 %r4, %fd1;
    bra.uni $L_set;
$L_raw:
    cvt.u32.u64 %r4, %rd4;
    bra.uni $L_set;
$L_pick:
    mov.u32 %r4, 0;
    setp.eq.u32 %p9, %r2, 0;
    @%p9 selp.u32 %r4, 1, 0, %p3;
    setp.eq.u32 %p9, %r2, 1;
    @%p9 selp.u32 %r4, 1, 0, %p4;
    setp.eq.u32 %p9, %r2, 2;
    @%p9 selp.u32 %r4, 1, 0, %p5;
    setp.eq.u32 %p9, %r2, 3;
    @%p9 selp.u32 %r4, 1, 0, %p6;
    setp.eq.u32 %p9, %r2, 4;
    @%p9 selp.u32 %r4, 1, 0, %p7;
    setp.eq.u32 %p9, %r2, 5;
    @%p9 selp.u32 %r4, 1, 0, %p8;
$L_set:
    {
    .param .b64 param0;
    st.param.b64 [param0+0], %rd1;
    .param .b32 param1;
    st.param.b32 [param1+0], %r4;
    call.uni cudaGraphSetConditional, (param0, param1);
    }
    ret;
}
"#;

/// The set-condition kernel of the current context's device `ordinal`, loaded at first use.
pub fn set_condition(ordinal: usize) -> Result<sys::CUfunction> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static LOADED: OnceLock<Mutex<HashMap<usize, usize>>> = OnceLock::new();
    let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&f) = loaded.get(&ordinal) {
        return Ok(f as sys::CUfunction);
    }
    let text = CString::new(SET_CONDITION).expect("the PTX has no NUL byte");
    // SAFETY: `text` is a NUL-terminated PTX image that outlives the call; a context is current.
    let module = unsafe { raw::module_load_data(text.as_ptr() as *const c_void) }.check("cuModuleLoadData (the set-condition kernel)")?;
    let name = CString::new("cuda_node_set_condition").expect("no NUL byte");
    // SAFETY: `module` was loaded above.
    let f = unsafe { raw::module_get_function(module, &name) }.check("cuModuleGetFunction")?;
    loaded.insert(ordinal, f as usize);
    Ok(f)
}
