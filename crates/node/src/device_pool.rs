//! A device's current stream-ordered pool (CuPy's `runtime.deviceSetMemPool`, `deviceGetMemPool`).

use crate::async_pool;
use crate::raw::Count;
use cuda_node_core::{device_pool, runtime};

crate::exports! {
    /// Makes the AsyncMemoryPool `pool` (its handle) the current pool of `device`: a pool of ours
    /// is kept alive while it is current; the default pool's handle makes the default current again.
    c"devicePoolSet" => fn device_pool_set(_cx, device: f64, pool: f64) -> () {
        let device = runtime()?.ordinal(device)?;
        async_pool::with(pool, |p| p.make_current(device))
    }

    /// Whether `device`'s current pool is its default pool (else one of ours that `devicePoolSet` set).
    c"devicePoolIsDefault" => fn device_pool_is_default(_cx, device: f64) -> bool {
        Ok(device_pool::current(runtime()?.ordinal(device)?).is_none())
    }

    /// Trims the AsyncMemoryPool `pool` to `keep` bytes (`cuMemPoolTrimTo`).
    c"asyncPoolTrimTo" => fn async_pool_trim_to(_cx, pool: f64, keep: Count) -> () {
        async_pool::with(pool, |p| p.trim_to(keep.0))
    }
}
