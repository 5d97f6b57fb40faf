//! Completion from evidence (issue 34, contract §6): with `"verify": ["<command>", …]` in
//! `.omc/config.json` (top level for every persistent mode, `<mode>.verify` for one), a
//! completion claim ends a run only when every verify command passed on the workspace as it
//! stands after the last change.
//!
//! The evidence is observed, never produced: the agent must have run the command itself (the
//! command exactly, or as one `&&`-joined part of its command line), after the last edit that
//! gave a file new content, and it must have succeeded ([`super::progress`] records each run
//! in the work log). The hook does not run the command: the configuration comes with the
//! project, and a cloned repository must not get a command run by a completion claim, nor
//! would every check fit in a hook's time. A claim without the evidence sends the model back,
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

/// Whether the command line `ran` runs `verify` so that its success means `verify`'s: the
/// same command, or one part of a chain joined by `&&` only (`cd app && pytest -q`).
pub fn runs(ran: &str, verify: &str) -> bool {
    if ran == verify {
        return true;
    }
    // Any other operator at the top level decides the exit status by another command.
    let other_ops = ["||", ";", "|", "&"];
    let without_and = ran.replace("&&", "");
    if other_ops.iter().any(|op| without_and.contains(op)) {
        return false;
    }
    ran.split("&&").any(|part| part.trim() == verify)
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
    fn a_chain_runs_its_parts_only_when_joined_by_and() {
        assert!(runs("python3 check.py", "python3 check.py"));
        assert!(runs("cd app && python3 check.py", "python3 check.py"));
        assert!(!runs("python3 check.py || true", "python3 check.py"));
        assert!(!runs("python3 check.py; echo ok", "python3 check.py"));
        assert!(!runs("python3 check.py | tail", "python3 check.py"));
        assert!(!runs("python3 check.py --fast", "python3 check.py"));
    }

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
        log.check("python3 check.py", false, "AssertionError: 2 != 3", "t");
        let note = unmet("ralph", &c, &log).unwrap();
        assert!(note.contains("AssertionError: 2 != 3"), "{note}");
        log.changes += 1;
        log.check("python3 check.py", true, "ok", "t");
        assert_eq!(unmet("ralph", &c, &log), None);
        log.changes += 1;
        assert!(unmet("ralph", &c, &log).unwrap().contains("since"));
        assert_eq!(unmet("ralph", &Config::default(), &log), None);
    }
}
