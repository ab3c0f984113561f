//! NVRTC, the run-time CUDA C++ compiler.

use crate::raw::{NodeBuffer, Strings};
use cuda_node_core::nvrtc;

crate::js_object! {
    /// One name expression and the mangled name NVRTC gave it.
    pub struct Lowered {
        expression: String = c"expression",
        name: String = c"name",
    }
}

crate::js_object! {
    /// What a compile produced.
    pub struct CompileOutput {
        image: NodeBuffer = c"image",
        is_cubin: bool = c"isCubin",
        log: String = c"log",
        lowered: Vec<Lowered> = c"lowered",
    }
}

crate::exports! {
    /// NVRTC's `[major, minor]`; `NVRTC_ERROR_NOT_FOUND` (naming what was looked for) without it.
    c"nvrtcVersion" => fn nvrtc_version(_cx) -> Vec<i32> {
        let (a, b) = nvrtc::version()?;
        Ok(vec![a, b])
    }

    /// Compiles CUDA C++ for `arch` (`sm_90`: a cubin; `compute_90`: PTX).
    c"nvrtcCompile" => fn nvrtc_compile(_cx, code: String, file_name: String, options: Strings, name_expressions: Strings, arch: String) -> CompileOutput {
        let c = nvrtc::compile(&code, &file_name, &options.0, &name_expressions.0, &arch)?;
        Ok(CompileOutput {
            image: NodeBuffer(c.image),
            is_cubin: c.is_cubin,
            log: c.log,
            lowered: c.lowered.into_iter().map(|(expression, name)| Lowered { expression, name }).collect(),
        })
    }
}
