//! The `omc-hooks` binary: hands its arguments to the library and exits with its code.
//! Hook subcommands always exit 0; only the human CLI reports failures through the exit code.

fn main() {
    let code = omc_hooks::run(std::env::args_os().skip(1).collect());
    std::process::exit(code);
}
