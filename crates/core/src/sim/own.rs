//! Recovering the simulator's concrete types from the seam's trait objects it is given back.

/// The simulator's own object behind a seam trait object it is given back (its stream, event,
/// allocation or graph): the one place the simulator recovers its concrete types. Only one
/// backend runs in a process, so every such object came from this one.
pub(crate) fn own<T: 'static>(any: &dyn std::any::Any) -> &T {
    any.downcast_ref::<T>().expect("the simulator is given back only its own objects")
}
