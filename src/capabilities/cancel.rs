//! Cancelling a session's runs: every persistent mode of the session is ended (`active:false`,
//! `ended_reason:"cancelled"`) and every skill guard released, in one place, so the keyword,
//! the CLI and anything else that cancels behave identically.
//!
//! Honest when the state cannot be written (issue 30): only a run that exists and is active is
//! touched (looking needs no write; a mode without a run is not "NOT ended"). When its file
//! cannot be rewritten — a full disk — it is moved aside instead (`<name>.cancelled-<stamp>`),
//! a rename that needs no new space: the run is over for every hook, also once space is
//! freed. When not even that can be done — a read-only file system — the run is reported as
//! not ended, with why and the fix; the Stop hook cannot continue it meanwhile either, since
//! it cannot record an iteration.

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
    /// How to fix what stopped [`Cancelled::failed`] (the first problem's fix).
    pub fix: Option<String>,
    /// Runs ended by moving their file aside, each as a sentence for the person.
    pub notes: Vec<String>,
}

impl Cancelled {
    pub fn is_empty(&self) -> bool {
        self.modes.is_empty() && !self.skill_guards && self.failed.is_empty()
    }

    /// What the person is told when something could not be ended: the runs, why, and the fix.
    pub fn failure_note(&self) -> Option<String> {
        (!self.failed.is_empty()).then(|| {
            format!(
                "could not end {}. {}",
                self.failed.join("; "),
                self.what_now()
            )
        })
    }

    /// The fix for what could not be ended, and what holds meanwhile.
    pub fn what_now(&self) -> String {
        format!(
            "{}, then cancel again. Until then the Stop hook cannot continue it either: it \
             cannot record an iteration.",
            capitalised(
                self.fix
                    .as_deref()
                    .unwrap_or("make the state directory writable")
            )
        )
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Whether [`cancel_scope`] would find anything to end in `scope`: an active persistent mode or a
/// skill guard. A stop said in the person's own words is acted on only then.
pub fn anything_to_cancel(store: &Store, scope: &Scope) -> bool {
    let active = PERSISTENT.iter().any(|mode| {
        StateFile::new(scope, &state_file_name(mode))
            .and_then(|file| store.read::<ModeState>(&file))
            .is_some_and(|s| s.active)
    });
    active || StateFile::new(scope, SKILL_STACK_FILE).is_some_and(|file| store.path(&file).exists())
}

/// Ends every active persistent mode and releases every skill guard in `scope`.
pub fn cancel_scope(store: &Store, scope: &Scope, now_iso: &str) -> Cancelled {
    let mut out = Cancelled::default();
    // The person's own stop hooks are not relayed either, until their next prompt.
    if scope.session_id().is_some() {
        super::persistent_mode::progress::hold_user_blocks(store, scope);
    }
    for mode in PERSISTENT {
        let Some(file) = StateFile::new(scope, &state_file_name(mode)) else {
            continue;
        };
        if !store.read::<ModeState>(&file).is_some_and(|s| s.active) {
            continue;
        }
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
                let problem = WriteProblem::from_io(&e, store.omc_dir());
                match store.set_aside(&file, "cancelled") {
                    Ok(aside) => {
                        out.modes.push(mode.to_string());
                        out.notes.push(format!(
                            "{mode}'s file could not be rewritten because {}, so it was moved \
                             aside to {}: the run is over",
                            problem.cause(),
                            aside.display()
                        ));
                    }
                    Err(e) => {
                        crate::diag!("cancel {mode}: cannot move its file aside either: {e}");
                        out.failed
                            .push(format!("{mode} (because {})", problem.cause()));
                        out.fix.get_or_insert_with(|| problem.fix());
                    }
                }
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
                let problem = WriteProblem::from_io(&e, store.omc_dir());
                out.failed
                    .push(format!("the skill guards (because {})", problem.cause()));
                out.fix.get_or_insert_with(|| problem.fix());
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
