//! NVTX markers and ranges (CuPy's `cupy.cuda.nvtx`), through NVIDIA's NVTX3 headers compiled
//! into `csrc/nvtx.c`. With no tool attached, each call costs a check of a function pointer.

use crate::error::{Error, Result};
use std::ffi::{c_char, c_int, CStr, CString};

#[cfg(not(target_family = "wasm"))]
extern "C" {
    fn cuda_node_nvtx_mark(message: *const c_char, argb: u32, has_color: c_int);
    fn cuda_node_nvtx_range_push(message: *const c_char, argb: u32, has_color: c_int) -> c_int;
    fn cuda_node_nvtx_range_pop() -> c_int;
    fn cuda_node_nvtx_range_start(message: *const c_char, argb: u32, has_color: c_int) -> u64;
    fn cuda_node_nvtx_range_end(id: u64);
    fn cuda_node_nvtx_attached() -> c_int;
}

/// Whether an NVTX tool listens (one was injected when NVTX initialised, which this forces).
/// Tools attach at start (NVTX_INJECTION64_PATH), so the answer is read once.
pub fn attached() -> bool {
    static ATTACHED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: initialising NVTX is idempotent and thread-safe.
    *ATTACHED.get_or_init(|| unsafe { cuda_node_nvtx_attached() } != 0)
}

/// WebAssembly: no NVTX library and no tool, so every call is what NVTX does with no tool attached.
#[cfg(target_family = "wasm")]
mod no_tool {
    use super::{c_char, c_int};
    pub unsafe fn cuda_node_nvtx_mark(_: *const c_char, _: u32, _: c_int) {}
    pub unsafe fn cuda_node_nvtx_range_push(_: *const c_char, _: u32, _: c_int) -> c_int {
        -1
    }
    pub unsafe fn cuda_node_nvtx_range_pop() -> c_int {
        -1
    }
    pub unsafe fn cuda_node_nvtx_range_start(_: *const c_char, _: u32, _: c_int) -> u64 {
        0
    }
    pub unsafe fn cuda_node_nvtx_range_end(_: u64) {}
    pub unsafe fn cuda_node_nvtx_attached() -> c_int {
        0
    }
}
#[cfg(target_family = "wasm")]
use no_tool::*;

/// CuPy's palette for `id_color` (`_colors` in cupy/cuda/nvtx.pyx): index `id % 10`, ARGB.
pub const PALETTE: [u32; 10] =
    [0xFF00FF00, 0xFF007FFF, 0xFF7F00FF, 0xFFFF0000, 0xFF7FFF00, 0xFF00FF7F, 0xFF0000FF, 0xFFFF007F, 0xFFFF7F00, 0xFF7F7F7F];

/// The colour of a message: none, a palette entry, or ARGB given directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Color {
    None,
    Argb(u32),
}

impl Color {
    /// CuPy's `id_color`: negative for no colour, else a palette entry.
    pub fn from_id(id: i64) -> Color {
        if id < 0 {
            Color::None
        } else {
            Color::Argb(PALETTE[(id % PALETTE.len() as i64) as usize])
        }
    }

    fn split(self) -> (u32, c_int) {
        match self {
            Color::None => (0, 0),
            Color::Argb(c) => (c, 1),
        }
    }
}

/// The error for a message with a NUL byte at `at`.
pub fn nul_error(at: usize) -> Error {
    Error::type_error(format!("an NVTX message cannot contain a NUL byte (found one at {at})"))
}

fn message(m: &str) -> Result<CString> {
    CString::new(m).map_err(|e| nul_error(e.nul_position()))
}

pub fn mark(m: &str, color: Color) -> Result<()> {
    let m = message(m)?;
    let (argb, has) = color.split();
    // SAFETY: `m` is NUL-terminated and outlives the call; NVTX copies what it keeps.
    unsafe { cuda_node_nvtx_mark(m.as_ptr(), argb, has) };
    Ok(())
}

/// Pushes a range on this thread's stack; returns the depth NVTX reports (-1 with no tool).
pub fn range_push(m: &str, color: Color) -> Result<i32> {
    Ok(range_push_c(&message(m)?, color))
}

/// [`range_push`] for a message already NUL-terminated (the hot path from JS: no allocation).
pub fn range_push_c(m: &CStr, color: Color) -> i32 {
    let (argb, has) = color.split();
    // SAFETY: as for `mark`.
    unsafe { cuda_node_nvtx_range_push(m.as_ptr(), argb, has) }
}

pub fn range_pop() -> i32 {
    // SAFETY: NVTX tolerates a pop with nothing pushed (the tool reports it).
    unsafe { cuda_node_nvtx_range_pop() }
}

/// Ids this module gives ranges where no tool listens (NVTX then returns 0 for every range):
/// the top bit marks them, so `range_end` does not hand them to a tool that never issued them.
const OWN_ID: u64 = 1 << 63;

/// Starts a range that any thread may end, by its id: the tool's, or where no tool is attached
/// one of ours, so ids are distinct either way (timelines and callers key ranges by them).
pub fn range_start(m: &str, color: Color) -> Result<u64> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let m = message(m)?;
    let (argb, has) = color.split();
    // SAFETY: as for `mark`.
    let id = unsafe { cuda_node_nvtx_range_start(m.as_ptr(), argb, has) };
    Ok(if id == 0 { OWN_ID | NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) } else { id })
}

pub fn range_end(id: u64) {
    if id & OWN_ID != 0 {
        return;
    }
    // SAFETY: any id may be passed; NVTX hands it to the tool, if any.
    unsafe { cuda_node_nvtx_range_end(id) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_without_a_tool_are_harmless() {
        assert!(!attached(), "no tool in the tests");
        mark("m", Color::from_id(3)).unwrap();
        assert!(range_push("r", Color::None).is_ok());
        range_pop();
        let id = range_start("s", Color::Argb(0xFF123456)).unwrap();
        let other = range_start("t", Color::None).unwrap();
        assert_ne!(id, other, "range ids are distinct with no tool attached");
        assert_ne!(id, 0);
        range_end(id);
        range_end(other);
        assert!(matches!(mark("a\0b", Color::None), Err(Error::Type(_))));
    }

    #[test]
    fn id_colors_follow_cupys_palette() {
        assert_eq!(Color::from_id(-1), Color::None);
        assert_eq!(Color::from_id(0), Color::Argb(0xFF00FF00));
        assert_eq!(Color::from_id(13), Color::Argb(0xFFFF0000));
    }
}
