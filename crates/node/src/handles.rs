//! The one shape every native object has in JS: a number, a slot in one of this thread's tables
//! and that slot's generation. The table owns the object; removing the entry (destroy, free, or
//! the GC of its JS owner through [`own`]) drops it. Numbers keep the hot calls free of object
//! unwrapping, and a stale number — used after destroy or free — finds nothing, so it is a typed
//! error, never another object: a handle is never issued twice (a slot whose generations run out
//! is retired, not reused). Slot 0 is never issued: its generations name a kind's fixed entries
//! ([`Fixed`]), which the table makes at their first lookup and keeps for as long as the thread
//! lives — the stream table's are the default streams, laid out by the core
//! (`cuda_node_core::stream::defaults`).

use crate::raw::{Cx, Owner};
use cuda_node_core::Result;
use napi::sys;
use std::cell::{OnceCell, RefCell};
use std::thread::LocalKey;

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// A kind's fixed entries: handles 0 to `count() - 1` (slot 0, by generation), each made by
/// `make` at its first lookup, never removed but by [`drain`] (the thread's end). A lookup needs
/// only the table's shared borrow to make one, so a call that holds the table (a simulated
/// kernel's host implementation inside a synchronize) may still make its first use of one.
/// Where one cannot be made (no backend: `count` and `make` say so with 0 and `None`), its
/// handle names nothing, and the table's `missing()` says why.
pub struct Fixed<T> {
    /// How many there are, asked at the first lookup of one.
    pub count: fn() -> usize,
    /// Makes entry `i`.
    pub make: fn(usize) -> Option<T>,
}

pub struct Table<T> {
    slots: Vec<Slot<T>>,
    vacant: Vec<u32>,
    fixed: Option<Fixed<T>>,
    /// The fixed entries, sized by `fixed.count` at the first lookup of one.
    made: OnceCell<Box<[OnceCell<T>]>>,
}

impl<T> Table<T> {
    /// Empty; `const` so that a table's `thread_local!` needs no lazy initialisation, which every
    /// lookup would check.
    pub const fn new() -> Self {
        Table { slots: Vec::new(), vacant: Vec::new(), fixed: None, made: OnceCell::new() }
    }

    /// Empty, with the fixed entries `fixed` lays out.
    pub const fn with_fixed(fixed: Fixed<T>) -> Self {
        Table { slots: Vec::new(), vacant: Vec::new(), fixed: Some(fixed), made: OnceCell::new() }
    }

    /// Fixed entry `i`, made at its first lookup; `None` for a table without fixed entries, past
    /// their count, or one that cannot be made. Out of line: every lookup's call site has this
    /// branch (inlined, it made the addon ~30 KB larger).
    #[inline(never)]
    fn fixed_entry(&self, i: u32) -> Option<&T> {
        match self.made.get().and_then(|made| made.get(i as usize)?.get()) {
            Some(v) => Some(v),
            None => self.make_fixed(i),
        }
    }

    #[cold]
    fn make_fixed(&self, i: u32) -> Option<&T> {
        let fixed = self.fixed.as_ref()?;
        let made = self.made.get_or_init(|| (0..(fixed.count)()).map(|_| OnceCell::new()).collect());
        let cell = made.get(i as usize)?;
        if cell.get().is_none() {
            let _ = cell.set((fixed.make)(i as usize)?);
        }
        cell.get()
    }
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table::new()
    }
}

/// What a table's `get` hands out for an entry: a hold of its own on the object, for work that
/// outlives the call (an async wait, a graph node). For most kinds the entry is an `Arc` and the
/// hold a clone of it; a stream's entry is its user's hold (`UserStream`), and the hold the stream.
pub trait Share {
    type Hold;
    fn share(&self) -> Self::Hold;
}

impl<T: ?Sized> Share for std::sync::Arc<T> {
    type Hold = std::sync::Arc<T>;
    fn share(&self) -> Self::Hold {
        self.clone()
    }
}

impl<T: ?Sized> Share for std::rc::Rc<T> {
    type Hold = std::rc::Rc<T>;
    fn share(&self) -> Self::Hold {
        self.clone()
    }
}

