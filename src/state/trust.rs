//! Which project `hooks.toml` files the user has trusted: `trusted.json` in the user's
//! omc-hooks config directory (`state-schema/trusted.schema.json`), never in the project — a
//! cloned repository cannot trust itself.
//!
//! Trust is for one file at one place with exactly the bytes it had: the key is the file's
//! canonical path, the value the SHA-256 of its bytes. Any edit, by anyone, makes it untrusted
//! until `omc-hooks trust` is run again. A `trusted.json` that does not parse trusts nothing
//! (it is moved aside, so the next `trust` does not write over it).

use crate::env::Env;
use crate::state::fs as sfs;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

pub const FILE: &str = "trusted.json";
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustFile {
    pub schema_version: u32,
    pub files: Vec<Trusted>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trusted {
    /// Canonical absolute path of the trusted `hooks.toml`.
    pub path: String,
    /// SHA-256 (lowercase hex) of its bytes when it was trusted.
    pub sha256: String,
    /// When (`YYYY-MM-DDTHH:MM:SS.sssZ`).
    pub trusted_at: String,
    /// Who: the user name (`USER`, else `LOGNAME`) and uid of the process that recorded it.
    /// Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trusted_by: Option<String>,
    /// How the person said so: `terminal` (answered yes at the prompt) or `--yes`, then
    /// `, no agent above` (no process above `trust` was an agent's) or `, parents not
    /// checked` (they cannot be read on this system); neither in a record written before
    /// they were checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<String>,
}

impl Trusted {
    /// "by alice (uid 1000) on 2026-12-03T13:45:00.000Z, confirmed at a terminal", for
    /// `doctor` and `trust --list`.
    pub fn who_and_when(&self) -> String {
        let how = match self.confirmed.as_deref() {
            None => String::new(),
            Some(c) => {
                let (how, checked) = c.split_once(", ").unwrap_or((c, ""));
                let how = match how {
                    "terminal" => "confirmed at a terminal".to_string(),
                    other => format!("confirmed with {other}"),
                };
                let checked = match checked {
                    "no agent above" => ", no agent among its parent processes",
                    "parents not checked" => ", its parent processes not checked on this system",
                    _ => " (before parent processes were checked)",
                };
                format!(", {how}{checked}")
            }
        };
        format!(
            "by {} on {}{how}",
            self.trusted_by.as_deref().unwrap_or("(not recorded)"),
            self.trusted_at
        )
    }
}

/// The person recording trust, as [`Trusted::trusted_by`] names them.
pub fn current_user(env: &Env) -> String {
    let id = crate::platform::user_id();
    let name = crate::platform::USER_NAME_VARS
        .iter()
        .find_map(|k| env.lookup(k))
        .filter(|u| !u.trim().is_empty());
    match (name, id) {
        (Some(name), Some(id)) => format!("{} ({id})", name.trim()),
        (Some(name), None) => name.trim().to_string(),
        (None, Some(id)) => id,
        (None, None) => "(unknown user)".to_string(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Trusted,
    /// Never trusted.
    Untrusted,
    /// Trusted once, with other bytes.
    Changed,
}

/// `<user config dir>/trusted.json`.
pub fn store_path(env: &Env) -> Option<PathBuf> {
    crate::env::user_config_dir(env).map(|d| d.join(FILE))
}

/// The key a file is trusted under: its canonical path (the directory is resolved, the file
/// itself must not be a link — the loader refuses those).
pub fn key(path: &Path) -> String {
    let canonical = match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => crate::platform::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    };
    canonical.to_string_lossy().into_owned()
}

/// The recorded trust (empty when there is none or it cannot be read).
pub fn read(env: &Env) -> TrustFile {
    let Some(path) = store_path(env) else {
        return TrustFile::default();
    };
    read_at(&path, env.now_ms())
}

fn read_at(path: &Path, now_ms: i64) -> TrustFile {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return TrustFile::default(),
        Err(e) => {
            crate::diag!(
                "cannot read {}: {e}; no project hooks are trusted",
                path.display()
            );
            return TrustFile::default();
        }
    };
    match serde_json::from_slice::<TrustFile>(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let aside = sfs::quarantine(path, &crate::time::stamp(now_ms));
            crate::diag!(
                "{} is not valid ({e}); no project hooks are trusted{}",
                path.display(),
                match aside {
                    Ok(p) => format!("; moved aside to {}", p.display()),
                    Err(_) => String::new(),
                }
            );
            TrustFile::default()
        }
    }
}

/// Whether `path` with these bytes' hash is trusted.
pub fn status(env: &Env, path: &Path, sha256: &str) -> Status {
    status_in(&read(env), &key(path), sha256)
}

