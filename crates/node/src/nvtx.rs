//! NVTX markers and ranges; push and pop are hot calls.

use crate::raw::{self, Arg, BigU64, Cx};
use cuda_node_core::nvtx::{self, Color};
use napi::sys;
use std::ffi::{CStr, CString};

/// The colour of a message from CuPy's `id_color` or an ARGB value (which wins).
fn color(id_color: Option<f64>, argb: Option<u32>) -> Color {
    match (argb, id_color) {
        (Some(c), _) => Color::Argb(c),
        (None, Some(id)) => Color::from_id(id as i64),
        (None, None) => Color::None,
    }
}

/// A message as NVTX takes it, NUL-terminated: inline when it fits (no allocation on the hot
/// path), else on the heap. A NUL byte inside is a TypeError.
#[allow(clippy::large_enum_variant)] // inline on purpose: the hot path allocates nothing
pub enum Message {
    Inline([u8; 256]),
    Heap(CString),
}

impl Message {
    fn as_c_str(&self) -> &CStr {
        match self {
            // The inline buffer was checked to hold one NUL, at the end of the text.
            Message::Inline(b) => CStr::from_bytes_until_nul(b).unwrap_or_default(),
            Message::Heap(c) => c,
        }
    }
}

impl<'a> Arg<'a> for Message {
    fn ts() -> String {
        "string".into()
    }
    fn read(cx: &'a Cx, i: usize, name: &str) -> cuda_node_core::Result<Message> {
        let Some(v) = cx.arg(i) else {
            return Err(raw::wrong(cx, i, name, "a string"));
        };
        let mut small = [0u8; 256];
        let mut len = 0usize;
        // SAFETY: `small` has room for 256 bytes; Node-API writes at most 255 and a NUL. A
        // non-string is refused with a status.
        if unsafe { sys::napi_get_value_string_utf8(cx.env, v, small.as_mut_ptr().cast(), small.len(), &mut len) } != sys::Status::napi_ok {
            return Err(raw::wrong(cx, i, name, "a string"));
        }
        if len + 1 < small.len() {
            if let Some(at) = small[..len].iter().position(|&b| b == 0) {
                return Err(nvtx::nul_error(at));
            }
            return Ok(Message::Inline(small));
        }
        // Possibly cut short: the whole string.
        CString::new(raw::string(cx.env, v, name)?).map(Message::Heap).map_err(|e| nvtx::nul_error(e.nul_position()))
    }
}

crate::exports! {
    /// A point in time.
    /// Whether an NVTX tool listens (read once: tools attach at start). With none, the JS layer
    /// skips its calls for messages the core would accept.
    c"nvtxAttached" => fn nvtx_attached(_cx) -> bool {
        Ok(nvtx::attached())
    }

    c"nvtxMark" => fn nvtx_mark(_cx, message: String, id_color: Option<f64>, argb: Option<u32>) -> () {
        nvtx::mark(&message, color(id_color, argb))
    }

    /// Opens a nested range on this thread; the depth NVTX reports.
    c"nvtxRangePush" => fn nvtx_range_push(_cx, message: Message, id_color: Option<f64>, argb: Option<u32>) -> f64 {
        Ok(nvtx::range_push_c(message.as_c_str(), color(id_color, argb)) as f64)
    }

    /// Closes the range this thread opened last.
    c"nvtxRangePop" => fn nvtx_range_pop(_cx) -> f64 {
        Ok(nvtx::range_pop() as f64)
    }

    /// Starts a range any thread may end, by its id.
    c"nvtxRangeStart" => fn nvtx_range_start(_cx, message: String, id_color: Option<f64>, argb: Option<u32>) -> BigU64 {
        Ok(BigU64(nvtx::range_start(&message, color(id_color, argb))?))
    }

    /// Ends the range `nvtxRangeStart` gave `id` for.
    c"nvtxRangeEnd" => fn nvtx_range_end(_cx, id: BigU64) -> () {
        nvtx::range_end(id.0);
        Ok(())
    }
}
