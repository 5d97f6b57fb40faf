//! Completion from evidence (issue 34, contract §6): with `"verify": ["<command>", …]` in
//! `.omc/config.json` (top level for every persistent mode, `<mode>.verify` for one), a
//! completion claim ends a run only when every verify command passed on the workspace as it
//! stands after the last change.
//!
//! The evidence is observed, never produced: the agent must have run the command itself (the
//! command exactly, or as one `&&`-joined part of its command line), it must have succeeded,
//! and nothing may have changed the project's files since it began: no tool call that may
//! write ([`super::writes`]: an edit, `apply_patch`, a shell command outside the read-only
//! table, a tool not known to only read) after it or while it ran ([`super::progress`] counts
//! them and records each run in the work log). The hook does not run the command: the
//! configuration comes with the project, and a cloned repository must not get a command run by
//! a completion claim, nor would every check fit in a hook's time. A claim without the evidence sends the model back,
//! told which command to run and, when its last run failed, the end of its output.

use super::work::{Check, WorkLog};
use crate::config::Config;

const NOT_RUN: &str = include_str!("../../../templates/stop/verify-not-run.md");
const STALE: &str = include_str!("../../../templates/stop/verify-stale.md");
const FAILED: &str = include_str!("../../../templates/stop/verify-failed.md");

/// The verify commands of `mode`: `<mode>.verify`, else the top-level `verify`.
pub fn commands(mode: &str, config: &Config) -> Vec<String> {
    let list = |path: &str| -> Option<Vec<String>> {
        let v = config.get(path)?.as_array()?;
        Some(
            v.iter()
                .filter_map(|c| c.as_str())
                .map(super::work::normalize_command)
                .filter(|c| !c.is_empty())
                .collect(),
        )
    };
    list(&format!("{mode}/verify"))
        .or_else(|| list("verify"))
        .unwrap_or_default()
}

/// What the evidence says of a completion claim for `mode`: `None` when every verify
/// command passed after the last change (or there is none), else the continuation's note.
pub fn unmet(mode: &str, config: &Config, log: &WorkLog) -> Option<String> {
    commands(mode, config).into_iter().find_map(|cmd| {
        let check: Option<&Check> = log.checks.iter().find(|c| c.command == cmd);
        match check {
            None => Some(crate::modes::fill(NOT_RUN, &[("command", &cmd)])),
            Some(c) if c.after_change != log.changes => {
                Some(crate::modes::fill(STALE, &[("command", &cmd)]))
            }
            Some(c) if !c.ok => Some(crate::modes::fill(
                FAILED,
                &[("command", &cmd), ("tail", c.tail.trim_end())],
            )),
            Some(_) => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_modes_own_list_wins_over_the_top_level() {
        let c = Config::from_value(
            json!({"verify": ["make  test"], "ralph": {"verify": ["cargo test"]}}),
        );
        assert_eq!(commands("ralph", &c), ["cargo test"]);
        assert_eq!(commands("ultrawork", &c), ["make test"]);
        assert!(commands("ralph", &Config::default()).is_empty());
    }

    #[test]
    fn a_claim_needs_a_passing_run_after_the_last_change() {
        let c = Config::from_value(json!({"verify": ["python3 check.py"]}));
        let mut log = WorkLog::default();
        assert!(
            unmet("ralph", &c, &log)
                .unwrap()
                .contains("`python3 check.py`")
        );
        log.check("python3 check.py", 0, false, "AssertionError: 2 != 3", "t");
        let note = unmet("ralph", &c, &log).unwrap();
        assert!(note.contains("AssertionError: 2 != 3"), "{note}");
        log.changes += 1;
        log.check("python3 check.py", 1, true, "ok", "t");
        assert_eq!(unmet("ralph", &c, &log), None);
        log.changes += 1;
        assert!(unmet("ralph", &c, &log).unwrap().contains("ran after"));
        assert_eq!(unmet("ralph", &Config::default(), &log), None);
    }
}