/// A table of this thread, declared with `thread_local!` (or [`table!`]).
pub type Local<T> = LocalKey<RefCell<Table<T>>>;

/// A handle is slot · 2^21 + generation: 21 bits of generation, so that with a slot's 32 bits it
/// stays below 2^53, an exact JS number. The generation is the low part so that the handles of
/// the first 512 slots are small integers, which V8 holds unboxed (a Smi, below 2^30): a handle
/// returned or kept in a field allocates nothing, however often its slot was reused (with the
/// generation high, every reused slot's handle was a heap number, one allocation per creation).
const GENERATION_BITS: u32 = 21;
/// What one slot adds to a handle (2^21): a handle's slot is `floor(handle / SLOT_UNIT)`, as the
/// TS layer's tables indexed by slot read it (`constants.handleSlotUnit`).
pub const SLOT_UNIT: f64 = (1u64 << GENERATION_BITS) as f64;
const LAST_GENERATION: u32 = (1 << GENERATION_BITS) - 1;

fn join(index: u32, generation: u32) -> f64 {
    (((index as u64) << GENERATION_BITS) | generation as u64) as f64
}

fn split(handle: f64) -> Option<(u32, usize)> {
    // Integer arithmetic: `%` and `fract()` on f64 are library calls (fmod, trunc) that showed
    // in the profile of the hot calls, and so did the multi-instruction u64 <-> f64 conversions:
    // i64 converts in one instruction each way. NaN converts to 0, which differs from NaN.
    let h = handle as i64;
    if h as f64 != handle || !(0..1i64 << 53).contains(&h) {
        return None;
    }
    Some(((h & LAST_GENERATION as i64) as u32, (h >> GENERATION_BITS) as usize))
}

/// The error where [`insert`] finds the table held.
pub fn held() -> cuda_node_core::Error {
    cuda_node_core::Error::cuda(
        cuda_node_core::Code::CUDA_ERROR_NOT_PERMITTED,
        "nothing of this kind can be made while a call on this thread holds its kind (a simulated kernel's host implementation, run inside a synchronize or a copy): make it before that call",
    )
}

/// Stores `value`; returns its handle. `None` (the value dropped) where a call in progress on
/// this thread holds the table: a simulated kernel's host implementation, which a synchronize on
/// this thread runs while it holds the table, making an object of the kind being synchronized.
pub fn insert<T>(table: &'static Local<T>, value: T) -> Option<f64> {
    table.with(|t| {
        let Ok(mut t) = t.try_borrow_mut() else {
            drop(value);
            return None;
        };
        let index = match t.vacant.pop() {
            Some(i) => i,
            None => {
                if t.slots.is_empty() {
                    // Slot 0 is the fixed entries': never issued (retired from the start).
                    t.slots.push(Slot { generation: u32::MAX, value: None });
                }
                t.slots.push(Slot { generation: 0, value: None });
                (t.slots.len() - 1) as u32
            }
        };
        let slot = &mut t.slots[index as usize];
        slot.value = Some(value);
        Some(join(index, slot.generation))
    })
}

/// Runs `f` on the live value behind `handle`, borrowed in place (no clone: the hot calls
/// showed an `Arc` clone and drop at ~15% of an idle synchronize). `f` must not insert into or
/// remove from the same table, nor call JS. `None` for a stale or malformed handle; a fixed
/// entry is made at its first lookup.
pub fn with<T, R>(table: &'static Local<T>, handle: f64, f: impl FnOnce(&T) -> R) -> Option<R> {
    let (generation, index) = split(handle)?;
    table.with(|t| {
        let t = t.borrow();
        // Every call site instantiates this: `f` is called in one place (twice, inlined, made
        // the addon ~100 KB larger). Slot 0 never matches (retired): a fixed entry is looked up
        // where a lookup misses, which leaves every other handle's hit as it was.
        let v = match t.slots.get(index) {
            Some(Slot { generation: g, value: Some(v) }) if *g == generation => v,
            _ if index == 0 => t.fixed_entry(generation)?,
            _ => return None,
        };
        Some(f(v))
    })
}

