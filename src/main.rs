//! The `omc-hooks` binary: hands its arguments to the library and exits with its code.
//! Hook subcommands always exit 0; only the human CLI reports failures through the exit code.

// The unwinder from libgcc's static archive instead of `libgcc_s.so.1` (see build.rs): one
// shared library fewer to load in every hook process. Declares nothing; it only names the
// archive, which the linker then reads before the standard library's `-lgcc_s`. The block is
// empty: nothing in it can be called, so the `unsafe` it must be spelt with guards nothing.
#[cfg(static_libgcc)]
#[allow(unsafe_code)]
#[link(name = "gcc_eh", kind = "static")]
unsafe extern "C" {}

fn main() {
    let code = omc_hooks::run(std::env::args_os().skip(1).collect());
    std::process::exit(code);
}
