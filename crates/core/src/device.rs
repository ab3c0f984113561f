//! What a device is, as both backends describe it: properties, attributes, memory figures.

use crate::error::{Code, Error, Result};

/// The fixed facts about one device (CuPy's `Device` properties and `attributes`).
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceProps {
    pub name: String,
    pub cc_major: i32,
    pub cc_minor: i32,
    pub total_memory: u64,
    /// `(camelCaseName, value)` in the order of [`ATTRIBUTES`].
    pub attributes: Vec<(&'static str, i64)>,
}

/// `{ free, total }` in bytes, as `cuMemGetInfo` reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemInfo {
    pub free: u64,
    pub total: u64,
}

use cudarc::driver::sys::CUdevice_attribute as A;

/// The attributes a `Device` reports, by the camelCase form of the driver's name.
pub const ATTRIBUTES: &[(&str, A)] = &[
    ("multiProcessorCount", A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
    ("maxThreadsPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
    ("maxBlockDimX", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X),
    ("maxBlockDimY", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y),
    ("maxBlockDimZ", A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z),
    ("maxGridDimX", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X),
    ("maxGridDimY", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y),
    ("maxGridDimZ", A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z),
    ("warpSize", A::CU_DEVICE_ATTRIBUTE_WARP_SIZE),
    ("maxSharedMemoryPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK),
    ("maxSharedMemoryPerBlockOptin", A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    ("maxSharedMemoryPerMultiprocessor", A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    ("maxRegistersPerBlock", A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK),
    ("maxThreadsPerMultiProcessor", A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
    ("totalConstantMemory", A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY),
    ("clockRate", A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
    ("memoryClockRate", A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
    ("globalMemoryBusWidth", A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
    ("l2CacheSize", A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
    ("computeCapabilityMajor", A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
    ("computeCapabilityMinor", A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
    ("integrated", A::CU_DEVICE_ATTRIBUTE_INTEGRATED),
    ("canMapHostMemory", A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY),
    ("concurrentKernels", A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS),
    ("asyncEngineCount", A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT),
    ("unifiedAddressing", A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING),
    ("managedMemory", A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY),
    ("concurrentManagedAccess", A::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS),
    ("pciBusId", A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
    ("pciDeviceId", A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
    ("pciDomainId", A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
    ("eccEnabled", A::CU_DEVICE_ATTRIBUTE_ECC_ENABLED),
    ("computeMode", A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE),
    ("kernelExecTimeout", A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT),
    ("streamPrioritiesSupported", A::CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED),
    ("cooperativeLaunch", A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH),
    ("memoryPoolsSupported", A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED),
];

/// Waits for all work on the device, refusing while one of its streams captures (C6b).
pub fn synchronize(ordinal: usize) -> Result<()> {
    if crate::capture::active(ordinal) {
        return Err(Error::cuda(
            Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!("Device.synchronize() cannot run while a stream of device {ordinal} is capturing: it would invalidate the capture"),
        ));
    }
    crate::runtime()?.backend.synchronize_device(ordinal)
}

/// The device's UUID as cuda.core writes it: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
pub fn uuid(ordinal: usize) -> Result<String> {
    let b = crate::runtime()?.backend.uuid(ordinal)?;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]))
}

/// The device's PCI bus id, `0000:19:00.0` (`cudaDeviceGetPCIBusId`).
pub fn pci_bus_id(ordinal: usize) -> Result<String> {
    crate::runtime()?.backend.pci_bus_id(ordinal)
}

/// `(domain, bus, device, function)` of a PCI bus id in any of the forms `cudaDeviceGetByPCIBusId`
/// takes: `domain:bus:device.function`, `domain:bus:device`, `bus:device.function`.
fn parse_pci(id: &str) -> Option<(u32, u32, u32, u32)> {
    let hex = |s: &str| (!s.is_empty() && s.len() <= 8).then(|| u32::from_str_radix(s, 16).ok()).flatten();
    let (head, function) = match id.trim().rsplit_once('.') {
        Some((h, f)) => (h, Some(hex(f)?)),
        None => (id.trim(), None),
    };
    let parts: Vec<&str> = head.split(':').collect();
    match (parts.as_slice(), function) {
        ([d, b, v], f) => Some((hex(d)?, hex(b)?, hex(v)?, f.unwrap_or(0))),
        ([b, v], Some(f)) => Some((0, hex(b)?, hex(v)?, f)),
        _ => None,
    }
}

/// The device at a PCI bus id (`cudaDeviceGetByPCIBusId`, CuPy's `Device.from_pci_bus_id`).
/// A malformed id is `CUDA_ERROR_INVALID_VALUE`; one that names no device here, `CUDA_ERROR_INVALID_DEVICE`.
pub fn from_pci_bus_id(id: &str) -> Result<usize> {
    let Some(wanted) = parse_pci(id) else {
        return Err(Error::cuda(
            Code::CUDA_ERROR_INVALID_VALUE,
            format!("'{id}' is not a PCI bus id: write it as domain:bus:device.function in hex, as '0000:19:00.0'"),
        ));
    };
    let rt = crate::runtime()?;
    for ordinal in 0..rt.backend.device_count() {
        if parse_pci(&rt.backend.pci_bus_id(ordinal)?) == Some(wanted) {
            return Ok(ordinal);
        }
    }
    Err(Error::cuda(Code::CUDA_ERROR_INVALID_DEVICE, format!("no device at PCI bus id '{id}'")))
}

/// Whether `device` can reach `peer`'s memory directly. A device is not its own peer (the
/// driver says 0 for the same device).
pub fn can_access_peer(device: usize, peer: usize) -> Result<bool> {
    if device == peer {
        return Ok(false);
    }
    crate::runtime()?.backend.can_access_peer(device, peer)
}

/// Lets `device` reach `peer`'s memory (`cudaDeviceEnablePeerAccess`, CuPy's
/// `Device.enable_peer_access`). Enabling twice is nothing; a device is not its own peer
/// (`CUDA_ERROR_INVALID_DEVICE`); a pair the topology does not allow is `CUDA_ERROR_PEER_ACCESS_UNSUPPORTED`.
pub fn enable_peer_access(device: usize, peer: usize) -> Result<()> {
    peer_pair(device, peer)?;
    if !can_access_peer(device, peer)? {
        return Err(Error::cuda(
            Code::CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
            format!("device {device} cannot access device {peer}'s memory directly (canAccessPeer is false); copies between them still work, staged by the driver"),
        ));
    }
    crate::runtime()?.backend.set_peer_access(device, peer, true)
}

/// Stops `device` reaching `peer`'s memory. Disabling what is not enabled is nothing.
pub fn disable_peer_access(device: usize, peer: usize) -> Result<()> {
    peer_pair(device, peer)?;
    if !can_access_peer(device, peer)? {
        return Ok(());
    }
    crate::runtime()?.backend.set_peer_access(device, peer, false)
}

fn peer_pair(device: usize, peer: usize) -> Result<()> {
    if device == peer {
        return Err(Error::cuda(
            Code::CUDA_ERROR_INVALID_DEVICE,
            format!("device {device} is not its own peer: peer access is between two devices"),
        ));
    }
    Ok(())
}

/// Checks a device id from JS (already known to be a number) against the devices present.
/// Non-integers are a `RangeError`; integers that name no device are `CUDA_ERROR_INVALID_DEVICE`,
/// as `cudaSetDevice` reports them.
pub fn check_ordinal(id: f64, count: usize) -> Result<usize> {
    if !id.is_finite() || id.fract() != 0.0 {
        return Err(Error::range(format!("device id must be an integer, got {id}")));
    }
    if id < 0.0 || id >= count as f64 {
        let range = match count {
            0 => "there are no devices".to_string(),
            1 => "the only device is 0".to_string(),
            n => format!("devices are 0 to {}", n - 1),
        };
        return Err(Error::cuda(Code::CUDA_ERROR_INVALID_DEVICE, format!("no device {id}: {range}")));
    }
    Ok(id as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_are_checked() {
        assert_eq!(check_ordinal(0.0, 1), Ok(0));
        assert_eq!(check_ordinal(1.0, 2), Ok(1));
        for bad in [1.5, f64::NAN, f64::INFINITY] {
            assert!(matches!(check_ordinal(bad, 2), Err(Error::Range(_))), "{bad}");
        }
        for bad in [-1.0, 2.0, 2f64.powi(40)] {
            assert!(check_ordinal(bad, 2).unwrap_err().is_code(Code::CUDA_ERROR_INVALID_DEVICE), "{bad}");
        }
    }

    #[test]
    fn pci_bus_ids_parse_in_the_drivers_forms() {
        assert_eq!(parse_pci("0000:19:00.0"), Some((0, 0x19, 0, 0)));
        assert_eq!(parse_pci("0000:1A:00"), Some((0, 0x1a, 0, 0)));
        assert_eq!(parse_pci("1a:00.1"), Some((0, 0x1a, 0, 1)));
        for bad in ["", "19", "zz:00.0", "0000:19:00.x", "1:2:3:4"] {
            assert_eq!(parse_pci(bad), None, "{bad}");
        }
    }
}
