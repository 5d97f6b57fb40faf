//! Where a project's state lives (contract §4).
//!
//! First that applies: `OMC_STATE_DIR` (replaces `.omc`), `CLAUDE_PROJECT_DIR`, the nearest
//! ancestor of the payload's `cwd` holding `.omc/` or `.git`, then `cwd` itself. A hook fired
//! from a subdirectory therefore never creates a second `.omc` there.
//!
//! A payload that names a `cwd` which is not an existing absolute directory names no project:
//! the hook's own working directory is no stand-in for it (it can be anywhere — a shared
//! temporary folder once collected the `.omc/` of every project without `.git` run from it).
//! Only a payload with no `cwd` at all (and the commands, which have none) use the process's.
//!
//! State is never kept at the filesystem root, and a `.omc` there or in the home directory
//! (not a repository itself) is never taken up by a directory below it.

use crate::env::Env;
use std::path::{Path, PathBuf};

/// The project a hook acts on and the directory that holds its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub project: PathBuf,
    pub omc: PathBuf,
}

/// What a hook finds for a payload's `cwd`, each path looked up once.
#[derive(Debug)]
pub enum Found<'a> {
    /// The project's root, or none (no `cwd` at all).
    Project(Option<Root>),
    /// The payload's `cwd` names no existing absolute directory, and nothing else
    /// (`CLAUDE_PROJECT_DIR`) names the project: the hook has no project and does nothing, with
    /// a diagnostic.
    UnusableCwd(&'a str),
    /// The project would be the filesystem root (a payload `cwd` of `/`, as root): no state is
    /// kept there — a `/.omc` would be taken up by every project without its own `.git` below
    /// it — so the hook is a no-op, with a diagnostic (unless `OMC_STATE_DIR` puts the state
    /// elsewhere).
    FilesystemRoot,
}

/// Finds the project for a payload's `cwd` (which may be absent or unusable): the directory
/// `CLAUDE_PROJECT_DIR` names, else the nearest ancestor of the `cwd` with `.git` or `.omc/`,
/// else the `cwd` itself.
pub fn find<'a>(env: &Env, payload_cwd: Option<&'a str>) -> Found<'a> {
    let given = payload_cwd.filter(|c| !c.trim().is_empty());
    let cwd = match given {
        Some(c) => usable(c),
        None => env.process_cwd.clone().filter(|p| p.is_absolute()),
    };
    let named = env.project_dir.clone().filter(|p| p.is_dir());
    if let Some(c) = given
        && named.is_none()
        && cwd.is_none()
    {
        return Found::UnusableCwd(c);
    }
    let home = env.lookup("HOME").map(PathBuf::from);
    let project = named
        .or_else(|| {
            cwd.as_deref()
                .and_then(|c| nearest_marked_ancestor(c, home.as_deref()))
        })
        .or(cwd);
    match project {
        Some(p) if env.state_dir.is_none() && is_filesystem_root(&p) => Found::FilesystemRoot,
        Some(project) => {
            let omc = env
                .state_dir
                .clone()
                .unwrap_or_else(|| project.join(".omc"));
            Found::Project(Some(Root { project, omc }))
        }
        None => Found::Project(None),
    }
}

/// Resolves the root for a payload's `cwd` ([`find`]); `None` where there is none to use.
pub fn resolve(env: &Env, payload_cwd: Option<&str>) -> Option<Root> {
    match find(env, payload_cwd) {
        Found::Project(root) => root,
        Found::UnusableCwd(_) | Found::FilesystemRoot => None,
    }
}

fn is_filesystem_root(p: &Path) -> bool {
    p.parent().is_none()
}

/// A payload's `cwd` as a directory: absolute and existing, else `None`.
fn usable(cwd: &str) -> Option<PathBuf> {
    Some(PathBuf::from(cwd)).filter(|p| p.is_absolute() && p.is_dir())
}

