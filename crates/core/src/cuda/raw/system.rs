//! NVML's calls (libnvidia-ml, loaded at run time like the driver; NVML is not the driver, but
//! its FFI lives in the raw layer all the same). Each returns NVML's code as the error; the
//! caller names the call. Loaded and initialised once per process; never unloaded.

use crate::dynlib;
use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::OnceLock;

/// An NVML device handle (`nvmlDevice_t`).
pub(crate) type NvmlDevice = *mut c_void;
/// An NVML call's result: the value it wrote, or its `nvmlReturn_t`.
pub(crate) type NvRaw<T> = std::result::Result<T, c_int>;

/// `NVML_ERROR_NOT_SUPPORTED`: the device cannot give this reading.
pub(crate) const NOT_SUPPORTED: c_int = 3;
const INSUFFICIENT_SIZE: c_int = 7;
/// `NVML_VALUE_NOT_AVAILABLE`, as `usedGpuMemory` says it.
pub(crate) const VALUE_NOT_AVAILABLE: u64 = u64::MAX;
const NVML_TEMPERATURE_GPU: c_int = 0;
/// `nvmlClockType_t`: `NVML_CLOCK_SM`, `NVML_CLOCK_MEM`.
pub(crate) const CLOCK_SM: c_int = 1;
pub(crate) const CLOCK_MEM: c_int = 2;
/// `nvmlPcieUtilCounter_t`: `NVML_PCIE_UTIL_TX_BYTES`, `NVML_PCIE_UTIL_RX_BYTES`.
pub(crate) const PCIE_TX: c_int = 0;
pub(crate) const PCIE_RX: c_int = 1;
/// `NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX` / `_RX`: KiB of data since the driver loaded.
pub(crate) const FI_NVLINK_TX: c_uint = 138;
pub(crate) const FI_NVLINK_RX: c_uint = 139;

#[repr(C)]
#[derive(Default)]
struct Utilization {
    gpu: c_uint,
    memory: c_uint,
}

#[repr(C)]
#[derive(Default)]
struct Memory {
    total: u64,
    free: u64,
    used: u64,
}

/// `nvmlProcessInfo_t` as `nvmlDeviceGetComputeRunningProcesses_v3` fills it (24 bytes).
#[repr(C)]
#[derive(Default, Clone, Copy)]
struct ProcessInfo {
    pid: c_uint,
    used_gpu_memory: u64,
    gpu_instance_id: c_uint,
    compute_instance_id: c_uint,
}

/// `nvmlFieldValue_t` (40 bytes); `value` is the union, read as `unsigned long long`.
#[repr(C)]
#[derive(Default, Clone, Copy)]
struct FieldValue {
    field_id: c_uint,
    scope_id: c_uint,
    timestamp: i64,
    latency_usec: i64,
    value_type: c_int,
    nvml_return: c_int,
    value: u64,
}

type Fn0 = unsafe extern "C" fn() -> c_int;
type FnU = unsafe extern "C" fn(NvmlDevice, *mut c_uint) -> c_int;
type FnTU = unsafe extern "C" fn(NvmlDevice, c_int, *mut c_uint) -> c_int;

/// The NVML functions this crate calls.
pub(crate) struct Nvml {
    _lib: Library,
    error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    driver_version: unsafe extern "C" fn(*mut c_char, c_uint) -> c_int,
    by_uuid: unsafe extern "C" fn(*const c_char, *mut NvmlDevice) -> c_int,
    by_pci: unsafe extern "C" fn(*const c_char, *mut NvmlDevice) -> c_int,
    name: unsafe extern "C" fn(NvmlDevice, *mut c_char, c_uint) -> c_int,
    utilization: unsafe extern "C" fn(NvmlDevice, *mut Utilization) -> c_int,
    memory: unsafe extern "C" fn(NvmlDevice, *mut Memory) -> c_int,
    temperature: FnTU,
    power: FnU,
    power_limit: FnU,
    clock: FnTU,
    pcie: FnTU,
    processes: Option<unsafe extern "C" fn(NvmlDevice, *mut c_uint, *mut ProcessInfo) -> c_int>,
    field_values: Option<unsafe extern "C" fn(NvmlDevice, c_int, *mut FieldValue) -> c_int>,
}

// SAFETY: NVML's functions are thread-safe (NVML's documentation: "all NVML functions are
// thread-safe"); the struct holds only the library and function pointers into it.
unsafe impl Send for Nvml {}
// SAFETY: as above.
unsafe impl Sync for Nvml {}

/// Where NVML is looked for: `CUDA_NODE_NVML_PATH`, then `libnvidia-ml.so.1` (what the driver
/// installs; `libnvidia-ml.so` is the toolkit's link-time stub, last), `nvml.dll` on Windows.
pub(crate) fn candidates() -> Vec<String> {
    dynlib::candidates("nvidia-ml", "CUDA_NODE_NVML_PATH", &["1"], &["nvml.dll"])
}

