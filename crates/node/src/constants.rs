//! The numbers the TS layer checks arguments against and the layouts it packs, from the Rust
//! that enforces and reads them: one `constants()` export, typed in native.d.ts through its
//! `js_object!` like every other, read once when the package loads (`lib/native.ts`). A rule
//! written here is not written again in TS.

/// The head of a launch shape (`kernelLaunch` and the occupancy calls; `lib/kernel/launch.ts`
/// packs it, `kernel.rs` reads it): the index of each field, then each argument's size follows.
pub mod launch {
    /// Grid x, y, z.
    pub const GRID: usize = 0;
    /// Block x, y, z.
    pub const BLOCK: usize = 3;
    /// Dynamic shared memory bytes.
    pub const SHARED_MEM: usize = 6;
    /// How many arguments (sizes) follow the head.
    pub const ARGS: usize = 7;
    /// [`COOPERATIVE`] | [`PROGRAMMATIC`].
    pub const FLAGS: usize = 8;
    /// Cluster x, y, z (0s: none).
    pub const CLUSTER: usize = 9;
    /// How many numbers the head has.
    pub const HEAD: usize = 12;
    /// A cooperative launch (`cuLaunchCooperativeKernel`).
    pub const COOPERATIVE: u32 = 1;
    /// Programmatic dependent launch.
    pub const PROGRAMMATIC: u32 = 2;
}

/// What a pool's base allocator returns in place of a block's handle (`poolMallocFrom`; the TS
/// layer's `MemoryPool(allocator)` returns them).
pub mod allocator {
    /// Out of memory: the pool releases its cache and asks once more.
    pub const OUT_OF_MEMORY: f64 = -1.0;
    /// Anything else went wrong: the allocation fails (the TS layer rethrows what was thrown).
    pub const FAILED: f64 = -2.0;
}

crate::js_object! {
    /// What a pool's base allocator returns in place of a block's handle ([`allocator`]).
    pub struct AllocatorCodes {
        out_of_memory: f64 = c"outOfMemory",
        failed: f64 = c"failed",
    }
}

crate::js_object! {
    /// Where each field of a launch shape's head lies ([`launch`]).
    pub struct LaunchLayout {
        grid: u32 = c"grid",
        block: u32 = c"block",
        shared_mem: u32 = c"sharedMem",
        args: u32 = c"args",
        flags: u32 = c"flags",
        cluster: u32 = c"cluster",
        head: u32 = c"head",
        cooperative: u32 = c"cooperative",
        programmatic: u32 = c"programmatic",
    }
}