/// Takes the value behind `handle` out of the table (the caller drops it, outside the table's
/// borrow: dropping may free device memory or destroy a stream). `None` for a stale handle, or
/// where the thread's tables are gone (a finalizer at thread exit), or held ([`take`]).
pub fn remove<T>(table: &'static Local<T>, handle: f64) -> Option<T> {
    take(table, handle).ok().flatten()
}

/// The error where [`take`] finds the table held: destroying an object of the kind a call in
/// progress on this thread holds (a simulated kernel's host implementation, run inside a
/// synchronize of a stream, destroying a stream).
pub fn held_for_removal() -> cuda_node_core::Error {
    cuda_node_core::Error::cuda(
        cuda_node_core::Code::CUDA_ERROR_NOT_PERMITTED,
        "nothing of this kind can be destroyed while a call on this thread holds its kind (a simulated kernel's host implementation, run inside a synchronize or a copy): destroy it after that call",
    )
}

/// [`remove`], telling a table held by a call in progress (`Err`) from a stale handle (`Ok(None)`).
pub fn take<T>(table: &'static Local<T>, handle: f64) -> std::result::Result<Option<T>, cuda_node_core::Error> {
    take_checked(table, handle, |_| Ok(()))
}

/// [`take`] where `check` lets the value go (its error otherwise, the value left in place), in
/// one lookup. A fixed entry is never taken: its `check` still runs (its refusal says why).
pub fn take_checked<T>(table: &'static Local<T>, handle: f64, check: impl FnOnce(&T) -> Result<()>) -> Result<Option<T>> {
    let Some((generation, index)) = split(handle) else { return Ok(None) };
    table
        .try_with(|t| {
            let Ok(mut t) = t.try_borrow_mut() else { return Err(held_for_removal()) };
            if index == 0 {
                return t.fixed_entry(generation).map_or(Ok(None), |v| check(v).map(|()| None));
            }
            let Some(slot) = t.slots.get_mut(index).filter(|s| s.generation == generation) else { return Ok(None) };
            let Some(v) = &slot.value else { return Ok(None) };
            check(v)?;
            let value = slot.value.take();
            if slot.generation == LAST_GENERATION {
                // Retired: reusing the slot would make an old handle name a new object.
                slot.generation = u32::MAX;
            } else {
                slot.generation += 1;
                t.vacant.push(index as u32);
            }
            Ok(value)
        })
        .unwrap_or(Ok(None))
}

/// Takes every live value out of `table` on this thread (their handles go stale; a fixed entry's
/// is made anew at its next lookup), for the caller to drop: what the finalizers would do, in an
/// order the caller chooses (`teardown.rs`).
pub fn drain<T>(table: &'static Local<T>) -> Vec<T> {
    table
        .try_with(|t| {
            let mut t = t.borrow_mut();
            let mut out: Vec<T> = t.made.take().map(|made| made.into_vec().into_iter().filter_map(OnceCell::into_inner).collect()).unwrap_or_default();
            let mut freed = Vec::new();
            for (index, slot) in t.slots.iter_mut().enumerate() {
                if let Some(v) = slot.value.take() {
                    out.push(v);
                    if slot.generation == LAST_GENERATION {
                        slot.generation = u32::MAX;
                    } else {
                        slot.generation += 1;
                        freed.push(index as u32);
                    }
                }
            }
            t.vacant.extend(freed);
            out
        })
        .unwrap_or_default()
}

/// Live entries of `table` on this thread.
pub fn live<T>(table: &'static Local<T>) -> usize {
    live_where(table, |_| true)
}

/// Live entries of `table` on this thread that `f` counts.
pub fn live_where<T>(table: &'static Local<T>, f: impl Fn(&T) -> bool) -> usize {
    table
        .try_with(|t| {
            let t = t.borrow();
            let fixed = t.made.get().map_or(0, |made| made.iter().filter(|c| c.get().is_some_and(&f)).count());
            fixed + t.slots.iter().filter(|s| s.value.as_ref().is_some_and(&f)).count()
        })
        .unwrap_or(0)
}

