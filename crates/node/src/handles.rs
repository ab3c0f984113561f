//! Native objects cross into JS as numbers: a slot in one of this thread's tables and a
//! generation, so that the hot calls (`fast.rs`) take plain numbers — no JS object to unwrap —
//! and a stale number (used after free or destroy) is told apart from a live one. A table owns
//! what it holds; removing an entry drops it.

use std::cell::RefCell;
use std::thread::LocalKey;

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

pub struct Table<T> {
    slots: Vec<Slot<T>>,
    vacant: Vec<u32>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table { slots: Vec::new(), vacant: Vec::new() }
    }
}

/// A table of this thread, declared with `thread_local!`.
pub type Local<T> = LocalKey<RefCell<Table<T>>>;

const GENERATIONS: u32 = 0x1f_ffff; // 21 bits: generation · 2^32 + slot stays below 2^53

fn split(handle: f64) -> Option<(u32, usize)> {
    // Integer arithmetic: `%` and `fract()` on f64 are library calls (fmod, trunc) that showed
    // in the profile of the hot calls, and so did the multi-instruction u64 <-> f64 conversions:
    // i64 converts in one instruction each way. NaN converts to 0, which differs from NaN.
    let h = handle as i64;
    if h as f64 != handle || !(0..1i64 << 53).contains(&h) {
        return None;
    }
    Some(((h >> 32) as u32, (h & 0xffff_ffff) as usize))
}

/// Stores `value`; returns its handle.
pub fn insert<T>(table: &'static Local<T>, value: T) -> f64 {
    table.with(|t| {
        let mut t = t.borrow_mut();
        let index = match t.vacant.pop() {
            Some(i) => i,
            None => {
                t.slots.push(Slot { generation: 0, value: None });
                (t.slots.len() - 1) as u32
            }
        };
        let slot = &mut t.slots[index as usize];
        slot.value = Some(value);
        (((slot.generation as u64) << 32) | index as u64) as f64
    })
}

/// A clone of the live value behind `handle`; `None` for a stale or malformed handle.
pub fn get<T: Clone>(table: &'static Local<T>, handle: f64) -> Option<T> {
    with(table, handle, T::clone)
}

/// Runs `f` on the live value behind `handle`, borrowed in place (no clone: the hot calls
/// showed an `Arc` clone and drop at ~15% of an idle synchronize). `f` must not insert into or
/// remove from the same table, nor call JS. `None` for a stale or malformed handle.
pub fn with<T, R>(table: &'static Local<T>, handle: f64, f: impl FnOnce(&T) -> R) -> Option<R> {
    let (generation, index) = split(handle)?;
    table.with(|t| match t.borrow().slots.get(index) {
        Some(Slot { generation: g, value: Some(v) }) if *g == generation => Some(f(v)),
        _ => None,
    })
}

/// Takes the value behind `handle` out of the table (the caller drops it, outside the table's
/// borrow: dropping may free device memory or destroy a stream). `None` for a stale handle, or
/// where the thread's tables are gone (a finalizer at thread exit).
pub fn remove<T>(table: &'static Local<T>, handle: f64) -> Option<T> {
    let (generation, index) = split(handle)?;
    table
        .try_with(|t| {
            let mut t = t.borrow_mut();
            let slot = t.slots.get_mut(index).filter(|s| s.generation == generation && s.value.is_some())?;
            slot.generation = slot.generation.wrapping_add(1) & GENERATIONS;
            let value = slot.value.take();
            t.vacant.push(index as u32);
            value
        })
        .ok()
        .flatten()
}

/// A value in one of this thread's tables, owned by a JS object (a napi class): its handle is
/// what the hot calls take, and dropping the owner (the GC) removes the value, as `remove`
/// (destroy) does sooner.
pub struct Owned<T: 'static> {
    table: &'static Local<T>,
    id: f64,
}

impl<T> Owned<T> {
    pub fn new(table: &'static Local<T>, value: T) -> Self {
        Owned { id: insert(table, value), table }
    }

    pub fn id(&self) -> f64 {
        self.id
    }

    /// Takes the value out now; later lookups of the handle find nothing.
    pub fn remove(&self) -> Option<T> {
        remove(self.table, self.id)
    }
}

impl<T: Clone> Owned<T> {
    pub fn get(&self) -> Option<T> {
        get(self.table, self.id)
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        drop(self.remove());
    }
}

/// Live entries of `table` on this thread.
pub fn live<T>(table: &'static Local<T>) -> usize {
    table.with(|t| t.borrow().slots.iter().filter(|s| s.value.is_some()).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static T: RefCell<Table<u32>> = RefCell::new(Table::default());
    }

    #[test]
    fn a_stale_handle_is_told_apart_from_the_live_one_in_its_slot() {
        let a = insert(&T, 1);
        assert_eq!(get(&T, a), Some(1));
        assert_eq!(remove(&T, a), Some(1));
        let b = insert(&T, 2); // same slot, next generation
        assert_ne!(a, b);
        assert_eq!(get(&T, a), None);
        assert_eq!(remove(&T, a), None);
        assert_eq!(get(&T, b), Some(2));
        assert_eq!(live(&T), 1);
        for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, 9_007_199_254_740_992.0, -9e18, 4294967296.5] {
            assert_eq!(get(&T, bad), None, "{bad}");
            assert_eq!(with(&T, bad, |v| *v), None, "{bad}");
        }
        assert_eq!(with(&T, b, |v| *v + 1), Some(3));
        assert_eq!(with(&T, a, |v| *v), None);
    }
}
