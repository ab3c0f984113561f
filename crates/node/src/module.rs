//! Modules: a cubin, PTX or fatbin image loaded on a device, the kernels looked up in it, and
//! its `__device__` / `__constant__` variables.

use crate::raw::{Bytes, Owner, Strings};
use cuda_node_core::module::{self, Module};
use cuda_node_core::{runtime, Block};
use std::sync::Arc;

crate::table!(MODULES: Arc<Module>, CUDA_ERROR_INVALID_HANDLE, "this module is gone");

crate::exports! {
    /// Loads a cubin, PTX or fatbin image on `device`.
    c"moduleLoad" => fn module_load(cx, owner: Owner, device: f64, image: Bytes) -> f64 {
        insert(cx, &owner, Arc::new(Module::load(runtime()?.ordinal(device)?, image.0)?))
    }

    /// The kernel `name` of a loaded module, owned by `owner`.
    c"moduleGetFunction" => fn module_get_function(cx, owner: Owner, module: f64, name: String) -> f64 {
        let f = with(module, |m| m.function(&name))?;
        crate::kernel::insert(cx, &owner, Arc::new(f))
    }

    /// The variable `name` of a loaded module as a memory block (its handle), which keeps the
    /// module loaded; freeing the block leaves the variable alone.
    c"moduleGetGlobal" => fn module_get_global(_cx, module: f64, name: String) -> f64 {
        let mem = with(module, |m| m.global(&name))?;
        crate::memory::adopt(Block::whole(mem))
    }

    /// Checks that a module's text declares kernel `name` where nothing is loaded to ask (the
    /// simulator): its CUDA C++ `code` and name expressions, or its PTX `image`; throws
    /// `CUDA_ERROR_NOT_FOUND` where it does not. A cubin, or neither (LTO-IR), may hold any name.
    c"moduleCheckDeclared" => fn module_check_declared(_cx, code: Option<String>, name_expressions: Strings, image: Option<Bytes>, name: String) -> () {
        module::check_declared(code.as_deref(), &name_expressions.0, image.map(|b| b.0), &name)
    }

    /// Throws the error for a module file that cannot be read (`why`, as the file system said).
    c"moduleFileUnreadable" => fn module_file_unreadable(_cx, file: String, why: String) -> () {
        Err(module::unreadable_file(&file, &why))
    }

    /// The simulator's answer to `moduleGetGlobal` (it loads no modules): an error.
    c"moduleSimulatedGlobal" => fn module_simulated_global(_cx, name: String) -> f64 {
        module::simulated_global(&name).and_then(|mem| crate::memory::adopt(Block::whole(mem)))
    }
}