/// A handle as a finalizer's data pointer: its bits where a pointer holds 64 of them, else
/// boxed (wasm32's pointers have 32 bits: truncated, a handle would name another slot).
fn pack(handle: f64) -> *mut std::ffi::c_void {
    #[cfg(target_pointer_width = "64")]
    return handle.to_bits() as usize as *mut std::ffi::c_void;
    #[cfg(not(target_pointer_width = "64"))]
    return Box::into_raw(Box::new(handle)).cast();
}

/// The handle `pack` made `data` of.
///
/// # Safety
/// `data` comes from `pack`, and is unpacked once.
unsafe fn unpack(data: *mut std::ffi::c_void) -> f64 {
    #[cfg(target_pointer_width = "64")]
    return f64::from_bits(data as usize as u64);
    // SAFETY: `pack` boxed it; this is its one release.
    #[cfg(not(target_pointer_width = "64"))]
    return *unsafe { Box::from_raw(data.cast::<f64>()) };
}

/// Releases `handle` from `table` when `owner` is collected (the GC backstop; `destroy()` or
/// `free()` release it sooner, and the finalizer then finds nothing).
pub fn own<T: 'static>(cx: &Cx, owner: &Owner, table: &'static Local<T>, handle: f64) -> Result<()> {
    unsafe extern "C" fn finalize<T: 'static>(_env: sys::napi_env, data: *mut std::ffi::c_void, hint: *mut std::ffi::c_void) {
        // SAFETY: `hint` is the `&'static Local<T>` given to napi_add_finalizer below.
        let table = unsafe { &*(hint as *const Local<T>) };
        // SAFETY: `data` is what `own` made of the handle, given back once.
        let handle = unsafe { unpack(data) };
        // A panic must not unwind into the GC.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(remove(table, handle))));
    }
    let status = {
        // SAFETY: `owner` is an object of this call; data and hint are plain values read back by
        // `finalize`, which Node-API runs once, on this thread, when the owner is collected.
        unsafe {
            sys::napi_add_finalizer(
                cx.env,
                owner.0,
                pack(handle),
                Some(finalize::<T>),
                table as *const Local<T> as *mut std::ffi::c_void,
                std::ptr::null_mut(),
            )
        }
    };
    crate::raw::ok(status, "attaching a finalizer")
}

/// A strong reference to a JS value that Rust keeps alive (foreign memory's owner, a registered
/// buffer). Node-API references may only be deleted on their own thread: dropped elsewhere (the
/// last queued copy finishing on a driver thread), it waits in a list that the next call on its
/// thread empties ([`release_pending`]); until then the value stays alive, which is safe.
pub struct JsRef {
    env: sys::napi_env,
    raw: sys::napi_ref,
    thread: std::thread::ThreadId,
}

// SAFETY: the reference is only touched on its own thread (checked in Drop); elsewhere it is
// moved into the pending list as plain numbers.
unsafe impl Send for JsRef {}
// SAFETY: as above; it has no shared methods.
unsafe impl Sync for JsRef {}

type Pending = Vec<(std::thread::ThreadId, usize, usize)>;

fn pending() -> std::sync::MutexGuard<'static, Pending> {
    static P: std::sync::Mutex<Pending> = std::sync::Mutex::new(Vec::new());
    P.lock().unwrap_or_else(|p| p.into_inner())
}

impl JsRef {
    /// Keeps `value` (an object) alive until dropped.
    pub fn new(cx: &Cx, value: sys::napi_value) -> Result<JsRef> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: `value` is an object of this call; `raw` is a valid out-pointer.
        crate::raw::ok(unsafe { sys::napi_create_reference(cx.env, value, 1, &mut raw) }, "keeping a value")?;
        Ok(JsRef { env: cx.env, raw, thread: std::thread::current().id() })
    }
}

thread_local! {
    /// Set once this thread's environment is being torn down (`teardown.rs`): a reference dropped
    /// on this thread after that is left to the dying environment, which frees its own. Deleting
    /// it once the environment is gone (thread-local destructors run last) would touch freed memory.
    static ENV_GONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A new environment on this thread: JS references made from now on are deleted as usual.
pub fn env_started() {
    let _ = ENV_GONE.try_with(|g| g.set(false));
}

/// This thread's environment is going away: JS references are no longer deleted from here.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub fn env_gone() {
    release_pending();
    let _ = ENV_GONE.try_with(|g| g.set(true));
}

