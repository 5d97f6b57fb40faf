//! Links libgcc's unwinder into the `omc-hooks` executable statically on Linux with glibc.
//!
//! A hook is a process started for every agent event, so its start-up is most of its cost
//! (BENCHMARKS.md, "Where the time goes"). Rust's standard library takes its unwinder
//! (`_Unwind_*`, used by panics, which every hook catches) from the shared `libgcc_s.so.1`:
//! one more library for the dynamic loader to find, map and relocate, whose constructor also
//! probes the CPU (slow in a virtual machine). Linked from the static `libgcc_eh.a` that the
//! C compiler ships beside it, the unwinder is the same code and the shared library is no
//! longer loaded (the linker drops it: `--as-needed`); this is what `gcc -static-libgcc` does
//! for C programs. Only the executable is affected (`src/main.rs`), and only when the C
//! compiler knows a `libgcc_eh.a`; `OMC_DYNAMIC_LIBGCC=1` at build time turns it off.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(static_libgcc)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=OMC_DYNAMIC_LIBGCC");
    println!("cargo::rerun-if-env-changed=CC");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || !var("OMC_DYNAMIC_LIBGCC").is_empty()
    {
        return;
    }
    let target = var("TARGET").replace('-', "_");
    let cc = [format!("CC_{target}"), "TARGET_CC".into(), "CC".into()]
        .iter()
        .map(|k| var(k))
        .find(|v| !v.is_empty())
        .unwrap_or_else(|| "cc".into());
    let Ok(out) = Command::new(&cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
    else {
        return;
    };
    let found = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // Not found, the compiler prints the bare name back.
    if !out.status.success() || !found.is_absolute() || !found.is_file() {
        return;
    }
    if let Some(dir) = found.parent() {
        println!("cargo::rustc-link-search=native={}", dir.display());
        println!("cargo::rustc-cfg=static_libgcc");
    }
}
