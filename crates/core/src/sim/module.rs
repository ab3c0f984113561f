//! Modules on the simulator: it cannot load compiled code (a kernel runs on it only through a
//! host implementation, `simulate`), so loading one is the same error as launching one.

use super::stream::no_kernels;
use super::SimBackend;
use crate::error::Result;
use crate::ops::{ModuleOps, Modules};

impl Modules for SimBackend {
    fn load(&self, _ordinal: usize, _image: &[u8]) -> Result<Box<dyn ModuleOps>> {
        Err(no_kernels())
    }
}