/// A list of names, indexed by their numbers, whose TypeScript type is the union of the names
/// (`Array<'sum' | 'prod' | …>`): the TS layer's types of them are these, not retyped.
macro_rules! names {
    ($(#[$m:meta])* $name:ident = $list:expr) => {
        $(#[$m])*
        pub struct $name;

        impl crate::raw::Ret for $name {
            fn ts() -> String {
                let names: Vec<String> = $list.iter().map(|n| format!("'{n}'")).collect();
                format!("Array<{}>", names.join(" | "))
            }
            fn write(self, env: napi::sys::napi_env) -> cuda_node_core::Result<napi::sys::napi_value> {
                <Vec<String> as crate::raw::Ret>::write($list.iter().map(|n| n.to_string()).collect(), env)
            }
        }
    };
}

use cuda_node_core::nccl::{Collective, DataType, RedOp};
use cuda_node_core::EventFlags;

names!(
    /// The calls `ncclCall` takes.
    NcclKinds = Collective::KINDS
);
names!(
    /// NCCL's element types, by CuPy's dtype names.
    NcclDTypes = DataType::NAMES
);
names!(
    /// NCCL's reductions.
    NcclOps = RedOp::NAMES
);

crate::js_object! {
    /// NCCL's numbers by name, each list indexed by the number: the calls `ncclCall` takes, the
    /// element types (CuPy's dtype names) and the reductions.
    pub struct NcclCodes {
        kinds: NcclKinds = c"kinds",
        dtypes: NcclDTypes = c"dtypes",
        ops: NcclOps = c"ops",
    }
}

crate::js_object! {
    /// `cuEventCreate`'s flags, which `eventCreate` takes combined.
    pub struct EventFlagBits {
        blocking_sync: u32 = c"blockingSync",
        disable_timing: u32 = c"disableTiming",
        interprocess: u32 = c"interprocess",
    }
}

crate::js_object! {
    /// Where each record of the memory history's sink lies, in f64 words (`history.rs`'s `layout`).
    pub struct HistorySinkLayout {
        alloc: u32 = c"alloc",
        free: u32 = c"free",
        pinned_alloc: u32 = c"pinnedAlloc",
        pinned_free: u32 = c"pinnedFree",
        log_on: u32 = c"logOn",
        log_n: u32 = c"logN",
        log_lost: u32 = c"logLost",
        log: u32 = c"log",
        record: u32 = c"record",
        log_cap: u32 = c"logCap",
        words: u32 = c"words",
    }
}

crate::js_object! {
    /// Where the default streams' handles lie (`cuda_node_core::stream::defaults`): device `d`'s
    /// default stream `code` (`legacy` or `perThread`, each below `perDevice`) is the handle
    /// `code + d * perDevice`, an entry the stream table keeps for as long as the thread lives.
    pub struct DefaultStreams {
        legacy: u32 = c"legacy",
        per_thread: u32 = c"perThread",
        per_device: u32 = c"perDevice",
    }
}

crate::js_object! {
    /// The limits and layouts the TS layer works with, as the addon enforces and reads them.
    pub struct Constants {
        max_count: f64 = c"maxCount",
        event: EventFlagBits = c"event",
        launch: LaunchLayout = c"launch",
        nccl: NcclCodes = c"nccl",
        allocator: AllocatorCodes = c"allocator",
        handle_slot_unit: f64 = c"handleSlotUnit",
        history_sink: HistorySinkLayout = c"historySink",
        stream: DefaultStreams = c"stream",
    }
}

crate::exports! {
    /// The limits and layouts the TS layer works with (read once): `maxCount`, the largest byte
    /// count, offset or element count; `event`, `eventCreate`'s flag bits; `launch`, the head of
    /// a launch shape; `nccl`, NCCL's numbers by name; `allocator`, what a pool's base allocator
    /// returns in place of a block; `handleSlotUnit`, what a slot adds to a handle; `stream`, the
    /// default streams' handles; `historySink`, where the memory history's records lie.
    c"constants" => fn constants(_cx) -> Constants {
        use launch::*;
        let launch = LaunchLayout {
            grid: GRID as u32,
            block: BLOCK as u32,
            shared_mem: SHARED_MEM as u32,
            args: ARGS as u32,
            flags: FLAGS as u32,
            cluster: CLUSTER as u32,
            head: HEAD as u32,
            cooperative: COOPERATIVE,
            programmatic: PROGRAMMATIC,
        };
        let nccl = NcclCodes { kinds: NcclKinds, dtypes: NcclDTypes, ops: NcclOps };
        let allocator = AllocatorCodes { out_of_memory: allocator::OUT_OF_MEMORY, failed: allocator::FAILED };
        let event = EventFlagBits { blocking_sync: EventFlags::BLOCKING_SYNC, disable_timing: EventFlags::DISABLE_TIMING, interprocess: EventFlags::INTERPROCESS };
        use cuda_node_core::stream::defaults::{LEGACY, PER_DEVICE, PER_THREAD};
        let stream = DefaultStreams { legacy: LEGACY as u32, per_thread: PER_THREAD as u32, per_device: PER_DEVICE as u32 };
        use crate::history::layout as sink;
        let history_sink = HistorySinkLayout {
            alloc: sink::ALLOC as u32,
            free: sink::FREE as u32,
            pinned_alloc: sink::PINNED_ALLOC as u32,
            pinned_free: sink::PINNED_FREE as u32,
            log_on: sink::LOG_ON as u32,
            log_n: sink::LOG_N as u32,
            log_lost: sink::LOG_LOST as u32,
            log: sink::LOG as u32,
            record: sink::RECORD as u32,
            log_cap: sink::LOG_CAP as u32,
            words: sink::WORDS as u32,
        };
        Ok(Constants { max_count: crate::raw::numbers::MAX_COUNT as f64, event, launch, nccl, allocator, handle_slot_unit: crate::handles::SLOT_UNIT, history_sink, stream })
    }
}
