//! The CUDA model behind cuda-node, with no Node.js in it: devices, streams, events, memory and
//! graphs over one [`backend::Backend`] seam with two implementations, [`cuda`] (the real driver,
//! loaded at run time) and [`sim`] (a host simulator).

pub mod backend;
pub mod cuda;
pub mod device;
pub mod error;
pub mod sim;

pub use backend::{runtime, BackendInfo, BackendKind, Runtime};
pub use device::{DeviceProps, MemInfo};
pub use error::{Code, Error, Result};
