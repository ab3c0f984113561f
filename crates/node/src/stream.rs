use crate::args::{count, int32};
use crate::callbacks::host_fn;
use crate::errors::guard;
use crate::pinned::NativePinned;
use crate::ptrs;
use crate::task::Blocking;
use crate::graph::NativeGraph;
use crate::handles::{self, Owned, Table};
use cuda_node_core::{runtime, CaptureMode, CaptureStatus, Code, Error, Pattern, Stream, StreamKind};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static STREAMS: RefCell<Table<Arc<Stream>>> = RefCell::new(Table::default());
}

fn destroyed() -> Error {
    Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "this Stream was destroyed: create a new one")
}

/// Runs `f` on the live stream behind a handle (`NativeStream.id`), for the hot calls in `fast.rs`.
pub(crate) fn with<R>(id: f64, f: impl FnOnce(&Arc<Stream>) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
    handles::with(&STREAMS, id, f).unwrap_or_else(|| Err(destroyed()))
}

/// A stream as the TS layer's `Stream` holds it: the object owns a handle in this thread's
/// table. `destroy()` (or the GC) drops the core stream; any later call is
/// `CUDA_ERROR_INVALID_HANDLE` rather than the driver's undefined behaviour (G-3).
#[napi]
pub struct NativeStream {
    stream: Owned<Arc<Stream>>,
}

impl NativeStream {
    pub(crate) fn get(&self) -> cuda_node_core::Result<Arc<Stream>> {
        self.stream.get().ok_or_else(destroyed)
    }

    fn wrap(s: Stream) -> NativeStream {
        NativeStream { stream: Owned::new(&STREAMS, Arc::new(s)) }
    }
}

fn ordinal(id: f64) -> cuda_node_core::Result<usize> {
    runtime()?.ordinal(id)
}

#[napi]
impl NativeStream {
    #[napi(factory)]
    pub fn create(env: Env, device: f64, nonblocking: bool, priority: Option<f64>) -> Result<NativeStream> {
        guard(&env, || {
            let priority = priority.map(|p| int32("priority", p)).transpose()?;
            Ok(Self::wrap(Stream::create(ordinal(device)?, nonblocking, priority)?))
        })
    }

    #[napi(factory)]
    pub fn legacy(env: Env, device: f64) -> Result<NativeStream> {
        guard(&env, || Ok(Self::wrap(Stream::legacy(ordinal(device)?)?)))
    }

    #[napi(factory)]
    pub fn per_thread(env: Env, device: f64) -> Result<NativeStream> {
        guard(&env, || Ok(Self::wrap(Stream::per_thread(ordinal(device)?)?)))
    }

    #[napi(factory)]
    pub fn external(env: Env, device: f64, handle: BigInt) -> Result<NativeStream> {
        guard(&env, || {
            let (negative, value, lossless) = handle.get_u64();
            if negative || !lossless {
                return Err(Error::range("a stream handle is an unsigned 64-bit integer"));
            }
            Ok(Self::wrap(Stream::external(ordinal(device)?, value)?))
        })
    }

    #[napi(getter)]
    pub fn handle(&self, env: Env) -> Result<BigInt> {
        guard(&env, || Ok(BigInt::from(self.get()?.handle())))
    }

    #[napi(getter)]
    pub fn device(&self, env: Env) -> Result<u32> {
        guard(&env, || Ok(self.get()?.device() as u32))
    }

    #[napi(getter)]
    pub fn priority(&self, env: Env) -> Result<i32> {
        guard(&env, || Ok(self.get()?.priority()))
    }

    #[napi(getter)]
    pub fn nonblocking(&self, env: Env) -> Result<bool> {
        guard(&env, || Ok(self.get()?.is_nonblocking()))
    }

    #[napi(getter)]
    pub fn destroyed(&self) -> bool {
        self.get().is_err()
    }

    /// The handle the hot calls take (`fast.rs`).
    #[napi(getter)]
    pub fn id(&self) -> f64 {
        self.stream.id()
    }



    #[napi(ts_return_type = "Promise<void>")]
    pub fn synchronize_async(&self, env: Env) -> Result<AsyncTask<Blocking<()>>> {
        let s = guard(&env, || Ok(self.get()?.clone()))?;
        Ok(Blocking::new(move || s.synchronize()))
    }



    /// `'global' | 'threadLocal' | 'relaxed'`.
    #[napi]
    pub fn begin_capture(&self, env: Env, mode: String) -> Result<()> {
        guard(&env, || {
            let mode = match mode.as_str() {
                "global" => CaptureMode::Global,
                "threadLocal" => CaptureMode::ThreadLocal,
                "relaxed" => CaptureMode::Relaxed,
                other => return Err(Error::range(format!("capture mode must be 'global', 'threadLocal' or 'relaxed', got '{other}'"))),
            };
            self.get()?.begin_capture(mode)
        })
    }

    #[napi]
    pub fn end_capture(&self, env: Env) -> Result<NativeGraph> {
        guard(&env, || Ok(NativeGraph::wrap(self.get()?.end_capture()?)))
    }

