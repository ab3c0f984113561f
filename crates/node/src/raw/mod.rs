//! The binding's one mechanism. Every function the addon exports is a raw Node-API callback,
//! declared with [`exports!`] in the file of its concept (`stream.rs`, `event.rs`, ...): each
//! argument is read by its Rust type ([`Arg`]), the result written by its type ([`Ret`]), a core
//! error thrown as the JS error its kind maps to (`errors.rs`), and a panic caught. The same
//! declaration gives the function's TypeScript signature ([`Export::signature`]); the build
//! writes `native.d.ts` from that table (`scripts/native-types.js`), and a test holds the file to
//! the table, so no native call is typed by hand.
//!
//! Hot and cold calls share this path; what makes a call hot is what it takes and returns. The
//! rule: a call made once per GPU operation (synchronize, query, record, wait, launch, malloc,
//! free, NVTX push and pop) takes only numbers, booleans, handles and typed arrays, and returns
//! only a number, a boolean or nothing, so that it allocates nothing and costs one crossing
//! (~35 ns here, ~65 ns on the H100 host; a napi-rs class method costs ~400). Setup calls
//! (create, destroy, properties, compile) may take and return strings, objects and Promises.
//!
//! The mechanism is this folder, and it imports no concept file (only `errors.rs`, to throw):
//! `call.rs` (one call: [`Cx`], the status check), `args.rs` (what an argument is read as:
//! [`Arg`]), `numbers.rs` (JS numbers as counts and integers, or a RangeError), `ret.rs` (what a
//! result is written as: [`Ret`], `js_object!`), `export.rs` (the table: [`Export`], `exports!`,
//! and [`call`], which runs an export) and `pump.rs` (WebAssembly: asking JS to pump the
//! simulator after a call).

mod args;
mod call;
mod export;
pub mod numbers;
pub mod pump;
mod ret;

pub use args::{string, Arg, BigU64, Bytes, BytesMut, Count, Func, JsArrayBuffer, Numbers, Owner, Strings, Words};
pub use call::{call_number, ok, wrong, Cx};
pub use export::{call, Export};
pub use ret::{object, ArrayBufferOut, NodeBuffer, Ret};
