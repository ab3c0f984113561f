//! The `cuda` backend: the real driver, loaded at run time through cudarc's `sys` layer.
//! Raw driver calls live in `raw.rs` and nowhere else; each `unsafe` block says why it holds.

mod blas;
mod event;
mod graph;
mod holds;
mod kernels;
mod memory;
mod module;
mod nccl;
mod pinned;
pub(crate) mod raw;
mod recycle;
mod staging;
mod stream;

use crate::backend::{Backend, DeviceProps, EventFlags, MemInfo, PoolAttr, ATTRIBUTES};
use crate::error::{Check, Code, Error, Result};
use crate::ops::{AllocOps, EventOps, StreamOps};
use cudarc::driver::sys;
use event::CudaEvent;
use memory::CudaAlloc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
#[cfg(feature = "floor")]
pub(crate) use stream::sleep_function;
use stream::CudaStream;

static LOADED: AtomicBool = AtomicBool::new(false);

/// True once libcuda has been opened and initialised in this process.
pub fn driver_loaded() -> bool {
    LOADED.load(Ordering::Acquire)
}

/// Whether libcuda can be opened at all. cudarc panics where it cannot, so ask first.
pub fn driver_present() -> bool {
    raw::driver_present()
}

pub(crate) struct CudaDevice {
    dev: sys::CUdevice,
    /// The device's primary context, retained on first use (CuPy and the runtime API share it).
    ctx: OnceLock<std::result::Result<usize, Error>>,
    props: OnceLock<DeviceProps>,
    kernels: OnceLock<Result<kernels::Kernels>>,
    /// Pinned buffers for pipelined copies from pageable memory, made on first use.
    staging: std::sync::Mutex<Option<staging::Staging>>,
    /// Released streams and events kept for reuse.
    recycled: recycle::Recycled,
}

