//! The `cuda` backend: the real driver, loaded at run time through cudarc's `sys` layer.
//! Raw driver calls live here and nowhere else; each `unsafe` block says why it holds.

use crate::backend::Backend;
use crate::device::{DeviceProps, MemInfo, ATTRIBUTES};
use crate::error::{Check, Code, Error, Result};
use cudarc::driver::sys;
use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

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

struct CudaDevice {
    dev: sys::CUdevice,
    /// The device's primary context, retained on first use (CuPy and the runtime API share it).
    ctx: OnceLock<std::result::Result<usize, Error>>,
    props: OnceLock<DeviceProps>,
}

pub struct CudaBackend {
    devices: Vec<CudaDevice>,
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
            devices.push(CudaDevice { dev, ctx: OnceLock::new(), props: OnceLock::new() });
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

    /// Makes the device's primary context current on the calling thread (any thread: the JS
    /// thread or a libuv worker) and returns it.
    pub(crate) fn bind(&self, ordinal: usize) -> Result<sys::CUcontext> {
        let device = &self.devices[ordinal];
        let ctx = device
            .ctx
            .get_or_init(|| {
                let mut ctx: sys::CUcontext = std::ptr::null_mut();
                // SAFETY: `device.dev` came from cuDeviceGet; `ctx` is a valid out-pointer. The
                // retained context is never released: it lives as long as the process.
                unsafe { sys::cuDevicePrimaryCtxRetain(&mut ctx, device.dev) }.check("cuDevicePrimaryCtxRetain")?;
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
}
