//! Cancelling a session's runs: every persistent mode of the session is ended (`active:false`,
//! `ended_reason:"cancelled"`) and every skill guard released, in one place, so the keyword,
//! the CLI and anything else that cancels behave identically.

use crate::modes::{PERSISTENT, state_file_name};
use crate::state::files::ModeState;
use crate::state::health::WriteProblem;
use crate::state::{Change, Scope, StateFile, Store};

/// The name of the skill-guard stack file in a session directory.
pub const SKILL_STACK_FILE: &str = "skill-active-state.json";

/// What a cancel did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Cancelled {
    /// Persistent modes that were active and are now ended.
    pub modes: Vec<String>,
    /// Whether a skill-guard stack was released.
    pub skill_guards: bool,
    /// What could not be ended, each as "ralph (because …)": a failed write is never reported
    /// as a cancel, nor as "nothing was running".
    pub failed: Vec<String>,
}

impl Cancelled {
    pub fn is_empty(&self) -> bool {
        self.modes.is_empty() && !self.skill_guards && self.failed.is_empty()
    }
}

/// Whether [`cancel_scope`] would find anything to end in `scope`: an active persistent mode or a
/// skill guard. A stop said in the person's own words is acted on only then.
pub fn anything_to_cancel(store: &Store, scope: &Scope) -> bool {
    let active = PERSISTENT.iter().any(|mode| {
        StateFile::new(scope, &state_file_name(mode))
            .and_then(|file| store.read::<ModeState>(&file))
            .is_some_and(|s| s.active)
    });
    active
        || StateFile::new(scope, SKILL_STACK_FILE).is_some_and(|file| store.path(&file).exists())
}

/// Ends every active persistent mode and releases every skill guard in `scope`.
pub fn cancel_scope(store: &Store, scope: &Scope, now_iso: &str) -> Cancelled {
    let mut out = Cancelled::default();
    for mode in PERSISTENT {
        let Some(file) = StateFile::new(scope, &state_file_name(mode)) else {
            continue;
        };
        let ended = store.update(&file, |s: Option<ModeState>| match s {
            Some(mut s) if s.active => {
                s.end("cancelled", now_iso);
                (Change::Write(s), true)
            }
            _ => (Change::Keep, false),
        });
        match ended {
            Ok(true) => out.modes.push(mode.to_string()),
            Ok(false) => {}
            Err(e) => {
                crate::diag!("cancel {mode}: {e}");
                let why = WriteProblem::from_io(&e, store.omc_dir()).cause();
                out.failed.push(format!("{mode} (because {why})"));
            }
        }
    }
    if let Some(file) = StateFile::new(scope, SKILL_STACK_FILE)
        && store.path(&file).exists()
    {
        match store.remove(&file) {
            Ok(()) => out.skill_guards = true,
            Err(e) => {
                crate::diag!("cancel skill guards: {e}");
                let why = WriteProblem::from_io(&e, store.omc_dir()).cause();
                out.failed.push(format!("the skill guards (because {why})"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Root;

    #[test]
    fn cancel_ends_active_modes_and_releases_guards() {
        let t = tempfile::tempdir().unwrap();
        let store = Store::new(
            Root {
                project: t.path().into(),
                omc: t.path().join(".omc"),
            },
            0,
        );
        let scope = Scope::for_session(Some("s1"));
        let ralph = StateFile::new(&scope, "ralph-state.json").unwrap();
        store
            .write(
                &ralph,
                &ModeState::start("ralph", Some("s1"), "/p", "fix", "t0", 100),
            )
            .unwrap();
        let guards = StateFile::new(&scope, SKILL_STACK_FILE).unwrap();
        store
            .write(&guards, &serde_json::json!({"stack": []}))
            .unwrap();

        assert!(anything_to_cancel(&store, &scope));
        let c = cancel_scope(&store, &scope, "t1");
        assert_eq!(c.modes, vec!["ralph"]);
        assert!(c.skill_guards);
        let s: ModeState = store.read(&ralph).unwrap();
        assert!(!s.active);
        assert_eq!(s.ended_reason.as_deref(), Some("cancelled"));
        assert!(!store.path(&guards).exists());
        // A second cancel finds nothing to do.
        assert!(!anything_to_cancel(&store, &scope));
        assert!(cancel_scope(&store, &scope, "t2").is_empty());
    }
}
