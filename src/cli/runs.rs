//! A read-only view of a project's runs for `status`, `cancel` and `doctor`: per session, the
//! persistent modes, skill guards, last tool failure and suspended runs.
//!
//! Files are read raw and never moved aside (that is the hooks' job): the person asking for a
//! status should not change what the next hook sees. Files written by other capabilities
//! (the skill stack, the failure record) are read as generic JSON, tolerant of their shape.
//! Every string read is passed through [`crate::terminal::shown_value`] on the way in: a file
//! written by an older version, by OMC or by hand may hold a secret or an escape sequence, and
//! every command built on this view prints what it holds.

use crate::modes::{PERSISTENT, state_file_name};
use crate::state::files::ModeState;
use crate::state::{Scope, StateFile, Store};
use serde_json::Value;

/// A run goes stale after this long without activity (contract §6).
pub(super) const STALE_AFTER_MS: i64 = 2 * 60 * 60 * 1000;

/// One persistent mode's run.
#[derive(Debug, Clone)]
pub(super) struct Run {
    pub(super) mode: &'static str,
    pub(super) state: ModeState,
    pub(super) started_ms: Option<i64>,
    /// The newest of `last_checked_at` and `started_at`.
    pub(super) last_activity_ms: Option<i64>,
}

/// Ended runs are listed (by `status` and `status --all`) for a day.
const ENDED_SHOWN_MS: i64 = 24 * 60 * 60 * 1000;

impl Run {
    /// When the run ended, if it did and says when.
    pub(super) fn ended_ms(&self) -> Option<i64> {
        self.state
            .ended_at
            .as_deref()
            .and_then(crate::time::parse_iso)
    }

    /// Whether the run ended within the last day, so `status` lists it with its reason.
    pub(super) fn ended_recently(&self, now: i64) -> bool {
        self.ended_ms().is_some_and(|t| now - t < ENDED_SHOWN_MS)
    }

    /// Milliseconds until the run goes stale (≤ 0: stale). `None` when no time is recorded.
    pub(super) fn stale_in_ms(&self, now: i64) -> Option<i64> {
        self.last_activity_ms.map(|t| t + STALE_AFTER_MS - now)
    }

    pub(super) fn is_stale(&self, now: i64) -> bool {
        self.stale_in_ms(now).is_none_or(|ms| ms <= 0)
    }

    pub(super) fn is_suspended(&self) -> bool {
        self.state.suspended_at.is_some() && self.state.ended_at.is_none()
    }
}

/// One entry of the skill-guard stack.
#[derive(Debug, Clone)]
pub(super) struct Guard {
    pub(super) skill: String,
    pub(super) level: Option<String>,
    pub(super) expires_ms: Option<i64>,
    pub(super) reinforcements: Option<u64>,
    pub(super) max_reinforcements: Option<u64>,
}

impl Guard {
    pub(super) fn is_expired(&self, now: i64) -> bool {
        // As the skill-guard capability reads it: an unreadable expiry has lapsed.
        self.expires_ms.is_none_or(|t| t <= now)
            || matches!((self.reinforcements, self.max_reinforcements), (Some(r), Some(m)) if r >= m)
    }
}

/// The last tool failure.
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub(super) tool_name: String,
    pub(super) error: String,
    pub(super) retry_count: u64,
    pub(super) timestamp_ms: Option<i64>,
}

/// Everything about one scope (a session, or the session-less files).
#[derive(Debug, Clone)]
pub(super) struct SessionView {
    pub(super) scope: Scope,
    /// Active runs that are not suspended.
    pub(super) active: Vec<Run>,
    pub(super) suspended: Vec<Run>,
    /// Runs that ended (or were handed back) with a recorded reason.
    pub(super) ended: Vec<Run>,
    pub(super) guards: Vec<Guard>,
    /// The skill-stack file exists (cancel would release it).
    pub(super) guard_file: bool,
    pub(super) failure: Option<Failure>,
    /// State files here that do not parse (the hooks will move them aside).
    pub(super) unreadable: Vec<String>,
    /// The agent the session runs in, as its hooks recorded it (`agent.json`).
    pub(super) agent: Option<String>,
}

impl SessionView {
    /// The session id, or `None` for the session-less scope.
    pub(super) fn id(&self) -> Option<&str> {
        self.scope.session_id().map(|s| s.as_str())
    }

