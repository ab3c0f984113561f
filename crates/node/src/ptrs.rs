//! Device pointers cross into JS as numbers: a slot in this thread's table and a generation,
//! so that an allocation costs no JS object from native code, and a stale number (used after
//! free, freed twice) is told apart from a live one. The table owns the blocks; dropping a
//! block returns it to its pool or frees it.

use cuda_node_core::{Block, Code, Error, Result};
use std::cell::RefCell;
use std::sync::Arc;

struct Slot {
    generation: u32,
    block: Option<Arc<Block>>,
}

#[derive(Default)]
struct Table {
    slots: Vec<Slot>,
    vacant: Vec<u32>,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

const SLOT_BITS: f64 = 4_294_967_296.0; // 2^32

/// Stores a block; returns its handle (generation · 2^32 + slot, below 2^53).
pub fn insert(block: Block) -> f64 {
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        let index = match t.vacant.pop() {
            Some(i) => i,
            None => {
                t.slots.push(Slot { generation: 0, block: None });
                (t.slots.len() - 1) as u32
            }
        };
        let slot = &mut t.slots[index as usize];
        slot.block = Some(Arc::new(block));
        slot.generation as f64 * SLOT_BITS + index as f64
    })
}

fn split(handle: f64) -> Option<(u32, u32)> {
    if !(handle >= 0.0 && handle < 9_007_199_254_740_992.0 && handle.fract() == 0.0) {
        return None;
    }
    Some(((handle / SLOT_BITS) as u32, (handle % SLOT_BITS) as u32))
}

fn freed() -> Error {
    Error::cuda(Code::CUDA_ERROR_INVALID_VALUE, "this memory was freed: allocate a new one")
}

/// The live block behind `handle`.
pub fn get(handle: f64) -> Result<Arc<Block>> {
    let (generation, index) = split(handle).ok_or_else(freed)?;
    TABLE.with(|t| {
        let t = t.borrow();
        match t.slots.get(index as usize) {
            Some(Slot { generation: g, block: Some(b) }) if *g == generation => Ok(b.clone()),
            _ => Err(freed()),
        }
    })
}

/// Frees the block behind `handle`; a stale handle is `CUDA_ERROR_INVALID_VALUE`.
pub fn remove(handle: f64) -> Result<()> {
    let (generation, index) = split(handle).ok_or_else(freed)?;
    let block = TABLE.with(|t| {
        let mut t = t.borrow_mut();
        let slot = match t.slots.get_mut(index as usize) {
            Some(s) if s.generation == generation && s.block.is_some() => s,
            _ => return Err(freed()),
        };
        slot.generation = slot.generation.wrapping_add(1) & 0x1f_ffff;
        let block = slot.block.take();
        t.vacant.push(index);
        Ok(block)
    })?;
    // Dropped outside the table: returning to a pool or freeing may take time.
    drop(block);
    Ok(())
}

pub fn live() -> usize {
    TABLE.with(|t| t.borrow().slots.iter().filter(|s| s.block.is_some()).count())
}