    /// `'none' | 'active' | 'invalidated'`.
    #[napi]
    pub fn capture_status(&self, env: Env) -> Result<String> {
        guard(&env, || {
            Ok(match self.get()?.capture_status()? {
                CaptureStatus::None => "none",
                CaptureStatus::Active => "active",
                CaptureStatus::Invalidated => "invalidated",
            }
            .to_string())
        })
    }

    /// Like `streamLaunchHostFn` (`fast.rs`), through `cuStreamAddCallback` (not capturable).
    #[napi]
    pub fn add_callback(&self, env: Env, id: u32) -> Result<()> {
        guard(&env, || {
            let f = host_fn(id)?;
            self.get()?.add_callback(Box::new(move |_status| f()))
        })
    }


    #[napi]
    pub fn fill(&self, env: Env, dst: f64, offset: f64, width: u32, bits: BigInt, n: f64) -> Result<()> {
        guard(&env, || {
            let (_, bits, _) = bits.get_u64();
            let pattern = Pattern { width: width.min(255) as u8, bits };
            let (n, offset) = (count("count", n)?, count("offset", offset)?);
            let block = ptrs::get(dst)?;
            let bytes = n.checked_mul(pattern.width as u64).ok_or_else(|| Error::range("fill count is too large"))?;
            let (mem, at) = block.range(offset, bytes, "fill")?;
            self.get()?.fill(mem, at, pattern, n)
        })
    }

    #[napi]
    pub fn memset(&self, env: Env, dst: f64, offset: f64, value: u32, size: f64) -> Result<()> {
        guard(&env, || {
            if value > 255 {
                return Err(Error::range(format!("memset value must be a byte (0 to 255), got {value}")));
            }
            let size = count("size", size)?;
            let block = ptrs::get(dst)?;
            let (mem, at) = block.range(count("offset", offset)?, size, "memset")?;
            self.get()?.memset(mem, at, value as u8, size)
        })
    }

    #[napi]
    pub fn copy_htod(&self, env: Env, dst: f64, offset: f64, src: Uint8ArraySlice) -> Result<()> {
        guard(&env, || {
            let src = src.as_ref();
            let block = ptrs::get(dst)?;
            let (mem, at) = block.range(count("offset", offset)?, src.len() as u64, "copy")?;
            self.get()?.copy_htod(mem, at, src)
        })
    }

    #[napi]
    pub fn copy_dtoh(&self, env: Env, mut dst: Uint8ArraySlice, src: f64, offset: f64) -> Result<()> {
        // SAFETY: JS cannot run while this synchronous call holds the thread, so nothing else
        // reads or writes the view's bytes until the copy (complete on return) is done.
        let dst = unsafe { dst.as_mut() };
        guard(&env, || {
            let block = ptrs::get(src)?;
            let (mem, at) = block.range(count("offset", offset)?, dst.len() as u64, "copy")?;
            self.get()?.copy_dtoh(dst, mem, at)
        })
    }

    #[napi]
    pub fn copy_htod_pinned(&self, env: Env, dst: f64, offset: f64, src: &NativePinned, src_offset: f64, size: f64) -> Result<()> {
        guard(&env, || {
            let size = count("size", size)?;
            let block = ptrs::get(dst)?;
            let (mem, at) = block.range(count("offset", offset)?, size, "copy")?;
            self.get()?.copy_htod_async(mem, at, src.get()?, count("offset", src_offset)?, size)
        })
    }

    #[napi]
    pub fn copy_dtoh_pinned(&self, env: Env, dst: &NativePinned, dst_offset: f64, src: f64, offset: f64, size: f64) -> Result<()> {
        guard(&env, || {
            let size = count("size", size)?;
            let block = ptrs::get(src)?;
            let (mem, at) = block.range(count("offset", offset)?, size, "copy")?;
            self.get()?.copy_dtoh_async(dst.get()?, count("offset", dst_offset)?, mem, at, size)
        })
    }

    #[napi]
    pub fn copy_dtod(&self, env: Env, dst: f64, dst_offset: f64, src: f64, src_offset: f64, size: f64) -> Result<()> {
        guard(&env, || {
            let size = count("size", size)?;
            let (d, s) = (ptrs::get(dst)?, ptrs::get(src)?);
            let (dmem, dat) = d.range(count("offset", dst_offset)?, size, "copy")?;
            let (smem, sat) = s.range(count("offset", src_offset)?, size, "copy")?;
            self.get()?.copy_dtod(dmem, dat, smem, sat, size)
        })
    }

    /// Releases the stream; pending work still completes. The default streams cannot be destroyed.
    #[napi]
    pub fn destroy(&self, env: Env) -> Result<()> {
        guard(&env, || {
            if let Ok(s) = self.get() {
                if matches!(s.kind(), StreamKind::Legacy | StreamKind::PerThread) {
                    return Err(Error::cuda(Code::CUDA_ERROR_INVALID_HANDLE, "the default streams cannot be destroyed"));
                }
            }
            drop(self.stream.remove());
            Ok(())
        })
    }
}

/// `[least, greatest]` priorities of the device's streams.
#[napi]
pub fn stream_priority_range(env: Env, device: f64) -> Result<Vec<i32>> {
    guard(&env, || {
        let (least, greatest) = cuda_node_core::priority_range(ordinal(device)?)?;
        Ok(vec![least, greatest])
    })
}
