//! The plugin directory the real client loads.
//!
//! Under `cargo test --release` (the README's test command) the binary cargo just built *is*
//! `<checkout>/target/release/omc-hooks`, the path hooks.json names, so the checkout itself is
//! passed to `--plugin-dir`. Under any other profile the checkout's release binary may be stale,
//! so a throw-away plugin directory is laid out instead: the checkout's `hooks.json`,
//! `.claude-plugin/plugin.json` and `commands/`, with `target/release/omc-hooks` linked to the
//! fresh test build.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The directory to pass as `--plugin-dir`.
pub fn plugin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
        let bin = Path::new(env!("CARGO_BIN_EXE_omc-hooks"));
        if bin == checkout.join("target/release/omc-hooks") {
            return checkout.to_path_buf();
        }
        layout(
            &std::env::temp_dir().join(format!("omc-e2e-plugin-{}", std::process::id())),
            &std::fs::read_to_string(checkout.join("hooks.json")).unwrap(),
            bin,
        )
    })
}

/// Lays out a plugin directory at `dir` with the given manifest text and binary.
pub fn layout(dir: &Path, manifest: &str, bin: &Path) -> PathBuf {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join(".claude-plugin")).unwrap();
    std::fs::create_dir_all(dir.join("target/release")).unwrap();
    std::fs::copy(
        checkout.join(".claude-plugin/plugin.json"),
        dir.join(".claude-plugin/plugin.json"),
    )
    .unwrap();
    std::fs::write(dir.join("hooks.json"), manifest).unwrap();
    std::fs::create_dir_all(dir.join("commands")).unwrap();
    for e in std::fs::read_dir(checkout.join("commands"))
        .unwrap()
        .flatten()
    {
        std::fs::copy(e.path(), dir.join("commands").join(e.file_name())).unwrap();
    }
    std::os::unix::fs::symlink(bin, dir.join("target/release/omc-hooks")).unwrap();
    dir.to_path_buf()
}
