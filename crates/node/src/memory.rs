use crate::args::count;
use crate::errors::guard;
use crate::ptrs;
use crate::stream::NativeStream;
use cuda_node_core::{runtime, AsyncMemoryPool, Block, DeviceMemory, MemoryPool};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use crate::handles::{self, Owned, Table};
use std::cell::RefCell;
use std::sync::Arc;

/// A plain device allocation (`cudaMalloc`); returns its handle.
#[napi]
pub fn mem_alloc(env: Env, device: f64, size: f64) -> Result<f64> {
    guard(&env, || {
        let mem = DeviceMemory::alloc(runtime()?.ordinal(device)?, count("size", size)?)?;
        Ok(ptrs::insert(Block::whole(mem)))
    })
}

/// For the GC: frees a handle if it is still live, silently otherwise.
#[napi]
pub fn mem_collect(handle: f64) {
    let _ = ptrs::remove(handle);
}

#[napi(object)]
pub struct MemDesc {
    pub ptr: BigInt,
    pub size: f64,
    pub device: u32,
}

#[napi]
pub fn mem_desc(env: Env, handle: f64) -> Result<MemDesc> {
    guard(&env, || {
        let b = ptrs::get(handle)?;
        Ok(MemDesc { ptr: BigInt::from(b.ptr()), size: b.size() as f64, device: b.device() as u32 })
    })
}

/// Live handles on this thread (for leak checks).
#[napi]
pub fn mem_live() -> u32 {
    ptrs::live() as u32
}

thread_local! {
    static POOLS: RefCell<Table<Arc<MemoryPool>>> = RefCell::new(Table::default());
    static ASYNC_POOLS: RefCell<Table<Arc<AsyncMemoryPool>>> = RefCell::new(Table::default());
}

fn gone() -> cuda_node_core::Error {
    cuda_node_core::Error::cuda(cuda_node_core::Code::CUDA_ERROR_INVALID_HANDLE, "this pool is gone")
}

/// Runs `f` on the pool behind a handle (`NativePool.id`), for `fast.rs`.
pub(crate) fn with_pool<R>(id: f64, f: impl FnOnce(&MemoryPool) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
    handles::with(&POOLS, id, |p| f(p)).unwrap_or_else(|| Err(gone()))
}

/// Runs `f` on the stream-ordered pool behind a handle (`NativeAsyncPool.id`), for `fast.rs`.
pub(crate) fn with_async_pool<R>(id: f64, f: impl FnOnce(&AsyncMemoryPool) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
    handles::with(&ASYNC_POOLS, id, |p| f(p)).unwrap_or_else(|| Err(gone()))
}

/// One device's caching pool (the TS `MemoryPool` holds one per device). Its handle in this
/// thread's table is what the hot `poolMalloc` takes.
#[napi]
pub struct NativePool {
    pool: Arc<MemoryPool>,
    handle: Owned<Arc<MemoryPool>>,
}

#[napi]
impl NativePool {
    #[napi(constructor)]
    pub fn new(env: Env, device: f64) -> Result<NativePool> {
        guard(&env, || {
            let pool = MemoryPool::new(runtime()?.ordinal(device)?);
            Ok(NativePool { handle: Owned::new(&POOLS, pool.clone()), pool })
        })
    }

    #[napi(getter)]
    pub fn id(&self) -> f64 {
        self.handle.id()
    }


    #[napi]
    pub fn free_all_blocks(&self, env: Env, stream: Option<&NativeStream>) -> Result<()> {
        guard(&env, || {
            let s = stream.map(|s| s.get()).transpose()?;
            self.pool.free_all_blocks(s.as_deref());
            Ok(())
        })
    }

    #[napi]
    pub fn n_free_blocks(&self) -> u32 {
        self.pool.n_free_blocks() as u32
    }
    #[napi]
    pub fn used_bytes(&self) -> f64 {
        self.pool.used_bytes() as f64
    }
    #[napi]
    pub fn free_bytes(&self) -> f64 {
        self.pool.free_bytes() as f64
    }
    #[napi]
    pub fn total_bytes(&self) -> f64 {
        self.pool.total_bytes() as f64
    }
    #[napi]
    pub fn get_limit(&self) -> f64 {
        self.pool.limit() as f64
    }
    #[napi]
    pub fn set_limit(&self, env: Env, bytes: f64) -> Result<()> {
        guard(&env, || {
            self.pool.set_limit(count("limit", bytes)?);
            Ok(())
        })
    }
}

/// One device's stream-ordered pool (the TS `AsyncMemoryPool` holds one per device).
#[napi]
pub struct NativeAsyncPool {
    pool: Arc<AsyncMemoryPool>,
    handle: Owned<Arc<AsyncMemoryPool>>,
}

#[napi]
impl NativeAsyncPool {
    #[napi(constructor)]
    pub fn new(env: Env, device: f64) -> Result<NativeAsyncPool> {
        guard(&env, || {
            let pool = Arc::new(AsyncMemoryPool::new(runtime()?.ordinal(device)?));
            Ok(NativeAsyncPool { handle: Owned::new(&ASYNC_POOLS, pool.clone()), pool })
        })
    }

    #[napi(getter)]
    pub fn id(&self) -> f64 {
        self.handle.id()
    }


    #[napi]
    pub fn used_bytes(&self, env: Env) -> Result<f64> {
        guard(&env, || Ok(self.pool.used_bytes()? as f64))
    }

    #[napi]
    pub fn total_bytes(&self, env: Env) -> Result<f64> {
        guard(&env, || Ok(self.pool.total_bytes()? as f64))
    }

    #[napi]
    pub fn free_all_blocks(&self, env: Env) -> Result<()> {
        guard(&env, || self.pool.free_all_blocks())
    }
}
