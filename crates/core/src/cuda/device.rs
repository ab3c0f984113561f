//! Devices on the real driver: the backend and its devices (what every other file of the backend
//! shares), each device's primary context, its properties, and peer access.

use super::{kernels, raw, recycle, staging};
use crate::error::{Check, Error, Result};
use crate::ops::device::Limit;
use crate::ops::{DeviceOps, DeviceProps, MemInfo, ATTRIBUTES};
use cudarc::driver::sys;
use std::sync::{Arc, OnceLock, Weak};

/// The backend: its devices, by ordinal.
pub struct CudaBackend {
    pub(super) devices: Vec<Arc<CudaDevice>>,
}

pub(crate) struct CudaDevice {
    pub(super) ordinal: usize,
    pub(super) dev: sys::CUdevice,
    /// The device's primary context, retained on first use (CuPy and the runtime API share it).
    pub(super) ctx: OnceLock<std::result::Result<usize, Error>>,
    pub(super) props: OnceLock<DeviceProps>,
    pub(super) kernels: OnceLock<Result<kernels::Kernels>>,
    /// Pinned buffers for pipelined copies from pageable memory, made on first use.
    pub(super) staging: std::sync::Mutex<Option<staging::Staging>>,
    /// Released streams and events kept for reuse.
    pub(super) recycled: recycle::Recycled,
    /// Every device of the backend, this one included, by ordinal (set once all are made): an
    /// allocation names its device by ordinal, and a copy between two binds both.
    all: OnceLock<Box<[Weak<CudaDevice>]>>,
}

impl CudaDevice {
    /// The backend's devices, each knowing the others.
    pub(super) fn all(devs: Vec<sys::CUdevice>) -> Vec<Arc<CudaDevice>> {
        let all: Vec<_> = devs.into_iter().enumerate().map(|(ordinal, dev)| Arc::new(CudaDevice::new(ordinal, dev))).collect();
        for d in &all {
            let _ = d.all.set(all.iter().map(Arc::downgrade).collect());
        }
        all
    }

    fn new(ordinal: usize, dev: sys::CUdevice) -> CudaDevice {
        CudaDevice {
            ordinal,
            dev,
            ctx: OnceLock::new(),
            props: OnceLock::new(),
            kernels: OnceLock::new(),
            staging: Default::default(),
            recycled: Default::default(),
            all: OnceLock::new(),
        }
    }

    /// The backend's device `ordinal` (one an allocation of this backend names).
    pub(super) fn sibling(&self, ordinal: usize) -> Option<Arc<CudaDevice>> {
        self.all.get()?.get(ordinal)?.upgrade()
    }

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

impl CudaBackend {
    pub(super) fn bind(&self, ordinal: usize) -> Result<sys::CUcontext> {
        self.devices[ordinal].bind()
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

impl DeviceOps for CudaBackend {
    fn count(&self) -> usize {
        self.devices.len()
    }

    fn props(&self, ordinal: usize) -> Result<DeviceProps> {
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

    fn synchronize(&self, ordinal: usize) -> Result<()> {
        self.bind(ordinal)?;
        raw::ctx_synchronize().check("cuCtxSynchronize")
    }

    fn priority_range(&self, ordinal: usize) -> Result<(i32, i32)> {
        self.bind(ordinal)?;
        raw::ctx_stream_priority_range().check("cuCtxGetStreamPriorityRange")
    }

    fn profiler(&self, on: bool) -> Result<()> {
        self.bind(0)?;
        raw::profiler(on).check(if on { "cuProfilerStart" } else { "cuProfilerStop" })
    }

    fn get_limit(&self, ordinal: usize, limit: Limit) -> Result<u64> {
        self.bind(ordinal)?;
        Ok(raw::ctx_get_limit(cu_limit(limit)).check("cuCtxGetLimit")? as u64)
    }

    fn set_limit(&self, ordinal: usize, limit: Limit, value: u64) -> Result<()> {
        self.bind(ordinal)?;
        let value = usize::try_from(value).map_err(|_| Error::range(format!("{value} does not fit a size_t")))?;
        raw::ctx_set_limit(cu_limit(limit), value).check("cuCtxSetLimit")
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
}

/// The driver's `CUlimit` of a limit.
fn cu_limit(limit: Limit) -> sys::CUlimit {
    use sys::CUlimit as L;
    match limit {
        Limit::StackSize => L::CU_LIMIT_STACK_SIZE,
        Limit::PrintfFifoSize => L::CU_LIMIT_PRINTF_FIFO_SIZE,
        Limit::MallocHeapSize => L::CU_LIMIT_MALLOC_HEAP_SIZE,
        Limit::DevRuntimeSyncDepth => L::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH,
        Limit::DevRuntimePendingLaunchCount => L::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT,
        Limit::MaxL2FetchGranularity => L::CU_LIMIT_MAX_L2_FETCH_GRANULARITY,
        Limit::PersistingL2CacheSize => L::CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
    }
}
