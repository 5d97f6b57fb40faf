//! A run's journal (issue 42, contract §6 "The run journal"): one bounded record per Stop
//! that decided something about the run — what it decided, the tokens and cost so far, and
//! the session's counts of tool events, new work and failures — kept in the run's own file.
//!
//! Written by the Stop hook inside the same locked update that writes the run (no other file,
//! no other process; the tool hooks only keep counting in the work log they already write), so
//! the journal lives, moves (resume) and is replaced (a new run of the mode) with its run.
//! `omc-hooks report` draws the run from it.

use super::progress::WorkLog;
use crate::state::files::{CheckRun, JOURNAL_MAX, JournalEntry, LISTED_MAX, ModeState};

/// Appends one record for `decision` (`reason` for an end) and takes the work log's lists
/// (files changed, commands, checks) when the log belongs to this run.
pub fn note(s: &mut ModeState, log: &WorkLog, now_iso: &str, decision: &str, reason: Option<&str>) {
    let ours = log.run_started_at.is_none() || log.run_started_at == s.started_at;
    let (tools, new_work, failures) = if ours {
        (log.events, log.new_work, log.failures)
    } else {
        s.journal
            .last()
            .map_or((0, 0, 0), |e| (e.tools, e.new_work, e.failures))
    };
    if ours {
        // Added to what the run had (a run taken up by another session keeps the first's).
        for (into, from) in [
            (&mut s.files_changed, &log.files),
            (&mut s.commands_run, &log.commands),
        ] {
            for x in from {
                if !into.contains(x) && into.len() < LISTED_MAX {
                    into.push(x.clone());
                }
            }
        }
        s.checks = log
            .checks
            .iter()
            .map(|c| CheckRun {
                command: c.command.clone(),
                ok: c.ok,
                at: c.at.clone(),
                passed_at: c.passed_at.clone(),
                tail: if c.ok {
                    String::new()
                } else {
                    super::work::tail(&c.tail, 400)
                },
            })
            .collect();
    }
    push(s, now_iso, decision, reason, (tools, new_work, failures));
}

/// Appends one record with the run's iteration, tokens and cost, keeping at most
/// `JOURNAL_MAX` (the oldest dropped and counted).
fn push(
    s: &mut ModeState,
    now_iso: &str,
    decision: &str,
    reason: Option<&str>,
    (tools, new_work, failures): (u64, u64, u64),
) {
    s.journal.push(JournalEntry {
        iteration: s.iteration,
        at: now_iso.to_string(),
        decision: decision.to_string(),
        reason: reason.map(str::to_string),
        tokens: s.tokens_used,
        cost_usd: s.cost_usd,
        tools,
        new_work,
        failures,
    });
    if s.journal.len() > JOURNAL_MAX {
        let excess = s.journal.len() - JOURNAL_MAX;
        s.journal.drain(..excess);
        s.journal_dropped = s.journal_dropped.saturating_add(excess as u32);
    }
}

/// Appends one record for an event of the client's, not a Stop's decision (a turn ended on an
/// API error, the client waiting for the person): the counts are the last record's, since no
/// work log is read outside Stop.
pub fn note_event(s: &mut ModeState, now_iso: &str, decision: &str, reason: &str) {
    let counts = s
        .journal
        .last()
        .map_or((0, 0, 0), |e| (e.tools, e.new_work, e.failures));
    push(s, now_iso, decision, Some(reason), counts);
}

/// The session's last tool failure when it escalated during the run `s` (failed at least
/// [`ESCALATE_AT`](crate::capabilities::tool_failure::ESCALATE_AT) times in a row), in words.
pub fn escalation(rec: &crate::capabilities::tool_failure::ToolError) -> Option<(String, String)> {
    use crate::capabilities::tool_failure::ESCALATE_AT;
    (rec.retry_count >= ESCALATE_AT).then(|| {
        let error = crate::protocol::output::truncate_chars(
            &rec.error.split_whitespace().collect::<Vec<_>>().join(" "),
            160,
        );
        (
            rec.timestamp.clone(),
            format!(
                "{} failed {}× in a row: {error}",
                rec.tool_name, rec.retry_count
            ),
        )
    })
}

/// Notes an escalation `(when, what)` in the run when it happened during it: one line per
/// tool, its latest count.
pub fn note_escalation(s: &mut ModeState, escalation: Option<&(String, String)>) {
    let Some((at, what)) = escalation else {
        return;
    };
    let start = s.started_at.as_deref().and_then(crate::time::parse_iso);
    // Only a failure of the run's own time (an older record is another run's).
    if crate::time::parse_iso(at).is_none_or(|t| start.is_some_and(|s0| t < s0)) {
        return;
    }
    let tool = what.split(" failed ").next().unwrap_or("");
    s.escalations
        .retain(|e| !e.starts_with(&format!("{tool} failed ")));
    if s.escalations.len() < LISTED_MAX {
        s.escalations.push(what.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_with_the_oldest_dropped_and_counted() {
        let mut s = ModeState::start("ralph", Some("s1"), "/p", "t", "2026-01-01T00:00:00Z", 500);
        let log = WorkLog {
            run_started_at: s.started_at.clone(),
            events: 3,
            files: vec!["src/a.rs".into()],
            ..WorkLog::default()
        };
        for i in 0..(JOURNAL_MAX + 5) {
            s.iteration = i as u32 + 1;
            note(&mut s, &log, "2026-01-01T00:01:00Z", "continue", None);
        }
        assert_eq!(s.journal.len(), JOURNAL_MAX);
        assert_eq!(s.journal_dropped, 5);
        assert_eq!(s.journal[0].iteration, 6);
        assert_eq!(s.files_changed, vec!["src/a.rs"]);
        assert_eq!(s.journal[0].tools, 3);
    }

    #[test]
    fn another_runs_log_is_not_taken() {
        let mut s = ModeState::start("ralph", Some("s1"), "/p", "t", "2026-01-01T00:00:00Z", 5);
        let log = WorkLog {
            run_started_at: Some("2025-01-01T00:00:00Z".into()),
            events: 9,
            files: vec!["other.rs".into()],
            ..WorkLog::default()
        };
        note(
            &mut s,
            &log,
            "2026-01-01T00:01:00Z",
            "ended",
            Some("completed"),
        );
        assert!(s.files_changed.is_empty());
        assert_eq!(s.journal[0].tools, 0);
        assert_eq!(s.journal[0].reason.as_deref(), Some("completed"));
    }
}
