//! A device's current stream-ordered pool (CUDA's `cuDeviceSetMemPool`, CuPy's
//! `runtime.deviceGetMemPool`/`deviceSetMemPool`/`deviceGetDefaultMemPool`): the device's default
//! pool, or a pool of ours made for the device, which is kept alive while it is current. While
//! one of ours is current, `cuMemAllocAsync` takes from it; the default pool's own
//! `AsyncMemoryPool` then allocates from the default pool by name (`cuMemAllocFromPoolAsync`), so
//! that its allocations and its counts stay the default pool's.

use crate::error::{Code, Error, Result};
use crate::memory::DeviceMemory;
use crate::ops::PoolPlace;
use crate::runtime;
use crate::shared_pool::SharedPool;
use crate::stream::Stream;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The pool of ours current on each device where one is (absent: the default pool).
fn table() -> std::sync::MutexGuard<'static, HashMap<usize, Arc<SharedPool>>> {
    static T: OnceLock<Mutex<HashMap<usize, Arc<SharedPool>>>> = OnceLock::new();
    T.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner())
}

/// Set once a pool of ours has been made current anywhere: until then an allocation of the
/// default pool reads no table.
static EVER: AtomicBool = AtomicBool::new(false);

/// Makes `pool` the current pool of `device`: one of ours (made for `device`, its memory there;
/// `AsyncMemoryPool::make_current` checks the device), kept alive until another is set; `None`:
/// the device's default pool again.
pub(crate) fn set_current(device: usize, pool: Option<&Arc<SharedPool>>) -> Result<()> {
    let backend = &runtime()?.backend;
    let mut t = table();
    match pool {
        None => {
            if t.contains_key(&device) {
                backend.device_pools().set_current_pool(device, None)?;
                t.remove(&device);
            }
        }
        Some(shared) => {
            if shared.is_imported() {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_INVALID_VALUE,
                    "an imported pool only imports another process's allocations: it cannot serve a device's",
                ));
            }
            let (ops, place) = shared.ops()?;
            if place != PoolPlace::Device {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_INVALID_VALUE,
                    "a pool of host memory cannot be a device's pool: make it with location 'device'",
                ));
            }
            backend.device_pools().set_current_pool(device, Some(ops.as_ref()))?;
            EVER.store(true, Ordering::Release);
            t.insert(device, shared.clone());
        }
    }
    Ok(())
}

/// The pool of ours current on `device`, or `None` where the default pool is.
pub fn current(device: usize) -> Option<Arc<SharedPool>> {
    if !EVER.load(Ordering::Acquire) {
        return None;
    }
    table().get(&device).cloned()
}

/// Whether a pool of ours is current on `device` (the default pool's allocations then go by name).
pub(crate) fn replaced(device: usize) -> bool {
    EVER.load(Ordering::Acquire) && table().contains_key(&device)
}

/// `size` bytes of `device`'s default pool on `stream`, while another pool is current.
pub(crate) fn alloc_from_default(device: usize, size: u64, stream: &Arc<Stream>) -> Result<DeviceMemory> {
    if stream.device() != device {
        return Err(Error::cuda(
            Code::CUDA_ERROR_INVALID_VALUE,
            format!("the stream-ordered pool of device {device} cannot allocate on a stream of device {}", stream.device()),
        ));
    }
    stream.legacy_ok("an AsyncMemoryPool allocation")?;
    let capturing = stream.is_capturing()?;
    let ops = runtime()?.backend.device_pools().alloc_from_default(device, size, stream.ops()?)?;
    Ok(DeviceMemory::from_ops(ops, device, size).made_in_capture(capturing))
}
