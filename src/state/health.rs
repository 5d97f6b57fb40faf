//! Why state cannot be written, in words a person (or the model) can act on.
//!
//! A failed write must never be reported as a success: the text the model reads says the mode
//! did not start or the checkpoint was not saved, and `doctor` and `status` say why and how to
//! fix it. [`WriteProblem::from_io`] names the cause of a failed write; [`probe`] finds it
//! without a failed hook, by checking the state directory's path for symlinks and writing (and
//! removing) one small probe file where the next state write would go.

use super::Root;
use super::fs::{NotADirectory, SymlinkRefused};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What stands between the hooks and their state directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteProblem {
    /// The filesystem is mounted read-only.
    ReadOnly(PathBuf),
    /// The permissions refuse this user.
    NoPermission(PathBuf),
    /// A symlink sits where a state directory belongs; we never write through one.
    Symlink(PathBuf),
    /// No space (or quota) left.
    DiskFull(PathBuf),
    /// A file sits where a state directory belongs.
    NotADirectory(PathBuf),
    /// Another hook process held the file's lock past the wait.
    Busy,
    /// Anything else, as the system said it.
    Other(String),
}

impl WriteProblem {
    /// The cause of a failed write below the state directory `dir`. The directory named is the
    /// deepest one of `dir` and its ancestors that exists: where the write actually failed.
    pub fn from_io(e: &io::Error, dir: &Path) -> WriteProblem {
        if let Some(inner) = e.get_ref() {
            if let Some(SymlinkRefused(p)) = inner.downcast_ref::<SymlinkRefused>() {
                return WriteProblem::Symlink(p.clone());
            }
            if let Some(NotADirectory(p)) = inner.downcast_ref::<NotADirectory>() {
                return WriteProblem::NotADirectory(p.clone());
            }
        }
        let dir = dir
            .ancestors()
            .find(|a| a.exists())
            .unwrap_or(dir)
            .to_path_buf();
        match (e.raw_os_error(), e.kind()) {
            (Some(30), _) | (_, io::ErrorKind::ReadOnlyFilesystem) => WriteProblem::ReadOnly(dir),
            (Some(28 | 122), _)
            | (_, io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded) => {
                WriteProblem::DiskFull(dir)
            }
            (Some(13 | 1), _) | (_, io::ErrorKind::PermissionDenied) => {
                WriteProblem::NoPermission(dir)
            }
            (Some(20), _) | (_, io::ErrorKind::NotADirectory) => WriteProblem::NotADirectory(dir),
            (_, io::ErrorKind::TimedOut) => WriteProblem::Busy,
            _ => WriteProblem::Other(e.to_string()),
        }
    }

    /// What is wrong, as the end of a sentence ("… because <cause>").
    pub fn cause(&self) -> String {
        match self {
            WriteProblem::ReadOnly(d) => {
                format!("{} is on a read-only filesystem", d.display())
            }
            WriteProblem::NoPermission(d) => {
                format!("this user may not write to {}", d.display())
            }
            WriteProblem::Symlink(p) => format!(
                "{} is a symlink, and omc-hooks refuses to write through one",
                p.display()
            ),
            WriteProblem::DiskFull(d) => format!("the disk holding {} is full", d.display()),
            WriteProblem::NotADirectory(p) => {
                format!("{} is a file where a directory belongs", p.display())
            }
            WriteProblem::Busy => {
                "another omc-hooks process held the state file's lock for too long".to_string()
            }
            WriteProblem::Other(msg) => msg.clone(),
        }
    }

    /// How to fix it.
    pub fn fix(&self) -> String {
        const ELSEWHERE: &str = "or set OMC_STATE_DIR to a writable directory";
        match self {
            WriteProblem::ReadOnly(_) => {
                format!("make the project writable (remount it read-write), {ELSEWHERE}")
            }
            WriteProblem::NoPermission(d) => {
                format!(
                    "give this user write access to {}, {ELSEWHERE}",
                    d.display()
                )
            }
            WriteProblem::Symlink(p) => format!(
                "replace {} with a real directory (or set OMC_STATE_DIR to the directory it points to)",
                p.display()
            ),
            WriteProblem::DiskFull(_) => "free some space on that disk".to_string(),
            WriteProblem::NotADirectory(p) => {
                format!("move {} out of the way, {ELSEWHERE}", p.display())
            }
            WriteProblem::Busy => {
                "try again; if it keeps happening, look for a hung omc-hooks process".to_string()
            }
            WriteProblem::Other(_) => {
                format!("check the state directory's disk and permissions, {ELSEWHERE}")
            }
        }
    }
}

