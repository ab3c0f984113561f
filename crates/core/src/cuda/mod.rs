//! The `cuda` backend: the real driver, loaded at run time through cudarc's `sys` layer.
//! Raw driver calls live here and nowhere else; each `unsafe` block says why it holds.

mod blas;
mod event;
mod graph;
mod kernels;
mod memory;
mod module;
mod nccl;
mod pinned;
mod staging;
mod stream;

use crate::backend::Backend;
use crate::device::{DeviceProps, MemInfo, ATTRIBUTES};
use crate::error::{Check, Code, Error, Result};
use crate::event::EventFlags;
use crate::ops::{AllocOps, EventOps, StreamOps};
use cudarc::driver::sys;
use event::CudaEvent;
use memory::CudaAlloc;
use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use stream::CudaStream;

static LOADED: AtomicBool = AtomicBool::new(false);

/// True once libcuda has been opened and initialised in this process.
pub fn driver_loaded() -> bool {
    LOADED.load(Ordering::Acquire)
}

/// Whether libcuda can be opened at all. cudarc panics where it cannot, so ask first.
pub fn driver_present() -> bool {
    // SAFETY: is_culib_present only tries to dlopen candidate names and drops what it opens.
    std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false)
}

pub(crate) struct CudaDevice {
    dev: sys::CUdevice,
    /// The device's primary context, retained on first use (CuPy and the runtime API share it).
    ctx: OnceLock<std::result::Result<usize, Error>>,
    props: OnceLock<DeviceProps>,
    kernels: OnceLock<Result<kernels::Kernels>>,
    handles: blas::Handles,
    /// Pinned buffers for pipelined copies from pageable memory, made on first use.
    staging: std::sync::Mutex<Option<staging::Staging>>,
}

impl CudaDevice {
    /// Makes the device's primary context current on the calling thread (any thread: the JS
    /// thread or a libuv worker) and returns it.
    pub(crate) fn bind(&self) -> Result<sys::CUcontext> {
        let ctx = self
            .ctx
            .get_or_init(|| {
                let mut ctx: sys::CUcontext = std::ptr::null_mut();
                // SAFETY: `self.dev` came from cuDeviceGet; `ctx` is a valid out-pointer. The
                // retained context is never released: it lives as long as the process.
                unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, self.dev) }.check("cuDevicePrimaryCtxRetain")?;
                Ok(ctx as usize)
            })
            .clone()? as sys::CUcontext;
        let mut current: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `current` is a valid out-pointer.
        unsafe { sys::cuCtxGetCurrent(&mut current) }.check("cuCtxGetCurrent")?;
        if current != ctx {
            // SAFETY: `ctx` is a retained primary context, valid for the life of the process.
            unsafe { sys::cuCtxSetCurrent(ctx) }.check("cuCtxSetCurrent")?;
        }
        Ok(ctx)
    }
}

pub struct CudaBackend {
    devices: Vec<Arc<CudaDevice>>,
}

