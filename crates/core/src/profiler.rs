//! `cuProfilerStart` / `cuProfilerStop` (CuPy's `cupy.cuda.profiler`); recorded on the simulator.

use crate::error::Result;
use crate::runtime;
use std::sync::atomic::{AtomicBool, Ordering};

static ACTIVE: AtomicBool = AtomicBool::new(false);

pub fn set(on: bool) -> Result<()> {
    runtime()?.backend.devices().profiler(on)?;
    ACTIVE.store(on, Ordering::Release);
    Ok(())
}

pub fn active() -> bool {
    ACTIVE.load(Ordering::Acquire)
}
