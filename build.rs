//! Links the `omc-hooks` executable statically on Linux with glibc, when the system can.
//!
//! A hook is a process started for every agent event, so its start-up is most of its cost
//! (BENCHMARKS.md, "Where the time goes"). Two steps, the second only where the first holds:
//!
//! 1. **libgcc's unwinder, statically.** Rust's standard library takes its unwinder
//!    (`_Unwind_*`, used by panics, which every hook catches) from the shared `libgcc_s.so.1`:
//!    one more library for the dynamic loader to find, map and relocate, whose constructor also
//!    probes the CPU (slow in a virtual machine). Linked from the static `libgcc_eh.a` that the
//!    C compiler ships beside it, the unwinder is the same code and the shared library is no
//!    longer loaded (the linker drops it: `--as-needed`); this is what `gcc -static-libgcc` does
//!    for C programs. The archive is offered to the linker from a directory of its own, so that
//!    nothing else of the compiler's directory (its `libgcc_s.so`) is found there.
//! 2. **A static executable** (`-static -no-pie`): no dynamic loader and no shared C library
//!    at all, loaded where it was linked, so nothing is relocated at start-up. Rust can only ask
//!    for static linking with `-C target-feature=+crt-static`, which Cargo then also applies to
//!    the proc-macro crates when the build has no explicit `--target`, and those cannot be built
//!    that way. So the executable is linked as usual and the linker is pointed, for the `-l`
//!    names the standard library asks for (`c`, `m`, `rt`, `pthread`, `dl`, `util`, `gcc_s`), at
//!    small linker scripts in `OUT_DIR` that name the static archives (`libc.a`, …) instead of the
//!    shared objects. Only the `omc-hooks` executable gets this (`rustc-link-arg-bins`); tests
//!    and benches link as usual. glibc 2.34 and later has its `files` and `dns` name services
//!    built in, so host names (a webhook's, a collector's) resolve in a static executable
//!    without loading a module.
//!
//!    Not position-independent, by measurement (BENCHMARKS.md, "Issue 44, round 5"): a static
//!    PIE relocates itself before `main` in every hook, and writing its ~10 000 pointers copies
//!    each of the ~50 pages that hold them (its `RELRO` segment, ~200 KB): 42 page faults of a
//!    hook's ~150, 0.28 ms of a 1.9 ms hook on the benchmark's machine. What is given up is
//!    address-space randomisation of the executable's own code and data (the stack, the heap and
//!    every mapping stay randomised); HARDENING.md weighs it. `OMC_STATIC_PIE=1` at build time
//!    links a static PIE instead, with step 3.
//! 3. **Packed relative relocations** (`-z pack-relative-relocs`, `DT_RELR`), for a static PIE
//!    only: it relocates itself at start-up, before `main`, in every hook. Its ~10 000 relative
//!    relocations as `RELA` entries are 24 bytes each (a quarter of a megabyte to page in and
//!    walk); packed as `RELR` bitmaps they are a few kilobytes. glibc 2.36 and later applies
//!    them in a static PIE's self-relocation; both linkers (GNU ld 2.38+, lld 15+) write them.
//!    Taken when a probe linked that way runs.
//!
//! Step 2 is taken only when building for the machine the build runs on, every archive is
//! found, and a probe program linked exactly that way (with the system linker and, when Rust
//! ships one, with its `rust-lld`) runs and prints; otherwise the executable stays dynamic.
//! `OMC_DYNAMIC_LINK=1` at build time turns all three off.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `-l` names the standard library and the `libc` crate link against on Linux with glibc,
/// with the static archives that stand in for them (`libgcc_s`'s part is in libgcc's two).
const STAND_INS: &[(&str, &[&str])] = &[
    ("c", &["libc.a", "libgcc.a", "libgcc_eh.a"]),
    ("m", &["libm.a"]),
    ("rt", &["librt.a"]),
    ("pthread", &["libpthread.a"]),
    ("dl", &["libdl.a"]),
    ("util", &["libutil.a"]),
    ("gcc_s", &["libgcc_eh.a", "libgcc.a"]),
];

fn main() {
    // How the executable ends up linked, for the test that checks it (tests/cli.rs).
    println!("cargo::rustc-env=OMC_BUILD_LINKAGE={}", link());
    order_hot_functions();
}

