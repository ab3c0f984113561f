//! NVRTC, the run-time CUDA C++ compiler.

use crate::raw::{NodeBuffer, Strings};
use cuda_node_core::nvrtc::{self, Target};

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
        target: String = c"target",
        log: String = c"log",
        lowered: Vec<Lowered> = c"lowered",
    }
}

crate::exports! {
    /// The mangled name NVRTC gave `expression`, from a compile's `expressions` and their
    /// `names`; throws `NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID` for one it was not given.
    c"nvrtcLowered" => fn nvrtc_lowered(_cx, expressions: Strings, names: Strings, expression: String) -> String {
        let pairs = expressions.0.iter().map(String::as_str).zip(names.0.iter().map(String::as_str));
        nvrtc::lowered(pairs, &expression).map(str::to_owned)
    }

    /// NVRTC's `[major, minor]`; `NVRTC_ERROR_NOT_FOUND` (naming what was looked for) without it.
    c"nvrtcVersion" => fn nvrtc_version(_cx) -> Vec<i32> {
        let (a, b) = nvrtc::version()?;
        Ok(vec![a, b])
    }

    /// The architectures NVRTC compiles for (`90` for sm_90), oldest first.
    c"nvrtcSupportedArchs" => fn nvrtc_supported_archs(_cx) -> Vec<i32> {
        nvrtc::supported_archs()
    }

    /// Checks a target's name and an architecture; throws for a malformed one.
    c"nvrtcCheckTarget" => fn nvrtc_check_target(_cx, arch: String, target: String) -> String {
        nvrtc::arch_option(&arch, Target::parse(&target)?)
    }

    /// Compiles CUDA C++ for `arch` (`90`, `sm_90` or `compute_90`) into `target` (`cubin`,
    /// `ptx` or `ltoir`).
    c"nvrtcCompile" => fn nvrtc_compile(_cx, code: String, file_name: String, options: Strings, name_expressions: Strings, arch: String, target: String) -> CompileOutput {
        let c = nvrtc::compile(&code, &file_name, &options.0, &name_expressions.0, &arch, Target::parse(&target)?)?;
        Ok(CompileOutput {
            image: NodeBuffer(c.image),
            target: c.target.name().to_string(),
            log: c.log,
            lowered: c.lowered.into_iter().map(|(expression, name)| Lowered { expression, name }).collect(),
        })
    }
}