impl CudaDevice {
    /// Makes the device's primary context current on the calling thread (any thread: the JS
    /// thread or a libuv worker) and returns it.
    pub(crate) fn bind(&self) -> Result<sys::CUcontext> {
        let ctx = self
            .ctx
            .get_or_init(|| {
                // The retained context is never released: it lives as long as the process.
                let ctx = raw::primary_ctx_retain(self.dev).check("cuDevicePrimaryCtxRetain")?;
                Ok(ctx as usize)
            })
            .clone()? as sys::CUcontext;
        if raw::ctx_current().check("cuCtxGetCurrent")? != ctx {
            // SAFETY: `ctx` is a retained primary context, valid for the life of the process.
            unsafe { raw::ctx_set_current(ctx) }.check("cuCtxSetCurrent")?;
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
        // SAFETY: the library is present (checked above).
        unsafe { raw::init() }.check("cuInit")?;
        LOADED.store(true, Ordering::Release);
        crate::error::set_driver_description(raw::error_string);
        let version = raw::driver_version().check("cuDriverGetVersion")?;
        let count = raw::device_count().check("cuDeviceGetCount")?;
        if count <= 0 {
            return Err(Error::cuda(Code::CUDA_ERROR_NO_DEVICE, "the CUDA driver loaded but found no device"));
        }
        let mut devices = Vec::with_capacity(count as usize);
        for ordinal in 0..count {
            let dev = raw::device_get(ordinal).check("cuDeviceGet")?;
            devices.push(Arc::new(CudaDevice {
                dev,
                ctx: OnceLock::new(),
                props: OnceLock::new(),
                kernels: OnceLock::new(),
                staging: Default::default(),
                recycled: Default::default(),
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
        raw::device_default_mem_pool(self.devices[ordinal].dev).check("cuDeviceGetDefaultMemPool")
    }

    fn read_props(&self, ordinal: usize) -> Result<DeviceProps> {
        let dev = self.devices[ordinal].dev;
        let name = raw::device_name(dev).check("cuDeviceGetName")?;
        let total = raw::device_total_mem(dev).check("cuDeviceTotalMem")?;
        let mut attributes = Vec::with_capacity(ATTRIBUTES.len());
        for &(key, attr) in ATTRIBUTES {
            // An attribute this driver does not know reads as absent rather than failing the device.
            if let Ok(value) = raw::device_attribute(dev, attr) {
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
        let (free, total) = raw::mem_get_info().check("cuMemGetInfo")?;
        Ok(MemInfo { free: free as u64, total: total as u64 })
    }

    fn synchronize_device(&self, ordinal: usize) -> Result<()> {
        self.bind(ordinal)?;
        raw::ctx_synchronize().check("cuCtxSynchronize")
    }

    fn priority_range(&self, ordinal: usize) -> Result<(i32, i32)> {
        self.bind(ordinal)?;
        raw::ctx_stream_priority_range().check("cuCtxGetStreamPriorityRange")
    }

    fn stream_create(&self, ordinal: usize, nonblocking: bool, priority: i32) -> Result<Box<dyn StreamOps>> {
        self.bind(ordinal)?;
        let flags = if nonblocking { sys::CUstream_flags::CU_STREAM_NON_BLOCKING } else { sys::CUstream_flags::CU_STREAM_DEFAULT } as u32;
        let dev = &self.devices[ordinal];
        // A kept stream that was used is checked with a query, which a capture under way may bar.
        let raw = match dev.recycled.take_stream(flags, priority, !crate::capture::any_active()) {
            Some(raw) => raw,
            None => raw::stream_create(flags, priority).check("cuStreamCreateWithPriority")?,
        };
        Ok(Box::new(CudaStream::new(dev, raw, Some((flags, priority)))))
    }

    fn stream_legacy(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        // Handle 0 is the legacy stream of the current context (S3); every call binds first.
        Ok(Box::new(CudaStream::new(&self.devices[ordinal], std::ptr::null_mut(), None)))
    }

    fn stream_per_thread(&self, ordinal: usize) -> Result<Box<dyn StreamOps>> {
        Ok(Box::new(CudaStream::new(&self.devices[ordinal], stream::CU_STREAM_PER_THREAD, None)))
    }

    fn stream_external(&self, ordinal: usize, handle: u64) -> Result<(Box<dyn StreamOps>, bool)> {
        let ctx = self.bind(ordinal)?;
        let stream = handle as sys::CUstream;
        if !stream::readable(handle) {
            return Err(Error::range(format!(
                "0x{handle:x} is no stream handle: nothing is mapped at that address in this process (a CUstream is the address of a driver object)"
            )));
        }
        // SAFETY: the handle is trusted to be a live stream, as CuPy's ExternalStream trusts it,
        // once it is known to point at readable memory; the driver rejects many invalid handles
        // with an error.
        let owner = unsafe { raw::stream_ctx(stream) }.check("cuStreamGetCtx").map_err(|e| stream::external_error(handle, e))?;
        if owner != ctx {
            return Err(Error::cuda(
                Code::CUDA_ERROR_INVALID_CONTEXT,
                format!("ExternalStream 0x{handle:x} does not belong to device {ordinal}'s primary context"),
            ));
        }
        // SAFETY: as above.
        let flags = unsafe { raw::stream_flags(stream) }.check("cuStreamGetFlags").map_err(|e| stream::external_error(handle, e))?;
        let nonblocking = flags & sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32 != 0;
        Ok((Box::new(CudaStream::new(&self.devices[ordinal], stream, None)), nonblocking))
    }

    fn event_create(&self, ordinal: usize, flags: EventFlags, reuse: bool) -> Result<Box<dyn EventOps>> {
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
        let dev = &self.devices[ordinal];
        // An interprocess event may be open in another process: never handed to a second owner.
        let keep = (!flags.interprocess).then_some(bits);
        let raw = match keep.filter(|_| reuse).and_then(|bits| dev.recycled.take_event(bits)) {
            Some(raw) => raw,
            None => raw::event_create(bits).check("cuEventCreate")?,
        };
        Ok(Box::new(CudaEvent { dev: dev.clone(), raw, keep }))
    }

    fn event_from_ipc(&self, ordinal: usize, handle: &[u8; 64]) -> Result<Box<dyn EventOps>> {
        self.bind(ordinal)?;
        let raw = raw::ipc_open_event_handle(handle).check("cuIpcOpenEventHandle")?;
        Ok(Box::new(CudaEvent { dev: self.devices[ordinal].clone(), raw, keep: None }))
    }

    fn async_pool_get(&self, ordinal: usize, attr: PoolAttr) -> Result<u64> {
        let pool = self.default_mem_pool(ordinal)?;
        // SAFETY: the device's default pool lives as long as its context; every attribute
        // `pool_attr` names is a cuuint64_t value.
        unsafe { raw::mem_pool_attribute_u64(pool, pool_attr(attr)) }.check("cuMemPoolGetAttribute")
    }

    fn async_pool_set(&self, ordinal: usize, attr: PoolAttr, value: u64) -> Result<()> {
        let pool = self.default_mem_pool(ordinal)?;
        // SAFETY: as above; the model sets only the release threshold and the high-water marks
        // (to 0), the settable cuuint64_t attributes.
        unsafe { raw::mem_pool_set_attribute_u64(pool, pool_attr(attr), value) }.check("cuMemPoolSetAttribute")
    }

    fn async_pool_trim(&self, ordinal: usize) -> Result<()> {
        let pool = self.default_mem_pool(ordinal)?;
        // SAFETY: the device's default pool is valid for the life of the context.
        unsafe { raw::mem_pool_trim_to(pool, 0) }.check("cuMemPoolTrimTo")
    }

    fn host_alloc(&self, size: u64) -> Result<Box<dyn crate::ops::PinnedOps>> {
        // Portable pinned memory belongs to no one context; any current context will do.
        self.bind(0)?;
        let ptr = raw::mem_host_alloc(size as usize).check("cuMemHostAlloc")?;
        Ok(Box::new(pinned::CudaPinned { dev: self.devices[0].clone(), ptr }))
    }

    fn blas(&self) -> &dyn crate::ops::blas::BlasOps {
        self
    }

    fn release_finished_holds(&self) {
        holds::reap_all();
    }

    fn profiler(&self, on: bool) -> Result<()> {
        self.bind(0)?;
        raw::profiler(on).check(if on { "cuProfilerStart" } else { "cuProfilerStop" })
    }

    fn module_load(&self, ordinal: usize, image: &[u8]) -> Result<Box<dyn crate::ops::ModuleOps>> {
        Ok(Box::new(module::CudaModule::load(self.devices[ordinal].clone(), image)?))
    }

    fn alloc(&self, ordinal: usize, size: u64) -> Result<Box<dyn AllocOps>> {
        self.bind(ordinal)?;
        // size > 0: the caller handles 0.
        let ptr = raw::mem_alloc(size as usize).check("cuMemAlloc")?;
        Ok(Box::new(CudaAlloc { dev: self.devices[ordinal].clone(), ptr }))
    }

    fn uuid(&self, ordinal: usize) -> Result<[u8; 16]> {
        raw::device_uuid(self.devices[ordinal].dev).check("cuDeviceGetUuid")
    }

    fn pci_bus_id(&self, ordinal: usize) -> Result<String> {
        raw::device_pci_bus_id(self.devices[ordinal].dev).check("cuDeviceGetPCIBusId")
    }

    fn can_access_peer(&self, ordinal: usize, peer: usize) -> Result<bool> {
        raw::device_can_access_peer(self.devices[ordinal].dev, self.devices[peer].dev).check("cuDeviceCanAccessPeer")
    }

    fn set_peer_access(&self, ordinal: usize, peer: usize, on: bool) -> Result<()> {
        let peer_ctx = self.bind(peer)?;
        self.bind(ordinal)?;
        // SAFETY: `peer_ctx` is a retained primary context; the device's own context is current.
        match unsafe { raw::ctx_peer_access(peer_ctx, on) } {
            // Already so: enabling and disabling are idempotent, as CuPy treats them.
            Err(sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED | sys::CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED) => Ok(()),
            r => r.check(if on { "cuCtxEnablePeerAccess" } else { "cuCtxDisablePeerAccess" }),
        }
    }

    fn nccl(&self) -> &dyn crate::ops::nccl::NcclOps {
        self
    }

    fn alloc_managed(&self, ordinal: usize, size: u64, global: bool) -> Result<Box<dyn AllocOps>> {
        self.bind(ordinal)?;
        let flags = if global { sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL } else { sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST };
        let mut ptr: sys::CUdeviceptr = 0;
        // SAFETY: `ptr` is a valid out-pointer; size > 0 and checked against free memory (memory.rs).
        unsafe { sys::cuMemAllocManaged(&mut ptr, size as usize, flags as u32) }.check("cuMemAllocManaged")?;
        Ok(Box::new(memory::CudaManaged { inner: CudaAlloc { dev: self.devices[ordinal].clone(), ptr } }))
    }

    fn pointer_attributes(&self, ptr: u64) -> Result<crate::backend::PointerAttributes> {
        use crate::backend::{MemoryKind, PointerAttributes};
        self.bind(0)?;
        fn read<T: Default>(attr: sys::CUpointer_attribute, ptr: u64) -> Result<T> {
            let mut v = T::default();
            // SAFETY: `v` has the type the attribute is documented to write (int, pointer or size).
            unsafe { sys::cuPointerGetAttribute(&mut v as *mut T as *mut std::ffi::c_void, attr, ptr) }.check("cuPointerGetAttribute")?;
            Ok(v)
        }
        use sys::CUpointer_attribute as A;
        let memtype: u32 = read(A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr)?;
        let managed: u32 = read(A::CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr)?;
        let device: i32 = read(A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr)?;
        let base: u64 = read(A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr)?;
        let size: usize = read(A::CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr)?;
        let kind = if managed != 0 {
            MemoryKind::Managed
        } else if memtype == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32 {
            MemoryKind::Host
        } else {
            MemoryKind::Device
        };
        Ok(PointerAttributes { device: device.max(0) as usize, kind, base, size: size as u64 })
    }

    fn alloc_foreign(&self, ordinal: usize, ptr: u64) -> Result<(Box<dyn AllocOps>, u64)> {
        let attrs = self.pointer_attributes(ptr)?;
        self.bind(ordinal)?;
        let managed = attrs.kind == crate::backend::MemoryKind::Managed;
        Ok((Box::new(memory::CudaForeign { base: attrs.base, managed }), ptr - attrs.base))
    }

    fn mem_advise(&self, ptr: u64, len: u64, advice: crate::backend::Advice, location: crate::ops::Location) -> Result<()> {
        self.bind(0)?;
        let advice = match advice {
            crate::backend::Advice::SetReadMostly => sys::CUmem_advise::CU_MEM_ADVISE_SET_READ_MOSTLY,
            crate::backend::Advice::UnsetReadMostly => sys::CUmem_advise::CU_MEM_ADVISE_UNSET_READ_MOSTLY,
            crate::backend::Advice::SetPreferredLocation => sys::CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
            crate::backend::Advice::UnsetPreferredLocation => sys::CUmem_advise::CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
            crate::backend::Advice::SetAccessedBy => sys::CUmem_advise::CU_MEM_ADVISE_SET_ACCESSED_BY,
            crate::backend::Advice::UnsetAccessedBy => sys::CUmem_advise::CU_MEM_ADVISE_UNSET_ACCESSED_BY,
        };
        // SAFETY: the range lies in a live managed allocation (checked in memory.rs).
        unsafe { sys::cuMemAdvise_v2(ptr, len as usize, advice, mem_location(location)) }.check("cuMemAdvise")
    }

    fn ipc_mem_handle(&self, ordinal: usize, ptr: u64) -> Result<[u8; 64]> {
        self.bind(ordinal)?;
        let mut h = sys::CUipcMemHandle { reserved: [0; 64] };
        // SAFETY: `h` is a valid out-pointer; `ptr` is the base of a live allocation of ours.
        unsafe { sys::cuIpcGetMemHandle(&mut h, ptr) }.check("cuIpcGetMemHandle")?;
        Ok(h.reserved.map(|b| b as u8))
    }

    fn ipc_open_mem(&self, ordinal: usize, handle: &[u8; 64]) -> Result<(Box<dyn AllocOps>, u64)> {
        self.bind(ordinal)?;
        let h = sys::CUipcMemHandle { reserved: handle.map(|b| b as std::ffi::c_char) };
        let mut ptr: sys::CUdeviceptr = 0;
        let flags = sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32;
        // SAFETY: `ptr` is a valid out-pointer; the driver validates the handle's contents.
        unsafe { sys::cuIpcOpenMemHandle_v2(&mut ptr, h, flags) }.check("cuIpcOpenMemHandle")?;
        let opened = memory::CudaIpcMem { dev: self.devices[ordinal].clone(), ptr };
        let (mut base, mut size) = (0 as sys::CUdeviceptr, 0usize);
        // SAFETY: both are valid out-pointers; `ptr` was just mapped.
        unsafe { sys::cuMemGetAddressRange_v2(&mut base, &mut size, ptr) }.check("cuMemGetAddressRange")?;
        Ok((Box::new(opened), size as u64))
    }

    fn host_register(&self, ptr: *mut u8, len: u64) -> Result<Box<dyn crate::ops::PinnedOps>> {
        self.bind(0)?;
        // SAFETY: the caller keeps `len` bytes at `ptr` alive until the result is dropped.
        unsafe { sys::cuMemHostRegister_v2(ptr.cast(), len as usize, sys::CU_MEMHOSTREGISTER_PORTABLE) }.check("cuMemHostRegister")?;
        Ok(Box::new(pinned::CudaRegistered { dev: self.devices[0].clone(), ptr: ptr.cast() }))
    }
}

/// A driver memory location.
pub(crate) fn mem_location(location: crate::ops::Location) -> sys::CUmemLocation {
    match location {
        crate::ops::Location::Device(d) => sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: d as i32 },
        crate::ops::Location::Host => sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST, id: 0 },
    }
}

/// The driver's name of a pool attribute; each is a `cuuint64_t`.
fn pool_attr(attr: PoolAttr) -> sys::CUmemPool_attribute {
    use sys::CUmemPool_attribute::*;
    match attr {
        PoolAttr::ReleaseThreshold => CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
        PoolAttr::ReservedCurrent => CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
        PoolAttr::ReservedHigh => CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
        PoolAttr::UsedCurrent => CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
        PoolAttr::UsedHigh => CU_MEMPOOL_ATTR_USED_MEM_HIGH,
    }
}