/// Step 4: the functions the hooks run, laid out together (`link/hot-functions.txt`, written by
/// `benches/hot_functions.py`). A hook maps the executable's code a 64 KiB window at a time
/// around each page it first runs, and each page mapped costs; left where the compiler put
/// them, one event's functions lie in ~60 windows of the 6 MB of code. Passed to the linker as
/// `--symbol-ordering-file`, which only LLD knows: only when the build links with Rust's own
/// `rust-lld` (rustc's default for x86_64 Linux with glibc) and nothing overrides the linker,
/// and only when a probe linked with the file through `rust-lld` runs.
fn order_hot_functions() {
    let list = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("link/hot-functions.txt");
    println!("cargo::rerun-if-changed={}", list.display());
    println!("cargo::rerun-if-env-changed=RUSTFLAGS");
    println!("cargo::rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    let target = var("TARGET");
    let linker_var = format!(
        "CARGO_TARGET_{}_LINKER",
        target.to_uppercase().replace('-', "_")
    );
    println!("cargo::rerun-if-env-changed={linker_var}");
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let overridden = !var(&linker_var).is_empty()
        || ["linker", "link-self-contained"]
            .iter()
            .any(|f| flags.contains(f));
    if target != "x86_64-unknown-linux-gnu" || overridden || !list.is_file() {
        return;
    }
    let Some(gcc_ld) = rust_lld_dir() else {
        return;
    };
    let cc = var("CC");
    let cc = if cc.is_empty() { "cc".to_string() } else { cc };
    let out = PathBuf::from(var("OUT_DIR"));
    let src = out.join("order-probe.c");
    let exe = out.join("order-probe");
    let ordering = format!("-Wl,--symbol-ordering-file={}", list.display());
    let ran = std::fs::write(&src, "int main(void) { return 0; }\n").is_ok()
        && Command::new(&cc)
            .arg(format!("-B{}", gcc_ld.display()))
            .args(["-fuse-ld=lld", &ordering, "-Wl,--no-warn-symbol-ordering"])
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .status()
            .is_ok_and(|s| s.success())
        && Command::new(&exe).status().is_ok_and(|s| s.success());
    if ran {
        println!("cargo::rustc-link-arg-bins={ordering}");
        println!("cargo::rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
        // For the test that checks the list is still current (tests/cli.rs).
        println!("cargo::rustc-env=OMC_BUILD_ORDERED=1");
    }
}

/// Steps 1 to 3; the linkage of the executable: `static`, `static-pie`, `dynamic`, or `default`
/// where this script leaves it to the toolchain (other targets than Linux with glibc).
fn link() -> &'static str {
    println!("cargo::rustc-check-cfg=cfg(static_libgcc)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=OMC_DYNAMIC_LINK");
    println!("cargo::rerun-if-env-changed=OMC_STATIC_PIE");
    println!("cargo::rerun-if-env-changed=CC");
    println!("cargo::rerun-if-env-changed=TARGET_CC");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return "default";
    }
    if !var("OMC_DYNAMIC_LINK").is_empty() {
        return "dynamic";
    }
    let target_cc = format!("CC_{}", var("TARGET").replace('-', "_"));
    println!("cargo::rerun-if-env-changed={target_cc}");
    let cc = [target_cc.as_str(), "TARGET_CC", "CC"]
        .iter()
        .map(|k| var(k))
        .find(|v| !v.is_empty())
        .unwrap_or_else(|| "cc".into());
    let out = PathBuf::from(var("OUT_DIR"));

    // Step 1.
    let Some(eh) = archive(&cc, "libgcc_eh.a") else {
        return "dynamic";
    };
    let eh_dir = out.join("libgcc_eh");
    let eh_dir = match offer_alone(&eh, &eh_dir) {
        Ok(()) => eh_dir,
        // No symbolic link here: the compiler's own directory, as before.
        Err(_) => eh.parent().map(Path::to_path_buf).unwrap_or(eh_dir),
    };
    println!("cargo::rustc-link-search=native={}", eh_dir.display());
    println!("cargo::rustc-cfg=static_libgcc");

    // Step 2.
    if var("HOST") != var("TARGET") {
        return "dynamic";
    }
    let scripts = out.join("static-libs");
    let pie = !var("OMC_STATIC_PIE").is_empty();
    let (linkage, flags): (&str, &[&str]) = if pie {
        ("static-pie", &["-static-pie"])
    } else {
        ("static", &["-static", "-no-pie"])
    };
    match stand_ins(&cc, &scripts).and_then(|()| probe(&cc, &out, &eh_dir, &scripts, flags)) {
        Ok(()) => {
            for flag in flags {
                println!("cargo::rustc-link-arg-bins={flag}");
            }
            println!("cargo::rustc-link-arg-bins=-L{}", scripts.display());
            // Step 3, where the linkers and the C library's start-up code support it.
            if pie
                && probe(
                    &cc,
                    &out,
                    &eh_dir,
                    &scripts,
                    &[flags, &[PACKED_RELOCS]].concat(),
                )
                .is_ok()
            {
                println!("cargo::rustc-link-arg-bins={PACKED_RELOCS}");
                // For the test that checks it (tests/cli.rs).
                println!("cargo::rustc-env=OMC_BUILD_RELR=1");
            }
            linkage
        }
        Err(why) => {
            println!("cargo::warning=omc-hooks stays dynamically linked: {why}");
            "dynamic"
        }
    }
}

