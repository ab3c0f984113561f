//! The host side: the driver runs queued work by itself, so there is nothing to pump
//! (`ops/host.rs`'s defaults).

use super::device::CudaBackend;
use crate::ops::host::Pump;

impl Pump for CudaBackend {}
