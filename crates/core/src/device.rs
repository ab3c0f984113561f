//! Devices above the seam: waiting for one, and checking an ordinal from JS. What a device is
//! (`DeviceProps`, `MemInfo`, `ATTRIBUTES`) is the seam's data, in `backend.rs`.

use crate::error::{Code, Error, Result};
use crate::runtime::Runtime;

// The seam's data (`backend.rs`), re-exported here where they were first defined.
pub use crate::backend::{DeviceProps, MemInfo, ATTRIBUTES};
pub use crate::ops::device::Limit;

/// How many devices the backend presents.
pub fn count() -> Result<usize> {
    Ok(crate::runtime()?.backend.devices().count())
}

/// A device's name, compute capability, memory and attributes.
pub fn props(ordinal: usize) -> Result<DeviceProps> {
    crate::runtime()?.backend.devices().props(ordinal)
}

/// Free and total memory of the device now (`cuMemGetInfo`).
pub fn mem_info(ordinal: usize) -> Result<MemInfo> {
    crate::runtime()?.backend.devices().mem_info(ordinal)
}

/// Waits for all work on the device, refusing while one of its streams captures (C6b).
pub fn synchronize(ordinal: usize) -> Result<()> {
    if crate::capture::active(ordinal) {
        return Err(Error::cuda(
            Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!("Device.synchronize() cannot run while a stream of device {ordinal} is capturing: it would invalidate the capture"),
        ));
    }
    crate::runtime()?.backend.devices().synchronize(ordinal)
}

/// The device's UUID as cuda.core writes it: `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
pub fn uuid(ordinal: usize) -> Result<String> {
    let b = crate::runtime()?.backend.devices().uuid(ordinal)?;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]))
}

/// The device's PCI bus id, `0000:19:00.0` (`cudaDeviceGetPCIBusId`).
pub fn pci_bus_id(ordinal: usize) -> Result<String> {
    crate::runtime()?.backend.devices().pci_bus_id(ordinal)
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
    for ordinal in 0..rt.backend.devices().count() {
        if parse_pci(&rt.backend.devices().pci_bus_id(ordinal)?) == Some(wanted) {
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
    crate::runtime()?.backend.devices().can_access_peer(device, peer)
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
    crate::runtime()?.backend.devices().set_peer_access(device, peer, true)
}

/// Stops `device` reaching `peer`'s memory. Disabling what is not enabled is nothing.
pub fn disable_peer_access(device: usize, peer: usize) -> Result<()> {
    peer_pair(device, peer)?;
    if !can_access_peer(device, peer)? {
        return Ok(());
    }
    crate::runtime()?.backend.devices().set_peer_access(device, peer, false)
}

/// A limit of the device's context (`cuCtxGetLimit`, CuPy's `runtime.deviceGetLimit`), by name.
/// An unknown name is a `TypeError` naming the known ones.
pub fn get_limit(ordinal: usize, name: &str) -> Result<u64> {
    let limit = Limit::parse(name)?;
    crate::runtime()?.backend.devices().get_limit(ordinal, limit)
}

/// Asks for a limit (`cuCtxSetLimit`, CuPy's `runtime.deviceSetLimit`); the device may round it
/// up or clamp it, and `get_limit` says what it chose. The documented ranges are checked here,
/// for both backends: `maxL2FetchGranularity` is a hint of 0 to 128 bytes, and
/// `persistingL2CacheSize` at most the device's `maxPersistingL2CacheSize`; past them, and where
/// the device refuses a value, `CUDA_ERROR_INVALID_VALUE`; a limit the device does not have,
/// `CUDA_ERROR_UNSUPPORTED_LIMIT`.
pub fn set_limit(ordinal: usize, name: &str, value: u64) -> Result<()> {
    let limit = Limit::parse(name)?;
    let rt = crate::runtime()?;
    let refuse = |why: String| Err(Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, format!("setLimit('{name}', {value}) refused: {why}")));
    match limit {
        Limit::MaxL2FetchGranularity if value > 128 => return refuse("the L2 fetch granularity is a hint from 0 to 128 bytes".into()),
        Limit::PersistingL2CacheSize => {
            let props = rt.backend.devices().props(ordinal)?;
            let max = props.attributes.iter().find(|(k, _)| *k == "maxPersistingL2CacheSize").map_or(0, |&(_, v)| v.max(0) as u64);
            if max == 0 && value > 0 {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_UNSUPPORTED_LIMIT,
                    format!("setLimit('{name}', {value}): device {ordinal} has no persisting L2 cache (compute capability 8.0 and later have one)"),
                ));
            }
            if value > max {
                return refuse(format!("device {ordinal} can set aside at most {max} bytes of L2 (its maxPersistingL2CacheSize)"));
            }
        }
        _ => {}
    }
    rt.backend.devices().set_limit(ordinal, limit, value).map_err(|e| match e {
        Error::Cuda { code, message } => Error::cuda(code, format!("setLimit('{name}', {value}): {message}")),
        other => other,
    })
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

impl Runtime {
    /// Checks a device id from JS and returns it as an ordinal. (Here, beside the rule, so
    /// that `runtime.rs` imports no model file.) Inlined into the binding's exports, as the
    /// checks on every creation are (the addon is built without cross-crate inlining).
    #[inline]
    pub fn ordinal(&self, id: f64) -> Result<usize> {
        check_ordinal(id, self.devices)
    }
}

/// Checks a device id from JS (already known to be a number) against the devices present.
/// Non-integers are a `RangeError`; integers that name no device are `CUDA_ERROR_INVALID_DEVICE`,
/// as `cudaSetDevice` reports them.
#[inline]
pub fn check_ordinal(id: f64, count: usize) -> Result<usize> {
    // The common case first, in integer steps (`fract` is a library call, on every creation).
    if id >= 0.0 && id < count as f64 && id as usize as f64 == id {
        return Ok(id as usize);
    }
    bad_ordinal(id, count)
}

/// The error for a device id that is not one of the `count` devices.
#[cold]
fn bad_ordinal(id: f64, count: usize) -> Result<usize> {
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
    fn limits_are_named_as_cupy_names_them() {
        for (name, limit) in Limit::NAMES {
            assert_eq!(Limit::parse(name), Ok(limit));
            assert_eq!(limit.name(), name);
        }
        let e = Limit::parse("stack_size").unwrap_err();
        assert!(matches!(&e, Error::Type(m) if m.contains("'stackSize'") && m.contains("'persistingL2CacheSize'")), "{e:?}");
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