impl CudaBackend {
    /// Opens the driver and initialises it. Returns the backend, the driver version and a
    /// sentence for `backend().reason`.
    pub fn load() -> Result<(Self, i32, String)> {
        if !driver_present() {
            let mut names = cudarc::get_lib_name_candidates("cuda");
            names.dedup_by(|a, b| a == b);
            names.sort();
            names.dedup();
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_INITIALIZED,
                format!("the CUDA driver library could not be loaded (looked for libcuda as {})", names.join(", ")),
            ));
        }
        // SAFETY: the library is present (checked above); cuInit has no preconditions.
        unsafe { sys::cuInit(0) }.check("cuInit")?;
        LOADED.store(true, Ordering::Release);
        let mut version: c_int = 0;
        // SAFETY: `version` is a valid out-pointer for the duration of the call.
        unsafe { sys::cuDriverGetVersion(&mut version) }.check("cuDriverGetVersion")?;
        let mut count: c_int = 0;
        // SAFETY: `count` is a valid out-pointer; the driver is initialised.
        unsafe { sys::cuDeviceGetCount(&mut count) }.check("cuDeviceGetCount")?;
        if count <= 0 {
            return Err(Error::cuda(Code::CUDA_ERROR_NO_DEVICE, "the CUDA driver loaded but found no device"));
        }
        let mut devices = Vec::with_capacity(count as usize);
        for ordinal in 0..count {
            let mut dev: sys::CUdevice = 0;
            // SAFETY: ordinal is in [0, count); `dev` is a valid out-pointer.
            unsafe { sys::cuDeviceGet(&mut dev, ordinal) }.check("cuDeviceGet")?;
            devices.push(Arc::new(CudaDevice {
                dev,
                ctx: OnceLock::new(),
                props: OnceLock::new(),
                kernels: OnceLock::new(),
                handles: Default::default(),
                staging: Default::default(),
            }));
        }
        let why = format!(
            "CUDA driver {}.{} loaded with {} device{}",
            version / 1000,
            (version % 1000) / 10,
            count,
            if count == 1 { "" } else { "s" }
        );
        Ok((CudaBackend { devices }, version, why))
    }

    fn bind(&self, ordinal: usize) -> Result<sys::CUcontext> {
        self.devices[ordinal].bind()
    }

    fn default_mem_pool(&self, ordinal: usize) -> Result<sys::CUmemoryPool> {
        self.bind(ordinal)?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: `pool` is a valid out-pointer; the device handle came from cuDeviceGet.
        unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, self.devices[ordinal].dev) }.check("cuDeviceGetDefaultMemPool")?;
        Ok(pool)
    }

    fn read_props(&self, ordinal: usize) -> Result<DeviceProps> {
        let dev = self.devices[ordinal].dev;
        let mut name = [0 as c_char; 256];
        // SAFETY: the buffer holds 256 bytes and we pass its length; the driver NUL-terminates.
        unsafe { sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as c_int, dev) }.check("cuDeviceGetName")?;
        // SAFETY: cuDeviceGetName wrote a NUL-terminated string into `name`.
        let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }.to_string_lossy().into_owned();
        let mut total: usize = 0;
        // SAFETY: `total` is a valid out-pointer; `dev` is a device handle from cuDeviceGet.
        unsafe { sys::cuDeviceTotalMem_v2(&mut total, dev) }.check("cuDeviceTotalMem")?;
        let mut attributes = Vec::with_capacity(ATTRIBUTES.len());
        for &(key, attr) in ATTRIBUTES {
            let mut value: c_int = 0;
            // SAFETY: `value` is a valid out-pointer; `attr` is a defined attribute.
            let r = unsafe { sys::cuDeviceGetAttribute(&mut value, attr, dev) };
            // An attribute this driver does not know reads as absent rather than failing the device.
            if r == sys::CUresult::CUDA_SUCCESS {
                attributes.push((key, value as i64));
            }
        }
        let get = |k: &str| attributes.iter().find(|(n, _)| *n == k).map(|&(_, v)| v as i32).unwrap_or(0);
        Ok(DeviceProps {
            name,
            cc_major: get("computeCapabilityMajor"),
            cc_minor: get("computeCapabilityMinor"),
            total_memory: total as u64,
            attributes,
        })
    }
}

impl Backend for CudaBackend {
    fn device_count(&self) -> usize {
        self.devices.len()
    }

    fn device_props(&self, ordinal: usize) -> Result<DeviceProps> {
        if let Some(p) = self.devices[ordinal].props.get() {
            return Ok(p.clone());
        }
        let props = self.read_props(ordinal)?;
        Ok(self.devices[ordinal].props.get_or_init(|| props).clone())
    }