/// The nearest ancestor of `dir` (itself included) that holds `.omc/` or `.git`. Never the
/// filesystem root, and never the home directory from below unless it is a repository itself
/// (a dotfiles checkout): their `.omc` — made by an agent once run there — is no project's
/// that happens to lie beneath, and a project without its own `.git` keeps its own state.
fn nearest_marked_ancestor(dir: &Path, home: Option<&Path>) -> Option<PathBuf> {
    dir.ancestors()
        .filter(|a| !is_filesystem_root(a))
        .find(|a| {
            if a.join(".git").exists() {
                return true;
            }
            let shared_home = home == Some(*a) && *a != dir;
            !shared_home && a.join(".omc").is_dir()
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_filesystem_root(env: &Env, payload_cwd: Option<&str>) -> bool {
        matches!(find(env, payload_cwd), Found::FilesystemRoot)
    }

    fn unusable_cwd<'a>(env: &Env, payload_cwd: Option<&'a str>) -> Option<&'a str> {
        match find(env, payload_cwd) {
            Found::UnusableCwd(c) => Some(c),
            _ => None,
        }
    }
    use std::collections::HashMap;

    fn env(project: Option<&Path>, state: Option<&Path>) -> Env {
        let mut vars = HashMap::new();
        if let Some(p) = project {
            vars.insert("CLAUDE_PROJECT_DIR", p.to_string_lossy().into_owned());
        }
        if let Some(s) = state {
            vars.insert("OMC_STATE_DIR", s.to_string_lossy().into_owned());
        }
        Env::from_lookup(|k| vars.get(k).cloned(), None, HashMap::new())
    }

    #[test]
    fn subdirectory_resolves_to_the_git_root() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join(".git")).unwrap();
        let sub = t.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let r = resolve(&env(None, None), sub.to_str()).unwrap();
        assert_eq!(r.project, t.path());
        assert_eq!(r.omc, t.path().join(".omc"));
    }

    #[test]
    fn nearest_omc_wins_over_a_farther_git() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join(".git")).unwrap();
        let inner = t.path().join("inner");
        std::fs::create_dir_all(inner.join(".omc")).unwrap();
        let r = resolve(&env(None, None), inner.join("x").parent().unwrap().to_str()).unwrap();
        assert_eq!(r.project, inner);
    }

    #[test]
    fn project_dir_then_state_dir() {
        let p = tempfile::tempdir().unwrap();
        let s = tempfile::tempdir().unwrap();
        let r = resolve(&env(Some(p.path()), Some(s.path())), Some("/")).unwrap();
        assert_eq!(r.project, p.path());
        assert_eq!(r.omc, s.path());
    }

    #[test]
    fn a_cwd_that_is_no_directory_names_no_project() {
        let t = tempfile::tempdir().unwrap();
        let mut e = env(None, None);
        e.process_cwd = Some(t.path().to_path_buf());
        for bad in ["/nonexistent/omc-hooks-test-dir", "relative/dir", "."] {
            assert_eq!(resolve(&e, Some(bad)), None, "{bad}");
            assert_eq!(unusable_cwd(&e, Some(bad)), Some(bad));
        }
        // No cwd at all: the process's (the commands, payloads without one).
        assert!(resolve(&e, None).is_some());
        assert!(resolve(&e, Some("")).is_some());
        assert_eq!(unusable_cwd(&e, None), None);
        // CLAUDE_PROJECT_DIR names the project whatever the cwd says.
        let p = tempfile::tempdir().unwrap();
        let e = env(Some(p.path()), None);
        assert_eq!(
            resolve(&e, Some("/nonexistent/x")).unwrap().project,
            p.path()
        );
        assert_eq!(unusable_cwd(&e, Some("/nonexistent/x")), None);
    }

    #[test]
    fn unmarked_cwd_is_its_own_root_and_relative_cwd_is_ignored() {
        let t = tempfile::tempdir().unwrap();
        let r = resolve(&env(None, None), t.path().to_str());
        // The temp dir may sit below a marked directory on some machines; it must be t or above.
        assert!(t.path().starts_with(r.unwrap().project));
        assert_eq!(resolve(&env(None, None), Some("relative/dir")), None);
    }

    #[test]
    fn the_filesystem_root_is_never_a_project() {
        // (On Windows `/` has no drive, so it is no absolute path: a drive's root is.)
        let root = if cfg!(windows) { r"C:\" } else { "/" };
        let e = env(None, None);
        assert_eq!(resolve(&e, Some(root)), None);
        assert!(at_filesystem_root(&e, Some(root)));
        // With the state put elsewhere, it may be.
        let s = tempfile::tempdir().unwrap();
        let e = env(None, Some(s.path()));
        assert_eq!(resolve(&e, Some(root)).unwrap().omc, s.path());
        assert!(!at_filesystem_root(&e, Some(root)));
    }

    #[test]
    fn a_home_omc_is_not_taken_up_from_below_unless_home_is_a_repository() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".omc")).unwrap();
        let work = home.path().join("scratch");
        std::fs::create_dir(&work).unwrap();
        let mut extra = HashMap::new();
        extra.insert(
            "HOME".to_string(),
            home.path().to_string_lossy().into_owned(),
        );
        let e = Env::from_lookup(|_| None, None, extra);
        assert_eq!(resolve(&e, work.to_str()).unwrap().project, work);
        // Home itself still is its own project when the agent runs there.
        assert_eq!(
            resolve(&e, home.path().to_str()).unwrap().project,
            home.path()
        );
        // A dotfiles repository at home is a project like any other.
        std::fs::create_dir(home.path().join(".git")).unwrap();
        assert_eq!(resolve(&e, work.to_str()).unwrap().project, home.path());
    }
}
