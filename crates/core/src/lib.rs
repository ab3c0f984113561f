//! The CUDA model behind cuda-node, with no Node.js in it: devices, streams, events, memory and
//! graphs over one [`backend::Backend`] seam with two implementations, [`cuda`] (the real driver,
//! loaded at run time) and [`sim`] (a host simulator).

pub mod async_pool;
pub mod backend;
pub mod blas;
pub mod block;
pub mod c_allocator;
pub mod capture;
pub mod context;
pub mod copy2d;
#[cfg(not(target_family = "wasm"))]
pub mod cuda;
pub mod device;
pub mod driver_sys;
#[cfg(not(target_family = "wasm"))]
pub mod dynlib;
pub mod error;
pub mod event;
/// Bench code (`npm run bench`), never in the core users get: behind the `floor` feature.
#[cfg(all(feature = "floor", not(target_family = "wasm")))]
pub mod floor;
pub mod graph;
pub mod host;
pub mod host_cache;
pub mod memory;
pub mod module;
pub mod nccl;
pub mod nvjitlink;
pub mod nvrtc;
pub mod nvtx;
pub mod ops;
pub mod pinned;
pub mod pool;
#[cfg(not(target_family = "wasm"))]
pub mod pool_socket;
pub mod profiler;
pub mod rand;
pub mod reaper;
pub mod runtime;
pub mod shared_pool;
pub mod sim;
pub mod stream;
pub mod system;
pub mod teardown;
pub mod texture;
pub mod vmm;

pub use async_pool::AsyncMemoryPool;
pub use block::Block;
pub use capture::{CaptureMode, CaptureStatus};
pub use device::{DeviceProps, MemInfo};
pub use error::{Code, Error, Result};
pub use event::{elapsed_time, Event, EventFlags};
pub use graph::Graph;
pub use memory::DeviceMemory;
pub use ops::PoolPlace;
pub use ops::{HostFn, Pattern, StatusFn};
pub use pool::MemoryPool;
pub use runtime::{runtime, BackendInfo, BackendKind, Runtime};
pub use stream::{priority_range, Stream, StreamKind, UserStream};
pub use texture::{CudaArray, SurfaceObject, TextureObject};
pub use vmm::{Reservation, VirtualMemoryResource};

/// The driver errors that drops in the cuda backend could not return (a failed destroy, free,
/// unregister, close or unload), since the last call, oldest first; none on the simulator.
pub fn take_drop_errors() -> Vec<Error> {
    #[cfg(not(target_family = "wasm"))]
    return cuda::take_drop_errors();
    #[cfg(target_family = "wasm")]
    Vec::new()
}
pub use graph_builder::{Condition, GraphBuilder, NodeRef};
pub use ops::{CondKind, CondTest};
pub mod device_pool;
pub mod fft;
pub mod fft_multi;
pub mod graph_builder;
pub use event::MadeEvent;