/// Resolves `name` in `lib`, as a `T` (a function pointer type).
///
/// # Safety
/// `T` must be the C signature NVML gives `name`.
unsafe fn sym<T: Copy>(lib: &Library, name: &[u8]) -> Option<T> {
    // SAFETY: the caller gives the symbol's true type; the pointer lives as long as `lib`, which
    // the `Nvml` holding it keeps.
    unsafe { lib.get::<T>(name).ok().map(|s| *s) }
}

fn bind(lib: Library) -> Option<Nvml> {
    // SAFETY: each type below is the signature nvml.h declares for the name.
    unsafe {
        let init: Fn0 = sym(&lib, b"nvmlInit_v2\0")?;
        if init() != 0 {
            return None;
        }
        Some(Nvml {
            error_string: sym(&lib, b"nvmlErrorString\0")?,
            driver_version: sym(&lib, b"nvmlSystemGetDriverVersion\0")?,
            by_uuid: sym(&lib, b"nvmlDeviceGetHandleByUUID\0")?,
            by_pci: sym(&lib, b"nvmlDeviceGetHandleByPciBusId_v2\0")?,
            name: sym(&lib, b"nvmlDeviceGetName\0")?,
            utilization: sym(&lib, b"nvmlDeviceGetUtilizationRates\0")?,
            memory: sym(&lib, b"nvmlDeviceGetMemoryInfo\0")?,
            temperature: sym(&lib, b"nvmlDeviceGetTemperature\0")?,
            power: sym(&lib, b"nvmlDeviceGetPowerUsage\0")?,
            power_limit: sym(&lib, b"nvmlDeviceGetEnforcedPowerLimit\0")?,
            clock: sym(&lib, b"nvmlDeviceGetClockInfo\0")?,
            pcie: sym(&lib, b"nvmlDeviceGetPcieThroughput\0")?,
            processes: sym(&lib, b"nvmlDeviceGetComputeRunningProcesses_v3\0"),
            field_values: sym(&lib, b"nvmlDeviceGetFieldValues\0"),
            _lib: lib,
        })
    }
}

static NVML: OnceLock<Result<Nvml, String>> = OnceLock::new();

/// NVML, loaded and initialised on first use; or every name tried, where none loaded and initialised.
pub(crate) fn nvml() -> Result<&'static Nvml, String> {
    NVML.get_or_init(|| dynlib::open_with(&candidates(), bind)).as_ref().map_err(Clone::clone)
}

fn ok(r: c_int) -> NvRaw<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(r)
    }
}

