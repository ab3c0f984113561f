//! The numbers the TS layer checks arguments against, from the Rust that enforces them: one
//! `constants()` export, typed in native.d.ts through its `js_object!` like every other, read
//! once when the package loads. A rule written here is not written again in TS.

crate::js_object! {
    /// The limits and constants the TS layer checks with, as the addon enforces them.
    pub struct Constants {
        max_count: f64 = c"maxCount",
    }
}

crate::exports! {
    /// The limits the TS layer checks arguments against before a native call (read once):
    /// `maxCount`, the largest byte count, offset or element count.
    c"constants" => fn constants(_cx) -> Constants {
        Ok(Constants { max_count: crate::raw::numbers::MAX_COUNT as f64 })
    }
}
