//! What differs between operating systems, in one place: owner-only files and directories,
//! opening without following a link, file identity, atomic replacement, executable bits, a
//! user script's process tree, a detached flusher, whether a pid is alive, and who the user is.
//! The rest of the crate calls these and never names an operating system; `unix.rs` keeps the
//! behaviour the crate always had there, `windows.rs` gives the same guarantees with Windows'
//! means (each function says how, and docs/contract.md which of them Wine could prove).
//!
//! A ground-floor module: it uses nothing of the crate.

pub mod ancestry;

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

/// The error payload of an open refused because the path is a link (a symlink, or on Windows
/// any reparse point: symlinks and junctions alike). On Unix the kernel's `ELOOP` says the
/// same ([`is_link_refusal`] knows both).
#[derive(Debug)]
pub struct LinkRefused;

impl std::fmt::Display for LinkRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the path is a link")
    }
}

impl std::error::Error for LinkRefused {}

/// Test support: makes `link` a symlink to `target` (on Windows a directory symlink where
/// `target` is a directory, as Windows tells the two apart).
#[cfg(test)]
pub(crate) fn symlink(
    target: impl AsRef<std::path::Path>,
    link: impl AsRef<std::path::Path>,
) -> std::io::Result<()> {
    let (target, link) = (target.as_ref(), link.as_ref());
    #[cfg(unix)]
    return std::os::unix::fs::symlink(target, link);
    #[cfg(windows)]
    return if target.is_dir() {
        std::os::windows::fs::symlink_dir(target, link)
    } else {
        std::os::windows::fs::symlink_file(target, link)
    };
}