/// Where the C compiler finds `name`, if it does.
fn archive(cc: &str, name: &str) -> Option<PathBuf> {
    let out = Command::new(cc)
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok()?;
    let found = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // Not found, the compiler prints the bare name back.
    (out.status.success() && found.is_absolute() && found.is_file()).then_some(found)
}

/// `dir` holding nothing but a link to `file`.
fn offer_alone(file: &Path, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let link = dir.join(file.file_name().unwrap_or_default());
    let _ = std::fs::remove_file(&link);
    #[cfg(unix)]
    return std::os::unix::fs::symlink(file, link);
    #[cfg(not(unix))]
    return Err(std::io::Error::other("no symbolic links"));
}

/// One linker script per name of [`STAND_INS`] in `dir` (`libc.so`: `GROUP ( …/libc.a … )`).
fn stand_ins(cc: &str, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, archives) in STAND_INS {
        let mut paths = Vec::new();
        for a in *archives {
            let p = archive(cc, a).ok_or_else(|| format!("{cc} knows no {a}"))?;
            paths.push(format!("\"{}\"", p.display()));
        }
        let script = format!("GROUP ( {} )\n", paths.join(" "));
        let file = dir.join(format!("lib{name}.so"));
        std::fs::write(&file, script).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

/// Step 3's linker flag: relative relocations packed (`DT_RELR`).
const PACKED_RELOCS: &str = "-Wl,-z,pack-relative-relocs";

/// Links a small C program the way rustc links the executable, with `flags` (the linkage, and
/// step 3's when asked) and the stand-ins, and runs it: with the system linker and with Rust's `rust-lld` when
/// it has one (rustc links with it by default on this target). The program reads a pointer
/// from a table, so a relocation the start-up code did not apply fails the run.
fn probe(
    cc: &str,
    out: &Path,
    eh_dir: &Path,
    scripts: &Path,
    flags: &[&str],
) -> Result<(), String> {
    let src = out.join("static-probe.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nstatic const char *said[] = {\"dynamic\", \"static\"};\n\
         int main(void) { puts(said[1]); return 0; }\n",
    )
    .map_err(|e| format!("{}: {e}", src.display()))?;
    let mut linkers = vec![("the system linker", Vec::new())];
    if let Some(gcc_ld) = rust_lld_dir() {
        let flags = vec![format!("-B{}", gcc_ld.display()), "-fuse-ld=lld".into()];
        linkers.push(("rust-lld", flags));
    }
    for (i, (linker, use_linker)) in linkers.iter().enumerate() {
        let exe = out.join(format!("static-probe-{i}"));
        let linked = Command::new(cc)
            .args(flags)
            .arg("-nodefaultlibs")
            .args(use_linker)
            .arg(&src)
            .args([
                "-Wl,--as-needed",
                "-Wl,-Bstatic",
                "-lgcc_eh",
                "-Wl,-Bdynamic",
            ])
            .args(STAND_INS.iter().map(|(name, _)| format!("-l{name}")))
            .arg(format!("-L{}", eh_dir.display()))
            .arg(format!("-L{}", scripts.display()))
            .arg("-o")
            .arg(&exe)
            .output()
            .map_err(|e| format!("{cc}: {e}"))?;
        if !linked.status.success() {
            return Err(format!(
                "the probe does not link with {linker}: {}",
                String::from_utf8_lossy(&linked.stderr).trim()
            ));
        }
        let ran = Command::new(&exe)
            .output()
            .map_err(|e| format!("the probe linked with {linker} does not run: {e}"))?;
        if !ran.status.success() || ran.stdout != b"static\n" {
            return Err(format!("the probe linked with {linker}: {}", ran.status));
        }
    }
    Ok(())
}

/// The `gcc-ld` directory of Rust's own linker (`…/lib/rustlib/<host>/bin/gcc-ld`), if the
/// toolchain has one.
fn rust_lld_dir() -> Option<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let dir = sysroot
        .join("lib/rustlib")
        .join(std::env::var("HOST").ok()?)
        .join("bin/gcc-ld");
    dir.join("ld.lld").is_file().then_some(dir)
}