    fn mem_info(&self, ordinal: usize) -> Result<MemInfo> {
        self.bind(ordinal)?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: both are valid out-pointers; a context is current (bind).
        unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) }.check("cuMemGetInfo")?;
        Ok(MemInfo { free: free as u64, total: total as u64 })
    }

    fn synchronize_device(&self, ordinal: usize) -> Result<()> {
        self.bind(ordinal)?;
        // SAFETY: a context is current (bind).
        unsafe { sys::cuCtxSynchronize() }.check("cuCtxSynchronize")
    }

    fn priority_range(&self, ordinal: usize) -> Result<(i32, i32)> {
        self.bind(ordinal)?;
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: both are valid out-pointers; a context is current.
        unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) }.check("cuCtxGetStreamPriorityRange")?;
        Ok((least, greatest))
    }

    fn stream_create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>> {
        self.bind(ordinal)?;
        let flags = if nonblocking { sys::CUstream_flags::CU_STREAM_NON_BLOCKING } else { sys::CUstream_flags::CU_STREAM_DEFAULT };
        let mut raw: sys::CUstream = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; a context is current.
        unsafe { sys::cuStreamCreateWithPriority(&mut raw, flags as u32, priority) }.check("cuStreamCreateWithPriority")?;
        Ok(Box::new(CudaStream { dev: self.devices[ordinal].clone(), raw, owned: true }))
    }

    fn stream_legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        // Handle 0 is the legacy stream of the current context (S3); every call binds first.
        Ok(Box::new(CudaStream { dev: self.devices[ordinal].clone(), raw: std::ptr::null_mut(), owned: false }))
    }

    fn stream_per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        Ok(Box::new(CudaStream { dev: self.devices[ordinal].clone(), raw: stream::CU_STREAM_PER_THREAD, owned: false }))
    }

    fn stream_external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)> {
        let ctx = self.bind(ordinal)?;
        let raw = handle as sys::CUstream;
        let mut owner: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: the handle is trusted to be a live stream, as CuPy's ExternalStream trusts it;
        // the driver rejects many invalid handles with an error.
        unsafe { sys::cuStreamGetCtx(raw, &mut owner) }.check("cuStreamGetCtx").map_err(|e| stream::external_error(handle, e))?;
        if owner != ctx {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_CONTEXT,
                format!("ExternalStream 0x{handle:x} does not belong to device {ordinal}'s primary context"),
            ));
        }
        let mut flags = 0u32;
        // SAFETY: as above; `flags` is a valid out-pointer.
        unsafe { sys::cuStreamGetFlags(raw, &mut flags) }.check("cuStreamGetFlags").map_err(|e| stream::external_error(handle, e))?;
        let nonblocking = flags & sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32 != 0;
        Ok((Box::new(CudaStream { dev: self.devices[ordinal].clone(), raw, owned: false }), nonblocking))
    }

    fn event_create(&self, ordinal: usize, flags: EventFlags) -> Result<Box<dyn EventOps>> {
        self.bind(ordinal)?;
        let mut bits = 0u32;
        if flags.blocking {
            bits |= sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC as u32;
        }
        if flags.disable_timing {
            bits |= sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        }
        if flags.interprocess {
            bits |= sys::CUevent_flags::CU_EVENT_INTERPROCESS as u32;
        }
        let mut raw: sys::CUevent = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; a context is current.
        unsafe { sys::cuEventCreate(&mut raw, bits) }.check("cuEventCreate")?;
        Ok(Box::new(CudaEvent { dev: self.devices[ordinal].clone(), raw }))
    }

    fn event_from_ipc(&self, ordinal: usize, handle: &[u8; 64]) -> Result<Box<dyn EventOps>> {
        self.bind(ordinal)?;
        let h = sys::CUipcEventHandle { reserved: handle.map(|b| b as std::ffi::c_char) };
        let mut raw: sys::CUevent = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; the driver validates the handle's contents.
        unsafe { sys::cuIpcOpenEventHandle(&mut raw, h) }.check("cuIpcOpenEventHandle")?;
        Ok(Box::new(CudaEvent { dev: self.devices[ordinal].clone(), raw }))
    }

    fn async_pool_stats(&self, ordinal: usize) -> Result<(u64, u64)> {
        let pool = self.default_mem_pool(ordinal)?;
        let read = |attr| -> Result<u64> {
            let mut v: u64 = 0;
            // SAFETY: these attributes are cuuint64_t values; `v` is a valid out-pointer.
            unsafe { sys::cuMemPoolGetAttribute(pool, attr, &mut v as *mut u64 as *mut std::ffi::c_void) }
                .check("cuMemPoolGetAttribute")?;
            Ok(v)
        };
        Ok((
            read(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?,
            read(sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?,
        ))
    }

    fn async_pool_trim(&self, ordinal: usize) -> Result<()> {
        let pool = self.default_mem_pool(ordinal)?;
        // SAFETY: the device's default pool is valid for the life of the context.
        unsafe { sys::cuMemPoolTrimTo(pool, 0) }.check("cuMemPoolTrimTo")
    }

    fn host_alloc(&self, size: u64) -> Result<Box<dyn crate::pinned::PinnedOps>> {
        // Portable pinned memory belongs to no one context; any current context will do.
        self.bind(0)?;
        let mut ptr: *mut std::ffi::c_void = std::ptr::null_mut();
        // SAFETY: `ptr` is a valid out-pointer; size > 0; a context is current.
        unsafe { sys::cuMemHostAlloc(&mut ptr, size as usize, sys::CU_MEMHOSTALLOC_PORTABLE) }.check("cuMemHostAlloc")?;
        Ok(Box::new(pinned::CudaPinned { dev: self.devices[0].clone(), ptr }))
    }

    fn blas(&self) -> &dyn crate::blas::BlasOps {
        self
    }

    fn profiler(&self, on: bool) -> Result<()> {
        self.bind(0)?;
        if on {
            // SAFETY: a context is current; the call has no other precondition.
            unsafe { sys::cuProfilerStart() }.check("cuProfilerStart")
        } else {
            // SAFETY: as above.
            unsafe { sys::cuProfilerStop() }.check("cuProfilerStop")
        }
    }

    fn module_load(&self, ordinal: usize, image: &[u8]) -> Result<Box<dyn crate::ops::ModuleOps>> {
        Ok(Box::new(module::CudaModule::load(self.devices[ordinal].clone(), image)?))
    }

    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>> {
        self.bind(ordinal)?;
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: `ptr` is a valid out-pointer; size > 0 (the caller handles 0); a context is current.
        unsafe { sys::cuMemAlloc_v2(&mut ptr, size as usize) }.check("cuMemAlloc")?;
        Ok(Box::new(CudaAlloc { dev: self.devices[ordinal].clone(), ptr }))
    }

    fn uuid(&self, ordinal: usize) -> Result<[u8; 16]> {
        let mut u = sys::CUuuid { bytes: [0; 16] };
        // SAFETY: `u` is a valid out-pointer; the device handle came from cuDeviceGet.
        unsafe { sys::cuDeviceGetUuid_v2(&mut u, self.devices[ordinal].dev) }.check("cuDeviceGetUuid")?;
        Ok(u.bytes.map(|b| b as u8))
    }

    fn pci_bus_id(&self, ordinal: usize) -> Result<String> {
        let mut id = [0 as c_char; 64];
        // SAFETY: the buffer holds 64 bytes and we pass its length; the driver NUL-terminates.
        unsafe { sys::cuDeviceGetPCIBusId(id.as_mut_ptr(), id.len() as c_int, self.devices[ordinal].dev) }.check("cuDeviceGetPCIBusId")?;
        // SAFETY: cuDeviceGetPCIBusId wrote a NUL-terminated string into `id`.
        Ok(unsafe { std::ffi::CStr::from_ptr(id.as_ptr()) }.to_string_lossy().into_owned())
    }

    fn can_access_peer(&self, ordinal: usize, peer: usize) -> Result<bool> {
        let mut can: c_int = 0;
        // SAFETY: `can` is a valid out-pointer; both device handles came from cuDeviceGet.
        unsafe { sys::cuDeviceCanAccessPeer(&mut can, self.devices[ordinal].dev, self.devices[peer].dev) }
            .check("cuDeviceCanAccessPeer")?;
        Ok(can != 0)
    }

    fn set_peer_access(&self, ordinal: usize, peer: usize, on: bool) -> Result<()> {
        let peer_ctx = self.bind(peer)?;
        self.bind(ordinal)?;
        // SAFETY: `peer_ctx` is a retained primary context; the device's own context is current.
        let r = unsafe {
            if on {
                sys::cuCtxEnablePeerAccess(peer_ctx, 0)
            } else {
                sys::cuCtxDisablePeerAccess(peer_ctx)
            }
        };
        match r {
            // Already so: enabling and disabling are idempotent, as CuPy treats them.
            sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED | sys::CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED => Ok(()),
            r => r.check(if on { "cuCtxEnablePeerAccess" } else { "cuCtxDisablePeerAccess" }),
        }
    }

    fn nccl(&self) -> &dyn crate::nccl::NcclOps {
        self
    }
}
