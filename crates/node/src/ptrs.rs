//! Device pointers cross into JS as handles (`handles.rs`), so that an allocation costs no JS
//! object from native code. The table owns the blocks; removing one returns it to its pool or
//! frees it.

use crate::handles::{self, Table};
use cuda_node_core::{Block, Code, Error, Result};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static BLOCKS: RefCell<Table<Arc<Block>>> = RefCell::new(Table::default());
}

fn freed() -> Error {
    Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "this memory was freed: allocate a new one")
}

/// Stores a block; returns its handle.
pub fn insert(block: Block) -> f64 {
    handles::insert(&BLOCKS, Arc::new(block))
}

/// The live block behind `handle`.
pub fn get(handle: f64) -> Result<Arc<Block>> {
    handles::get(&BLOCKS, handle).ok_or_else(freed)
}

/// Frees the block behind `handle`; a stale handle is `CUDA_ERROR_INVALID_VALUE`.
pub fn remove(handle: f64) -> Result<()> {
    // Dropped outside the table: returning to a pool or freeing may take time.
    drop(handles::remove(&BLOCKS, handle).ok_or_else(freed)?);
    Ok(())
}

pub fn live() -> usize {
    handles::live(&BLOCKS)
}