    /// A label for people (naming the agent when it is not Claude Code, the default).
    pub(super) fn label(&self) -> String {
        let agent = self
            .agent
            .as_deref()
            .filter(|a| *a != "claude")
            .map(|a| {
                crate::protocol::Agent::parse(a)
                    .map_or_else(|| a.to_string(), |a| a.client().into())
            })
            .map(|a| format!(" ({a})"))
            .unwrap_or_default();
        match self.id() {
            Some(id) => format!("session {id}{agent}"),
            None => "no session (session-less state)".to_string(),
        }
    }

    /// Whether `cancel` would change something here.
    pub(super) fn cancellable(&self) -> bool {
        self.guard_file
            || self
                .active
                .iter()
                .chain(&self.suspended)
                .any(|r| r.state.active)
    }

    /// Whether `status` has something to show for it.
    pub(super) fn worth_showing(&self, now: i64) -> bool {
        !self.active.is_empty()
            || !self.suspended.is_empty()
            || !self.guards.is_empty()
            || !self.unreadable.is_empty()
            || self
                .failure
                .as_ref()
                .is_some_and(|f| f.timestamp_ms.is_some_and(|t| now - t < STALE_AFTER_MS))
    }
}

fn read_json<T: serde::de::DeserializeOwned>(
    store: &Store,
    scope: &Scope,
    name: &str,
) -> Result<Option<T>, String> {
    let Some(file) = StateFile::new(scope, name) else {
        return Ok(None);
    };
    match crate::state::fs::read_regular(&store.path(&file)) {
        Ok(None) => Ok(None),
        Ok(Some(bytes)) => serde_json::from_slice::<Value>(&bytes)
            .and_then(|mut v| {
                crate::terminal::shown_value(&mut v);
                serde_json::from_value(v)
            })
            .map(Some)
            .map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

fn time_of(v: Option<&Value>) -> Option<i64> {
    match v? {
        Value::String(s) => crate::time::parse_iso(s),
        Value::Number(n) => n.as_i64(),
        _ => None,
    }
}

fn str_of(entry: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| entry.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

fn u64_of(entry: &Value, keys: &[&str]) -> Option<u64> {
    keys.iter()
        .find_map(|k| entry.get(*k).and_then(Value::as_u64))
}

/// Reads one scope.
pub(super) fn read_scope(store: &Store, scope: Scope) -> SessionView {
    let mut view = SessionView {
        scope,
        active: Vec::new(),
        suspended: Vec::new(),
        ended: Vec::new(),
        guards: Vec::new(),
        guard_file: false,
        failure: None,
        unreadable: Vec::new(),
        agent: None,
    };
    let scope = view.scope.clone();
    // The agent as of the session's last start, else as of its last recorded continuation.
    for file in [
        crate::capabilities::memory::session_start::MARKER,
        crate::capabilities::continuation::FILE,
    ] {
        if view.agent.is_none()
            && let Ok(Some(v)) = read_json::<Value>(store, &scope, file)
        {
            view.agent = str_of(&v, &["agent"]);
        }
    }
    for mode in PERSISTENT {
        let name = state_file_name(mode);
        match read_json::<ModeState>(store, &scope, &name) {
            Ok(Some(mut state)) => {
                // A file written by OMC has no `mode`: the file name says which it is, as the
                // Stop hook reads it — so the limit shown is the one Stop enforces.
                if state.mode != mode {
                    state.mode = mode.to_string();
                }
                let started_ms = state.started_at.as_deref().and_then(crate::time::parse_iso);
                let checked = state
                    .last_checked_at
                    .as_deref()
                    .and_then(crate::time::parse_iso);
                // Else the agent the run was started from (recorded in the run itself, as a
                // session in a project without `.omc/` has no `session.json`).
                if view.agent.is_none() {
                    view.agent = state
                        .extra
                        .get("agent")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
                let run = Run {
                    mode,
                    started_ms,
                    last_activity_ms: started_ms.max(checked),
                    state,
                };
                if run.is_suspended() {
                    view.suspended.push(run);
                } else if run.state.active {
                    view.active.push(run);
                } else if run.state.ended_reason.is_some() {
                    view.ended.push(run);
                }
            }
            Ok(None) => {}
            Err(_) => view.unreadable.push(name),
        }
    }
    let stack_name = crate::capabilities::cancel::SKILL_STACK_FILE;
    match read_json::<Value>(store, &scope, stack_name) {
        Ok(Some(v)) => {
            view.guard_file = true;
            let entries = v
                .get("stack")
                .and_then(Value::as_array)
                .cloned()
                .or_else(|| v.as_array().cloned())
                .unwrap_or_default();
            for e in entries.iter().filter(|e| e.is_object()) {
                view.guards.push(Guard {
                    skill: str_of(e, &["skill", "name", "skill_name"])
                        .unwrap_or_else(|| "(unnamed)".into()),
                    level: str_of(e, &["level", "protection"]),
                    expires_ms: time_of(e.get("expires_at")),
                    reinforcements: u64_of(e, &["reinforcements", "reinforcement_count"]),
                    max_reinforcements: u64_of(e, &["max_reinforcements"]),
                });
            }
        }
        Ok(None) => {}
        Err(_) => {
            view.guard_file = true;
            view.unreadable.push(stack_name.to_string());
        }
    }
    match read_json::<Value>(store, &scope, "last-tool-error.json") {
        Ok(Some(v)) if v.is_object() => {
            view.failure = Some(Failure {
                tool_name: str_of(&v, &["tool_name"]).unwrap_or_else(|| "a tool".into()),
                error: str_of(&v, &["error"]).unwrap_or_default(),
                retry_count: u64_of(&v, &["retry_count"]).unwrap_or(1),
                timestamp_ms: time_of(v.get("timestamp")),
            });
        }
        Ok(_) => {}
        Err(_) => view.unreadable.push("last-tool-error.json".into()),
    }
    view
}

/// Every scope of the project: the session-less one first, then each session by id.
pub(super) fn scan(store: &Store) -> Vec<SessionView> {
    std::iter::once(Scope::Global)
        .chain(store.sessions().into_iter().map(Scope::Session))
        .map(|s| read_scope(store, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Root;
    use serde_json::json;

    const NOW: i64 = 1_796_305_500_000;

    fn store(dir: &std::path::Path) -> Store {
        Store::new(
            Root {
                project: dir.into(),
                omc: dir.join(".omc"),
            },
            NOW,
        )
    }

    fn put(dir: &std::path::Path, rel: &str, v: Value) {
        let p = dir.join(".omc/state").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v.to_string()).unwrap();
    }

    #[test]
    fn reads_runs_guards_failures_and_leaves_corrupt_files_in_place() {
        let t = tempfile::tempdir().unwrap();
        let iso = crate::time::iso;
        put(
            t.path(),
            "sessions/s1/ralph-state.json",
            json!({"active": true, "started_at": iso(NOW - 3 * 3_600_000),
                   "last_checked_at": iso(NOW - 600_000), "iteration": 3, "max_iterations": 100}),
        );
        put(
            t.path(),
            "sessions/s1/autopilot-state.json",
            json!({"active": true, "started_at": iso(NOW - 1000), "suspended_at": iso(NOW - 500)}),
        );
        put(
            t.path(),
            "sessions/s1/skill-active-state.json",
            json!({"stack": [{"skill": "plan", "level": "medium", "expires_at": iso(NOW + 60_000),
                              "reinforcements": 2, "max_reinforcements": 5}]}),
        );
        put(
            t.path(),
            "sessions/s1/last-tool-error.json",
            json!({"tool_name": "Bash", "error": "boom", "retry_count": 4, "timestamp": iso(NOW)}),
        );
        put(t.path(), "sessions/s2/ultrawork-state.json", json!("{oops"));
        let views = scan(&store(t.path()));
        assert_eq!(views.len(), 3);
        let s1 = &views[1];
        assert_eq!(s1.id(), Some("s1"));
        assert_eq!(s1.active.len(), 1);
        assert_eq!(
            s1.active[0].stale_in_ms(NOW),
            Some(STALE_AFTER_MS - 600_000)
        );
        assert_eq!(s1.suspended[0].mode, "autopilot");
        assert_eq!(s1.guards[0].skill, "plan");
        assert!(!s1.guards[0].is_expired(NOW));
        assert_eq!(s1.failure.as_ref().unwrap().retry_count, 4);
        assert!(s1.cancellable() && s1.worth_showing(NOW));
        let s2 = &views[2];
        assert_eq!(s2.unreadable, vec!["ultrawork-state.json"]);
        assert!(!s2.cancellable());
        assert!(
            t.path()
                .join(".omc/state/sessions/s2/ultrawork-state.json")
                .exists()
        );
    }

    #[test]
    fn a_file_without_mode_is_named_by_its_file() {
        // OMC writes no `mode`; the limit must then be the mode's, as Stop computes it.
        let t = tempfile::tempdir().unwrap();
        put(
            t.path(),
            "sessions/s1/ultrawork-state.json",
            json!({"active": true, "started_at": crate::time::iso(NOW), "iteration": 2}),
        );
        let views = scan(&store(t.path()));
        let run = &views[1].active[0];
        assert_eq!(run.state.mode, "ultrawork");
        let config = crate::config::Config::default();
        assert_eq!(crate::modes::effective_max(&run.state, &config), 50);
    }
}
