//! What differs between operating systems, in one place: owner-only files and directories,
//! opening without following a link, file identity, atomic replacement, executable bits, a
//! user script's process tree, a detached flusher, whether a pid is alive, and who the user is.
//! The rest of the crate calls these and never names an operating system; `unix.rs` keeps the
//! behaviour the crate always had there, `windows.rs` gives the same guarantees with Windows'
//! means (each function says how, and docs/contract.md which of them Wine could prove).
//!
//! A ground-floor module: it uses nothing of the crate.

pub mod ancestry;
pub mod deadline;

use std::fs::File;

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

/// The file to lock for a file opened at a path ([`lock_target`]): on Unix the file itself; on
/// Windows a lock file beside it, `<path>.lock`, because Windows locks are mandatory — a lock on
/// the file itself would stop its holder's own writes and others' reads.
pub enum LockOn<'a> {
    /// Lock the file itself.
    Itself(&'a File),
    /// Lock this file, `<path>.lock`, opened beside the locked one (never deleted: a lock file
    /// that disappears could let two holders in).
    #[cfg_attr(unix, allow(dead_code))]
    Beside(File),
}

impl LockOn<'_> {
    /// The file to take the lock on (`lock`, `try_lock_shared`, …).
    pub fn file(&self) -> &File {
        match self {
            LockOn::Itself(f) => f,
            LockOn::Beside(f) => f,
        }
    }

    /// Takes the lock an appender holds while it appends to the file.
    ///
    /// On the file itself: tries a shared lock (`WouldBlock`: the caller polls, within its own
    /// bound). The kernel keeps concurrent `O_APPEND` writes whole, so appenders only keep out
    /// a rotation.
    ///
    /// On the lock file beside: waits for an exclusive lock, in the kernel's turn, one appender
    /// at a time. NTFS keeps appends through separate handles whole, but Wine 8 loses some
    /// (seen: 2 of 2,000 records from 4 threads), and ordering a few small writes costs
    /// little. Waiting rather than polling: polling with Windows' coarse sleeps starves an
    /// appender among busy ones (seen under Wine, past a 200 ms bound). The holders are
    /// appenders mid-write and a rotation's barrier, which itself waits only for them; a hook's
    /// deadline watchdog bounds the wait in any case.
    pub fn lock_for_append(&self) -> Result<(), std::fs::TryLockError> {
        match self {
            LockOn::Itself(f) => f.try_lock_shared(),
            LockOn::Beside(f) => f.lock().map_err(std::fs::TryLockError::Error),
        }
    }

    /// Releases a lock taken on [`LockOn::file`]: `unlock` on the file itself; the lock file
    /// beside is closed, which releases its lock (Wine 8 refuses `UnlockFile` on the whole-file
    /// range std locks, with a lock violation, where closing the handle always works).
    pub fn release(self) -> std::io::Result<()> {
        match self {
            LockOn::Itself(f) => f.unlock(),
            LockOn::Beside(f) => {
                drop(f);
                Ok(())
            }
        }
    }

    /// The lock file beside, to keep the lock held once the locked file's borrow ends; `None`
    /// when the lock is on the file itself (held as long as that file stays open).
    pub fn into_beside(self) -> Option<File> {
        match self {
            LockOn::Itself(_) => None,
            LockOn::Beside(f) => Some(f),
        }
    }
}

/// The name of the lock file that stands for `path` where locks are on a file beside it:
/// `<path>.lock`.
#[cfg_attr(unix, allow(dead_code))]
fn beside_lock_path(path: &std::path::Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    std::path::PathBuf::from(name)
}

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
