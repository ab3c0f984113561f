//! Simulated CUDA arrays, texture and surface objects (`ops::Textures`). An array is its packed
//! bytes (rows of `width` elements, `height` rows a slice or layer), counted against its device's
//! memory, so a host implementation of a kernel reads them with a copy out. Texture and surface
//! objects are handles only: sampling is the kernel's host implementation's business. A copy
//! waits for the stream's work, then moves the bytes at once.

use super::memory::{host_oom, sim_alloc};
use super::{lock, SimBackend, SimDevice};
use crate::error::{Code, Error, Result};
use crate::ops::{ArrayDesc, ArrayOps, Linear, ModuleOps, ObjectOps, ResourceRef, StreamOps, TexDesc, Textures};
use std::any::Any;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

pub struct SimArray {
    dev: Arc<SimDevice>,
    handle: u64,
    desc: ArrayDesc,
    bytes: Mutex<Vec<u8>>,
}

impl Drop for SimArray {
    fn drop(&mut self) {
        self.dev.used.fetch_sub(self.desc.bytes(), Ordering::Relaxed);
    }
}

impl SimArray {
    /// Moves the array's rows to or from rows `pitch` bytes apart at `base` of `other`.
    fn rows(&self, other: &mut [u8], base: u64, pitch: u64, into_array: bool) {
        let d = &self.desc;
        let (row, n) = (d.row_bytes() as usize, (d.rows() * d.slices()) as usize);
        let mut bytes = lock(&self.bytes);
        for i in 0..n {
            let at = (base + i as u64 * pitch) as usize;
            let (a, o) = (&mut bytes[i * row..(i + 1) * row], &mut other[at..at + row]);
            if into_array {
                a.copy_from_slice(o);
            } else {
                o.copy_from_slice(a);
            }
        }
    }
}

impl ArrayOps for SimArray {
    fn handle(&self) -> u64 {
        self.handle
    }

    fn copy(&self, linear: Linear<'_>, stream: &dyn StreamOps) -> Result<()> {
        stream.synchronize()?;
        match linear {
            Linear::FromHost(src) => lock(&self.bytes).copy_from_slice(src),
            Linear::ToHost(dst) => dst.copy_from_slice(&lock(&self.bytes)),
            Linear::FromDevice(mem, offset, pitch) => self.rows(&mut sim_alloc(mem).buffer.lock(), offset, pitch, true),
            Linear::ToDevice(mem, offset, pitch) => self.rows(&mut sim_alloc(mem).buffer.lock(), offset, pitch, false),
        }
        Ok(())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

struct SimObject(u64);

impl ObjectOps for SimObject {
    fn handle(&self) -> u64 {
        self.0
    }
}

impl SimBackend {
    fn object(&self, ordinal: usize) -> Box<dyn ObjectOps> {
        Box::new(SimObject(self.devices[ordinal].next_handle.fetch_add(0x10, Ordering::Relaxed)))
    }
}

impl Textures for SimBackend {
    fn create_array(&self, ordinal: usize, desc: &ArrayDesc) -> Result<Box<dyn ArrayOps>> {
        let dev = &self.devices[ordinal];
        let size = desc.bytes();
        let (total, used) = (dev.props.total_memory, dev.used.fetch_add(size, Ordering::Relaxed));
        if used.checked_add(size).is_none_or(|u| u > total) {
            dev.used.fetch_sub(size, Ordering::Relaxed);
            return Err(Error::cuda(
                Code::CUDA_ERROR_OUT_OF_MEMORY,
                format!("out of memory making a {size}-byte CUDA array on simulated device {ordinal} ({used} of {total} bytes in use)"),
            ));
        }
        let mut bytes = Vec::new();
        if usize::try_from(size).map_or(true, |n| bytes.try_reserve_exact(n).is_err()) {
            dev.used.fetch_sub(size, Ordering::Relaxed);
            return Err(host_oom(size, "a simulated CUDA array"));
        }
        bytes.resize(size as usize, 0);
        let handle = dev.next_handle.fetch_add(0x10, Ordering::Relaxed);
        Ok(Box::new(SimArray { dev: dev.clone(), handle, desc: *desc, bytes: Mutex::new(bytes) }))
    }

    fn create_texture(&self, ordinal: usize, _res: &ResourceRef<'_>, _desc: &TexDesc) -> Result<Box<dyn ObjectOps>> {
        Ok(self.object(ordinal))
    }

    fn create_surface(&self, ordinal: usize, _array: &dyn ArrayOps) -> Result<Box<dyn ObjectOps>> {
        Ok(self.object(ordinal))
    }

    fn bind_texref(&self, _ordinal: usize, _module: &dyn ModuleOps, _name: &str, _res: &ResourceRef<'_>, _desc: &TexDesc) -> Result<u64> {
        // Never reached: the simulator loads no module to hold a texture reference.
        Err(super::stream::no_kernels())
    }
}
