//! Session starts kept outside the project until the project has a `.omc/`.
//!
//! SessionEnd measures a session from its SessionStart (`session.json`). In a project with no
//! `.omc/` yet, creating one at SessionStart would put an untracked directory into the git
//! status the agent shows the model in its first request (Claude Code takes that snapshot
//! while SessionStart hooks run, so no ordering can be relied on — seen with settings-installed
//! hooks). So the start is written here instead, in the user's state directory
//! (`$XDG_STATE_HOME/omc-hooks/session-starts/`, else `~/.local/state/…`), one small file per
//! project and session, and SessionEnd takes it back. Files older than [`KEEP_MS`] (sessions
//! whose end never came, e.g. Qwen Code headless) are pruned when a new one is written.

use super::fs::{ensure_dir, read_regular, write_atomic};
use super::session::SessionId;
use crate::env::Env;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How long an unclaimed start is kept.
pub const KEEP_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// The directory, from `XDG_STATE_HOME` (absolute only) or `HOME`.
pub fn dir(env: &Env) -> Option<PathBuf> {
    let abs = |k: &str| env.var(k).map(PathBuf::from).filter(|p| p.is_absolute());
    let base = abs("XDG_STATE_HOME").or_else(|| abs("HOME").map(|h| h.join(".local/state")))?;
    Some(base.join("omc-hooks").join("session-starts"))
}

/// The file for `project` and `session`: a hash of the project path keeps two projects'
/// sessions of the same id apart.
fn file(env: &Env, project: &Path, session: &SessionId) -> Option<PathBuf> {
    Some(dir(env)?.join(format!("{}-{session}.json", project_hash(project))))
}

/// 64-bit FNV-1a of the path's bytes, as 16 hex digits: it only has to keep projects apart in
/// one user's directory. (A SHA-256 did the same at the cost of probing the CPU for its fast
/// path in every SessionStart and SessionEnd process: slow in a virtual machine.)
fn project_hash(project: &Path) -> String {
    let h = project
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("{h:016x}")
}

/// Every session of `project` with a start kept here (its id and record).
pub fn sessions(env: &Env, project: &Path) -> Vec<(SessionId, serde_json::Value)> {
    let Some(dir) = dir(env) else {
        return Vec::new();
    };
    let prefix = format!("{}-", project_hash(project));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(id) = name
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".json"))
            .and_then(SessionId::parse)
        else {
            continue;
        };
        if let Some(v) = read_regular(&e.path())
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok())
        {
            out.push((id, v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Records `value` for the session; prunes starts older than [`KEEP_MS`].
pub fn record(
    env: &Env,
    project: &Path,
    session: &SessionId,
    value: &serde_json::Value,
) -> std::io::Result<()> {
    let path = file(env, project, session)
        .ok_or_else(|| std::io::Error::other("no state directory (HOME unset)"))?;
    let dir = path.parent().expect("a file in a directory");
    let base = dir.parent().expect("omc-hooks/session-starts");
    ensure_dir(base, Path::new("session-starts"))?;
    prune(dir, &path);
    write_atomic(&path, &super::redacted_json(value)?)
}

/// The start recorded for the session, removed as it is read.
pub fn take(env: &Env, project: &Path, session: &SessionId) -> Option<serde_json::Value> {
    let path = file(env, project, session)?;
    let bytes = read_regular(&path).ok().flatten()?;
    let _ = std::fs::remove_file(&path);
    serde_json::from_slice(&bytes).ok()
}

/// The start recorded for the session, left in place.
pub fn peek(env: &Env, project: &Path, session: &SessionId) -> Option<serde_json::Value> {
    let bytes = read_regular(&file(env, project, session)?).ok().flatten()?;
    serde_json::from_slice(&bytes).ok()
}

fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let limit = Duration::from_millis(KEEP_MS);
    for e in entries.flatten() {
        let p = e.path();
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > limit);
        if old && p != keep && p.extension().is_some_and(|x| x == "json") {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn the_project_hash_is_fnv1a_64() {
        // Published FNV-1a test vectors.
        assert_eq!(project_hash(Path::new("")), "cbf29ce484222325");
        assert_eq!(project_hash(Path::new("a")), "af63dc4c8601ec8c");
        assert_eq!(project_hash(Path::new("foobar")), "85944171f73967e8");
        assert_ne!(
            project_hash(Path::new("/p/one")),
            project_hash(Path::new("/p/two"))
        );
    }

    fn env_with(state: &Path) -> Env {
        let extra: HashMap<String, String> =
            [("XDG_STATE_HOME".to_string(), state.display().to_string())].into();
        Env::from_lookup(|_| None, None, extra)
    }

    #[test]
    fn a_start_is_kept_per_project_and_taken_once() {
        let t = tempfile::tempdir().unwrap();
        let env = env_with(t.path());
        let sid = SessionId::parse("s1").unwrap();
        let (a, b) = (Path::new("/p/a"), Path::new("/p/b"));
        record(&env, a, &sid, &serde_json::json!({"started_at": "A"})).unwrap();
        record(&env, b, &sid, &serde_json::json!({"started_at": "B"})).unwrap();
        assert_eq!(peek(&env, a, &sid).unwrap()["started_at"], "A");
        let listed = sessions(&env, a);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].0, sid);
        assert_eq!(take(&env, b, &sid).unwrap()["started_at"], "B");
        assert!(take(&env, b, &sid).is_none(), "taken once");
        assert_eq!(take(&env, a, &sid).unwrap()["started_at"], "A");
    }

    #[test]
    fn without_a_home_nothing_is_recorded() {
        let env = Env::from_lookup(|_| None, None, HashMap::new());
        let sid = SessionId::parse("s1").unwrap();
        assert!(record(&env, Path::new("/p"), &sid, &serde_json::json!({})).is_err());
        assert!(peek(&env, Path::new("/p"), &sid).is_none());
    }
}
