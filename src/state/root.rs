//! Where a project's state lives (contract §4).
//!
//! First that applies: `OMC_STATE_DIR` (replaces `.omc`), `CLAUDE_PROJECT_DIR`, the nearest
//! ancestor of the payload's `cwd` holding `.omc/` or `.git`, then `cwd` itself. A hook fired
//! from a subdirectory therefore never creates a second `.omc` there.

use crate::env::Env;
use std::path::{Path, PathBuf};

/// The project a hook acts on and the directory that holds its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub project: PathBuf,
    pub omc: PathBuf,
}

/// Resolves the root for a payload's `cwd` (which may be absent or unusable).
pub fn resolve(env: &Env, payload_cwd: Option<&str>) -> Option<Root> {
    let cwd = payload_cwd
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.is_dir())
        .or_else(|| env.process_cwd.clone().filter(|p| p.is_absolute()));
    let project = env
        .project_dir
        .clone()
        .filter(|p| p.is_dir())
        .or_else(|| cwd.as_deref().and_then(nearest_marked_ancestor))
        .or(cwd)?;
    let omc = env
        .state_dir
        .clone()
        .unwrap_or_else(|| project.join(".omc"));
    Some(Root { project, omc })
}

/// The nearest ancestor of `dir` (itself included) that holds `.omc/` or `.git`.
fn nearest_marked_ancestor(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|a| a.join(".omc").is_dir() || a.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn unmarked_cwd_is_its_own_root_and_relative_cwd_is_ignored() {
        let t = tempfile::tempdir().unwrap();
        let r = resolve(&env(None, None), t.path().to_str());
        // The temp dir may sit below a marked directory on some machines; it must be t or above.
        assert!(t.path().starts_with(r.unwrap().project));
        assert_eq!(resolve(&env(None, None), Some("relative/dir")), None);
    }
}