impl Drop for JsRef {
    fn drop(&mut self) {
        if std::thread::current().id() == self.thread {
            if ENV_GONE.try_with(|g| g.get()).unwrap_or(true) {
                return;
            }
            // SAFETY: made by napi_create_reference on this thread's env, deleted once.
            unsafe { sys::napi_delete_reference(self.env, self.raw) };
        } else {
            pending().push((self.thread, self.env as usize, self.raw as usize));
        }
    }
}

/// Deletes the references dropped on other threads that belong to this one.
pub fn release_pending() {
    let me = std::thread::current().id();
    let mine: Pending = {
        let mut p = pending();
        if p.is_empty() {
            return;
        }
        let (mine, rest) = p.drain(..).partition(|(t, _, _)| *t == me);
        *p = rest;
        mine
    };
    for (_, env, raw) in mine {
        // SAFETY: a reference made on this thread's env and not yet deleted (moved here once).
        unsafe { sys::napi_delete_reference(env as sys::napi_env, raw as sys::napi_ref) };
    }
}

/// Declares a concept's table: `table!(STREAMS: Arc<Stream>, "this Stream was destroyed: create a
/// new one")` gives `STREAMS` and, in the declaring module, `with(handle, f)`, `get(handle)`,
/// `insert(value)`, `take(handle)` and `stale()` (the error for a handle that names nothing).
/// Called as `crate::table!` (lib.rs re-exports it: a `#[macro_export]` macro of a module that
/// `automod::dir!` declares cannot be named by that path). `fixed: Fixed { count, make }` after
/// the message gives the kind fixed entries ([`Fixed`]).
macro_rules! table {
    ($name:ident: $ty:ty, $code:ident, $message:literal, fixed: $fixed:expr) => {
        thread_local! {
            static $name: std::cell::RefCell<$crate::handles::Table<$ty>> = const { std::cell::RefCell::new($crate::handles::Table::with_fixed($fixed)) };
        }
        $crate::table!(@common $name: $ty, $code, $message);
    };
    ($name:ident: $ty:ty, $code:ident, $message:literal) => {
        thread_local! {
            static $name: std::cell::RefCell<$crate::handles::Table<$ty>> = const { std::cell::RefCell::new($crate::handles::Table::new()) };
        }
        $crate::table!(@common $name: $ty, $code, $message);
    };
    (@common $name:ident: $ty:ty, $code:ident, $message:literal) => {

        /// The error for a handle that names nothing (destroyed, freed, or never made).
        pub(crate) fn stale() -> cuda_node_core::Error {
            cuda_node_core::Error::cuda(cuda_node_core::Code::$code, $message)
        }

        #[allow(dead_code)]
        /// The error for a handle a lookup finds nothing behind: [`stale`], or where the backend
        /// did not load (so that no fixed entry could be made), its error.
        #[cold]
        fn missing() -> cuda_node_core::Error {
            cuda_node_core::runtime().err().unwrap_or_else(stale)
        }

        /// Runs `f` on the live value behind `handle`.
        #[allow(dead_code)]
        pub(crate) fn with<R>(handle: f64, f: impl FnOnce(&$ty) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
            $crate::handles::with(&$name, handle, f).unwrap_or_else(|| Err(missing()))
        }

        /// A hold of its own on the live value behind `handle` ([`Share`](crate::handles::Share)).
        #[allow(dead_code)]
        pub(crate) fn get(handle: f64) -> cuda_node_core::Result<<$ty as $crate::handles::Share>::Hold> {
            $crate::handles::with(&$name, handle, $crate::handles::Share::share).ok_or_else(missing)
        }

        /// Stores `value`, owned by `owner` (released when it is collected); returns the handle.
        #[allow(dead_code)]
        pub(crate) fn insert(cx: &$crate::raw::Cx, owner: &$crate::raw::Owner, value: $ty) -> cuda_node_core::Result<f64> {
            let handle = $crate::handles::insert(&$name, value).ok_or_else($crate::handles::held)?;
            if let Err(e) = $crate::handles::own(cx, owner, &$name, handle) {
                drop($crate::handles::remove(&$name, handle));
                return Err(e);
            }
            Ok(handle)
        }

        /// Stores `value` with no owner yet; returns the handle. [`own_later`] attaches one: until
        /// then only a destroy (or the thread's end) releases it.
        #[allow(dead_code)]
        pub(crate) fn insert_unowned(value: $ty) -> cuda_node_core::Result<f64> {
            $crate::handles::insert(&$name, value).ok_or_else($crate::handles::held)
        }

        /// Releases `handle` when `owner` is collected, if it is still live (the GC backstop of an
        /// entry stored by `insert_unowned`; nothing for one destroyed since).
        #[allow(dead_code)]
        pub(crate) fn own_later(cx: &$crate::raw::Cx, owner: &$crate::raw::Owner, handle: f64) -> cuda_node_core::Result<()> {
            if $crate::handles::with(&$name, handle, |_| ()).is_none() {
                return Ok(());
            }
            $crate::handles::own(cx, owner, &$name, handle)
        }

        /// Live entries on this thread that `f` counts (for leak checks).
        #[allow(dead_code)]
        pub(crate) fn live_where(f: impl Fn(&$ty) -> bool) -> usize {
            $crate::handles::live_where(&$name, f)
        }

        /// Takes the value out of the table (the caller drops it); `stale()` if it names nothing.
        #[allow(dead_code)]
        pub(crate) fn take(handle: f64) -> cuda_node_core::Result<$ty> {
            $crate::handles::take(&$name, handle)?.ok_or_else(stale)
        }

        /// Takes every live value out of this thread's table (`handles::drain`).
        #[allow(dead_code)]
        pub(crate) fn drain() -> Vec<$ty> {
            $crate::handles::drain(&$name)
        }

        /// Live entries on this thread (for leak checks).
        #[allow(dead_code)]
        pub(crate) fn live() -> usize {
            $crate::handles::live(&$name)
        }
    };
}
pub(crate) use table;

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T>(table: &'static Local<T>, handle: f64, f: impl FnOnce(&T) -> u32) -> Option<u32> {
        with(table, handle, f)
    }

    thread_local! {
        static T: RefCell<Table<u32>> = RefCell::new(Table::default());
    }

    #[test]
    fn an_insert_while_the_table_is_held_fails_cleanly_and_drops_its_value() {
        thread_local! {
            static H: RefCell<Table<std::sync::Arc<()>>> = RefCell::new(Table::default());
        }
        let value = std::sync::Arc::new(());
        let a = insert(&H, value.clone()).unwrap();
        let inner = with(&H, a, |_| insert(&H, value.clone()));
        assert_eq!(inner, Some(None), "refused while `with` holds the table");
        assert_eq!(std::sync::Arc::strong_count(&value), 2, "the refused value was dropped");
        assert_eq!(live(&H), 1);
        drop(remove(&H, a));
    }

    #[test]
    fn a_stale_handle_is_told_apart_from_the_live_one_in_its_slot() {
        let a = insert(&T, 1).unwrap();
        assert_eq!(read(&T, a, |v| *v), Some(1));
        assert_eq!(remove(&T, a), Some(1));
        let b = insert(&T, 2).unwrap(); // same slot, next generation
        assert_ne!(a, b);
        assert_eq!(read(&T, a, |v| *v), None);
        assert_eq!(remove(&T, a), None);
        assert_eq!(read(&T, b, |v| *v), Some(2));
        assert_eq!(live(&T), 1);
        for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, 9_007_199_254_740_992.0, -9e18, 4294967296.5] {
            assert_eq!(read(&T, bad, |v| *v), None, "{bad}");
        }
        assert_eq!(read(&T, b, |v| *v + 1), Some(3));
        remove(&T, b);
    }

    #[test]
    fn the_first_slots_handles_stay_small_integers_however_often_reused() {
        thread_local! {
            static S: RefCell<Table<u32>> = RefCell::new(Table::default());
        }
        let kept: Vec<f64> = (0..500).map(|i| insert(&S, i).unwrap()).collect();
        for i in 0..100_000 {
            let h = insert(&S, i).unwrap();
            assert!(h < (1u64 << 30) as f64, "{h} is past V8's small integers after {i} reuses");
            remove(&S, h);
        }
        for h in kept {
            assert!(h < (1u64 << 30) as f64);
            remove(&S, h);
        }
    }

    #[test]
    fn a_handle_is_never_issued_twice_even_past_the_last_generation() {
        thread_local! {
            static U: RefCell<Table<u32>> = RefCell::new(Table::default());
        }
        let first = insert(&U, 0).unwrap();
        let mut seen = std::collections::HashSet::new();
        seen.insert(first.to_bits());
        remove(&U, first);
        // Past 2^21 cycles the slot retires and a new one is used: no handle repeats.
        for i in 0..(LAST_GENERATION as u64 + 10) {
            let h = insert(&U, i as u32).unwrap();
            assert!(seen.insert(h.to_bits()), "handle {h} issued twice after {i} cycles");
            assert_eq!(remove(&U, h), Some(i as u32));
        }
        assert_eq!(read(&U, first, |v| *v), None);
    }

    #[test]
    fn fixed_entries_are_handles_below_their_count_made_once_never_removed_and_never_issued() {
        thread_local! {
            static MADE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
            static F: RefCell<Table<u32>> = const {
                RefCell::new(Table::with_fixed(Fixed {
                    count: || 3,
                    make: |i| {
                        MADE.with(|m| m.set(m.get() + 1));
                        Some(100 + i as u32)
                    },
                }))
            };
        }
        assert_eq!(live(&F), 0);
        // A value inserted first is not given slot 0.
        let a = insert(&F, 7).unwrap();
        assert!(a >= SLOT_UNIT, "{a}");
        assert_eq!(read(&F, 1.0, |v| *v), Some(101));
        assert_eq!(read(&F, 1.0, |v| *v), Some(101));
        assert_eq!(MADE.with(|m| m.get()), 1, "made at its first lookup, once");
        assert_eq!(read(&F, 3.0, |v| *v), None, "past the count");
        assert_eq!(read(&F, 2.5, |v| *v), None);
        // Made under the shared borrow another lookup holds.
        assert_eq!(with(&F, a, |_| read(&F, 0.0, |v| *v)), Some(Some(100)));
        assert_eq!(live(&F), 3);
        assert_eq!(take(&F, 1.0).unwrap(), None, "a fixed entry is never removed");
        assert_eq!(read(&F, 1.0, |v| *v), Some(101));
        let mut all = drain(&F);
        all.sort();
        assert_eq!(all, vec![7, 100, 101], "the thread's end takes them");
        assert_eq!(live(&F), 0);
        assert_eq!(read(&F, 1.0, |v| *v), Some(101), "made anew after");
        assert_eq!(MADE.with(|m| m.get()), 3);
        drop(drain(&F));
    }

    #[test]
    fn a_fixed_entry_that_cannot_be_made_names_nothing_until_it_can_be() {
        thread_local! {
            static OK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
            static G: RefCell<Table<u32>> = const {
                RefCell::new(Table::with_fixed(Fixed { count: || 1, make: |_| OK.with(|ok| ok.get()).then_some(9) }))
            };
        }
        assert_eq!(read(&G, 0.0, |v| *v), None);
        assert_eq!(live(&G), 0);
        OK.with(|ok| ok.set(true));
        assert_eq!(read(&G, 0.0, |v| *v), Some(9));
    }

    #[test]
    fn a_checked_take_refused_leaves_the_value_and_a_stale_handle_is_nothing() {
        thread_local! {
            static C: RefCell<Table<u32>> = const { RefCell::new(Table::new()) };
        }
        let h = insert(&C, 5).unwrap();
        let no = || cuda_node_core::Error::range("kept");
        assert!(take_checked(&C, h, |_| Err(no())).is_err());
        assert_eq!(read(&C, h, |v| *v), Some(5), "refused: still there");
        assert_eq!(take_checked(&C, h, |v| if *v == 5 { Ok(()) } else { Err(no()) }).unwrap(), Some(5));
        assert_eq!(take_checked(&C, h, |_| Err(no())).unwrap(), None, "stale: nothing, unchecked");
        assert_eq!(live(&C), 0);
    }
}