fn text(buf: &[c_char]) -> String {
    // SAFETY: NVML NUL-terminates what it writes within the length it is given; the buffer was
    // zeroed, so a NUL is there even if it wrote nothing.
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

impl Nvml {
    /// NVML's name for a code (`nvmlErrorString`).
    pub(crate) fn error_string(&self, code: c_int) -> String {
        // SAFETY: nvmlErrorString takes any code and returns a static string (or null).
        let p = unsafe { (self.error_string)(code) };
        if p.is_null() {
            return format!("NVML error {code}");
        }
        // SAFETY: a non-null result is a static NUL-terminated string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }

    pub(crate) fn driver_version(&self) -> NvRaw<String> {
        let mut buf = [0 as c_char; 96];
        // SAFETY: `buf` has the room we say (NVML asks for at least 80).
        ok(unsafe { (self.driver_version)(buf.as_mut_ptr(), buf.len() as c_uint) })?;
        Ok(text(&buf))
    }

    /// The handle of the device with `uuid` (`GPU-xxxxxxxx-…`, as CUDA's UUID is written for NVML).
    pub(crate) fn device_by_uuid(&self, uuid: &str) -> NvRaw<NvmlDevice> {
        let c = CString::new(uuid).map_err(|_| 2)?;
        let mut d: NvmlDevice = std::ptr::null_mut();
        // SAFETY: `c` is NUL-terminated; `d` is written on success.
        ok(unsafe { (self.by_uuid)(c.as_ptr(), &mut d) })?;
        Ok(d)
    }

    /// The handle of the device at PCI address `bus_id` (`domain:bus:device.function`).
    pub(crate) fn device_by_pci(&self, bus_id: &str) -> NvRaw<NvmlDevice> {
        let c = CString::new(bus_id).map_err(|_| 2)?;
        let mut d: NvmlDevice = std::ptr::null_mut();
        // SAFETY: `c` is NUL-terminated; `d` is written on success.
        ok(unsafe { (self.by_pci)(c.as_ptr(), &mut d) })?;
        Ok(d)
    }

    /// # Safety
    /// `d` is a handle `device_by_uuid` or `device_by_pci` returned (NVML's handles live as long as NVML).
    pub(crate) unsafe fn name(&self, d: NvmlDevice) -> NvRaw<String> {
        let mut buf = [0 as c_char; 96];
        // SAFETY: `d` is live (caller); `buf` has the room we say (NVML asks for 96).
        ok(unsafe { (self.name)(d, buf.as_mut_ptr(), buf.len() as c_uint) })?;
        Ok(text(&buf))
    }

    /// `(gpu, memory)` percent.
    ///
    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn utilization(&self, d: NvmlDevice) -> NvRaw<(u32, u32)> {
        let mut u = Utilization::default();
        // SAFETY: `d` is live (caller); `u` has nvmlUtilization_t's layout.
        ok(unsafe { (self.utilization)(d, &mut u) })?;
        Ok((u.gpu, u.memory))
    }

    /// `(used, total)` bytes.
    ///
    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn memory(&self, d: NvmlDevice) -> NvRaw<(u64, u64)> {
        let mut m = Memory::default();
        // SAFETY: `d` is live (caller); `m` has nvmlMemory_t's layout.
        ok(unsafe { (self.memory)(d, &mut m) })?;
        Ok((m.used, m.total))
    }

    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn temperature(&self, d: NvmlDevice) -> NvRaw<u32> {
        let mut v = 0;
        // SAFETY: `d` is live (caller); NVML writes one unsigned int.
        ok(unsafe { (self.temperature)(d, NVML_TEMPERATURE_GPU, &mut v) })?;
        Ok(v)
    }

    /// `(usage, enforced limit)` in milliwatts.
    ///
    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn power(&self, d: NvmlDevice) -> (NvRaw<u32>, NvRaw<u32>) {
        let (mut p, mut l) = (0, 0);
        // SAFETY: `d` is live (caller); NVML writes one unsigned int each.
        let usage = ok(unsafe { (self.power)(d, &mut p) }).map(|_| p);
        // SAFETY: as above.
        let limit = ok(unsafe { (self.power_limit)(d, &mut l) }).map(|_| l);
        (usage, limit)
    }

    /// The clock of `kind` (`CLOCK_SM`, `CLOCK_MEM`) in MHz.
    ///
    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn clock(&self, d: NvmlDevice, kind: c_int) -> NvRaw<u32> {
        let mut v = 0;
        // SAFETY: `d` is live (caller); NVML writes one unsigned int.
        ok(unsafe { (self.clock)(d, kind, &mut v) })?;
        Ok(v)
    }

    /// PCIe traffic in `dir` (`PCIE_TX`, `PCIE_RX`), KB/s over 20 ms.
    ///
    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn pcie(&self, d: NvmlDevice, dir: c_int) -> NvRaw<u32> {
        let mut v = 0;
        // SAFETY: `d` is live (caller); NVML writes one unsigned int.
        ok(unsafe { (self.pcie)(d, dir, &mut v) })?;
        Ok(v)
    }

    /// `(pid, used bytes)` of each process with a compute context on the device.
    ///
    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn processes(&self, d: NvmlDevice) -> NvRaw<Vec<(u32, u64)>> {
        let Some(f) = self.processes else { return Err(NOT_SUPPORTED) };
        // Processes come and go between the two calls: ask again while the room is short.
        let mut room: c_uint = 16;
        for _ in 0..4 {
            let mut buf = vec![ProcessInfo::default(); room as usize];
            let mut n = room;
            // SAFETY: `d` is live (caller); `buf` holds `n` nvmlProcessInfo_t, and NVML writes at
            // most `n` of them and the count.
            match unsafe { f(d, &mut n, buf.as_mut_ptr()) } {
                0 => return Ok(buf[..(n.min(room)) as usize].iter().map(|p| (p.pid, p.used_gpu_memory)).collect()),
                INSUFFICIENT_SIZE => room = n.max(room) * 2,
                code => return Err(code),
            }
        }
        Err(INSUFFICIENT_SIZE)
    }

    /// The `u64` value of field `id` (scope 0), or its code.
    ///
    /// # Safety
    /// As [`Nvml::name`].
    pub(crate) unsafe fn field_u64(&self, d: NvmlDevice, id: c_uint) -> NvRaw<u64> {
        let Some(f) = self.field_values else { return Err(NOT_SUPPORTED) };
        let mut v = FieldValue { field_id: id, ..Default::default() };
        // SAFETY: `d` is live (caller); `v` has nvmlFieldValue_t's layout and is one value.
        ok(unsafe { f(d, 1, &mut v) })?;
        ok(v.nvml_return)?;
        Ok(v.value)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn nvml_structs_have_the_header_layouts() {
        assert_eq!(std::mem::size_of::<super::ProcessInfo>(), 24);
        assert_eq!(std::mem::size_of::<super::FieldValue>(), 40);
        assert_eq!(std::mem::size_of::<super::Memory>(), 24);
    }
}