pub fn status_in(file: &TrustFile, key: &str, sha256: &str) -> Status {
    match file.files.iter().find(|t| t.path == key) {
        Some(t) if t.sha256 == sha256 => Status::Trusted,
        Some(_) => Status::Changed,
        None => Status::Untrusted,
    }
}

/// Records `path` as trusted with `sha256` (replacing an earlier hash for it), by the current
/// user, `confirmed` as given (`terminal` or `--yes`).
pub fn record(env: &Env, path: &Path, sha256: &str, confirmed: &str) -> io::Result<PathBuf> {
    let key = key(path);
    let trusted_at = crate::time::iso(env.now_ms());
    let sha256 = sha256.to_string();
    let trusted_by = Some(current_user(env));
    let confirmed = Some(confirmed.to_string());
    update(env, move |t| {
        t.files.retain(|f| f.path != key);
        t.files.push(Trusted {
            path: key,
            sha256,
            trusted_at,
            trusted_by,
            confirmed,
        });
        true
    })
}

/// The record for `path`, if it is trusted (with any bytes).
pub fn entry_in<'a>(file: &'a TrustFile, key: &str) -> Option<&'a Trusted> {
    file.files.iter().find(|t| t.path == key)
}

/// Forgets `path`; `Ok(false)` when it was not trusted.
pub fn revoke(env: &Env, path: &Path) -> io::Result<bool> {
    let key = key(path);
    let mut removed = false;
    update(env, |t| {
        let before = t.files.len();
        t.files.retain(|f| f.path != key);
        removed = t.files.len() != before;
        removed
    })?;
    Ok(removed)
}

/// Locked read-modify-write of `trusted.json`; `f` returns whether to write.
fn update(env: &Env, f: impl FnOnce(&mut TrustFile) -> bool) -> io::Result<PathBuf> {
    let path = store_path(env).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "neither XDG_CONFIG_HOME nor HOME is set: nowhere to record trust",
        )
    })?;
    let dir = path.parent().expect("a file in a directory");
    // The user's own config directory: following a symlink there is theirs to decide.
    crate::platform::private_dir_builder()
        .recursive(true)
        .create(dir)?;
    let _lock = sfs::lock_for(&path)?;
    let mut file = read_at(&path, env.now_ms());
    file.schema_version = SCHEMA_VERSION;
    if f(&mut file) {
        let mut bytes = serde_json::to_vec_pretty(&file)?;
        bytes.push(b'\n');
        sfs::write_atomic(&path, &bytes)?;
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(config: &Path) -> Env {
        let mut extra = HashMap::new();
        extra.insert(
            "XDG_CONFIG_HOME".to_string(),
            config.to_string_lossy().into_owned(),
        );
        Env::from_lookup(|_| None, None, extra)
    }

    #[test]
    fn trust_change_and_revoke() {
        let t = tempfile::tempdir().unwrap();
        let e = env(&t.path().join("cfg"));
        let file = t.path().join("hooks.toml");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(status(&e, &file, "aa"), Status::Untrusted);
        record(&e, &file, "aa", "--yes").unwrap();
        assert_eq!(status(&e, &file, "aa"), Status::Trusted);
        assert_eq!(status(&e, &file, "bb"), Status::Changed);
        record(&e, &file, "bb", "terminal").unwrap();
        let t0 = read(&e).files[0].clone();
        assert_eq!(t0.confirmed.as_deref(), Some("terminal"));
        #[cfg(unix)]
        assert!(t0.trusted_by.as_deref().is_some_and(|b| b.contains("uid ")));
        assert!(t0.trusted_by.as_deref().is_some_and(|b| !b.is_empty()));
        assert_eq!(read(&e).files.len(), 1);
        assert!(revoke(&e, &file).unwrap());
        assert!(!revoke(&e, &file).unwrap());
        assert_eq!(status(&e, &file, "bb"), Status::Untrusted);
    }

    #[test]
    fn a_corrupt_store_trusts_nothing_and_is_moved_aside() {
        let t = tempfile::tempdir().unwrap();
        let e = env(t.path());
        std::fs::create_dir_all(t.path().join("omc-hooks")).unwrap();
        let store = t.path().join("omc-hooks/trusted.json");
        std::fs::write(&store, "{not json").unwrap();
        let file = t.path().join("hooks.toml");
        assert_eq!(status(&e, &file, "aa"), Status::Untrusted);
        assert!(!store.exists());
    }

    #[cfg_attr(
        windows,
        ignore = "Wine 8 makes no link std sees as one: real Windows only"
    )]
    #[test]
    fn the_key_resolves_the_directory() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("real")).unwrap();
        crate::platform::symlink(t.path().join("real"), t.path().join("link")).unwrap();
        assert_eq!(
            key(&t.path().join("link/hooks.toml")),
            key(&t.path().join("real/hooks.toml"))
        );
    }
}