/// Checks that the hooks could write state for this project right now: no symlink on the state
/// directory's path, and a small probe file can be written, synced and removed in the deepest
/// existing directory on that path. Leaves nothing behind.
pub fn probe(root: &Root) -> Result<(), WriteProblem> {
    let omc = &root.omc;
    let chain = [omc.clone(), omc.join("state"), omc.join("state/sessions")];
    let mut deepest: Option<PathBuf> = None;
    for dir in &chain {
        match std::fs::symlink_metadata(dir) {
            Ok(m) if m.file_type().is_symlink() => return Err(WriteProblem::Symlink(dir.clone())),
            Ok(m) if m.is_dir() => deepest = Some(dir.clone()),
            Ok(_) => return Err(WriteProblem::NotADirectory(dir.clone())),
            Err(_) => break,
        }
    }
    // Nothing of `.omc` exists yet: the first hook will create it in the nearest existing
    // ancestor, so that is where writing must work.
    let target = match deepest {
        Some(d) => d,
        None => match omc.ancestors().skip(1).find(|a| a.is_dir()) {
            Some(a) => a.to_path_buf(),
            None => {
                return Err(WriteProblem::Other(format!(
                    "{} has no existing parent",
                    omc.display()
                )));
            }
        },
    };
    let attempt = || -> io::Result<()> {
        let mut f = tempfile::Builder::new()
            .prefix(".tmp-probe-")
            .tempfile_in(&target)?;
        f.write_all(&[0u8; 4096])?;
        f.as_file().sync_all()?;
        f.close()
    };
    attempt().map_err(|e| WriteProblem::from_io(&e, &target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(dir: &Path) -> Root {
        Root {
            project: dir.to_path_buf(),
            omc: dir.join(".omc"),
        }
    }

    #[test]
    fn a_healthy_project_passes_and_keeps_nothing() {
        let t = tempfile::tempdir().unwrap();
        assert_eq!(probe(&root(t.path())), Ok(()));
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
        std::fs::create_dir_all(t.path().join(".omc/state")).unwrap();
        assert_eq!(probe(&root(t.path())), Ok(()));
        assert_eq!(
            std::fs::read_dir(t.path().join(".omc/state"))
                .unwrap()
                .count(),
            0
        );
    }

    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn a_symlinked_state_dir_and_a_file_in_the_way_are_named() {
        let t = tempfile::tempdir().unwrap();
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::create_dir_all(t.path().join(".omc")).unwrap();
        crate::platform::symlink(&elsewhere, t.path().join(".omc/state")).unwrap();
        let p = probe(&root(t.path())).unwrap_err();
        assert_eq!(p, WriteProblem::Symlink(t.path().join(".omc/state")));
        assert!(p.cause().contains("is a symlink"), "{}", p.cause());
        assert!(p.fix().contains("real directory"));
        let u = tempfile::tempdir().unwrap();
        std::fs::write(u.path().join(".omc"), b"x").unwrap();
        assert_eq!(
            probe(&root(u.path())),
            Err(WriteProblem::NotADirectory(u.path().join(".omc")))
        );
    }

    #[test]
    fn io_errors_map_to_causes() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let e = |code| io::Error::from_raw_os_error(code);
        assert_eq!(
            WriteProblem::from_io(&e(30), d),
            WriteProblem::ReadOnly(d.into())
        );
        assert_eq!(
            WriteProblem::from_io(&e(28), d),
            WriteProblem::DiskFull(d.into())
        );
        assert_eq!(
            WriteProblem::from_io(&e(13), d),
            WriteProblem::NoPermission(d.into())
        );
        // A state directory that does not exist yet: the failure is in its existing parent.
        assert_eq!(
            WriteProblem::from_io(&e(30), &d.join(".omc/state")),
            WriteProblem::ReadOnly(d.into())
        );
        let link = io::Error::new(
            io::ErrorKind::PermissionDenied,
            SymlinkRefused("/p/.omc/state".into()),
        );
        assert_eq!(
            WriteProblem::from_io(&link, d),
            WriteProblem::Symlink("/p/.omc/state".into())
        );
    }
}
