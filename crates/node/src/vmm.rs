//! Virtual memory (cuda.core's `VirtualMemoryResource`): a reserved range of a device, each
//! allocation mapped into it and unmapped when freed.

use crate::memory;
use crate::raw::{Count, Owner};
use cuda_node_core::vmm::Access;
use cuda_node_core::{runtime, VirtualMemoryResource};
use std::sync::Arc;

crate::table!(VMMS: Arc<VirtualMemoryResource>, CUDA_ERROR_INVALID_HANDLE, "this VirtualMemoryResource was destroyed");

crate::exports! {
    /// Reserves `size` bytes of `device` (its memory when absent), rounded up to the
    /// granularity (`recommended`, else the minimum).
    c"vmmCreate" => fn vmm_create(cx, owner: Owner, device: f64, size: Option<Count>, recommended: bool) -> f64 {
        let device = runtime()?.ordinal(device)?;
        insert(cx, &owner, VirtualMemoryResource::create(device, size.map(|s| s.0), recommended)?)
    }

    /// `size` bytes mapped into the range; its memory handle (unmapped when freed).
    c"vmmMalloc" => fn vmm_malloc(_cx, vmm: f64, size: Count) -> f64 {
        memory::adopt(with(vmm, |v| v.malloc(size.0))?)
    }

    /// The bytes reserved.
    c"vmmReservedBytes" => fn vmm_reserved_bytes(_cx, vmm: f64) -> f64 {
        with(vmm, |v| Ok(v.reservation().size() as f64))
    }

    /// The bytes mapped now.
    c"vmmMappedBytes" => fn vmm_mapped_bytes(_cx, vmm: f64) -> f64 {
        with(vmm, |v| Ok(v.reservation().mapped_bytes() as f64))
    }

    /// The granularity allocations are mapped in.
    c"vmmGranularity" => fn vmm_granularity(_cx, vmm: f64) -> f64 {
        with(vmm, |v| Ok(v.reservation().granularity() as f64))
    }

    /// The range's first address.
    c"vmmBase" => fn vmm_base(_cx, vmm: f64) -> f64 {
        with(vmm, |v| Ok(v.reservation().base() as f64))
    }

    /// The range's device.
    c"vmmDevice" => fn vmm_device(_cx, vmm: f64) -> f64 {
        with(vmm, |v| Ok(v.reservation().device() as f64))
    }

    /// Lets `device` reach the memory, present and future: `'rw'`, `'r'` or `'none'`.
    c"vmmSetAccess" => fn vmm_set_access(_cx, vmm: f64, device: f64, access: String) -> () {
        let access = Access::parse(&access)?;
        let device = runtime()?.ordinal(device)?;
        with(vmm, |v| v.reservation().set_access(device, access))
    }

    /// No more allocations; the range is freed once the last one is (again: nothing).
    c"vmmDestroy" => fn vmm_destroy(_cx, vmm: f64) -> () {
        if let Ok(v) = take(vmm) {
            v.destroy();
        }
        Ok(())
    }
}
