//! One run as the report shows it: gathered from the run file once, then written as text,
//! JSON, a line of `--all`, or (in `html.rs`) a page.

use super::super::runs::{self, Run, SessionView};
use crate::config::Config;
use crate::config::prices;
use crate::state::Store;
use crate::state::files::JournalEntry;
use crate::state::usage::{Tokens, tokens_text};
use crate::terminal::one_line;
use crate::time::short_duration;
use serde_json::{Value, json};

/// One run, with what the report adds to its file.
pub(super) struct RunReport {
    /// `SESSION/MODE` (`-/MODE` for the session-less scope).
    pub(super) id: String,
    pub(super) session: Option<String>,
    pub(super) agent: Option<String>,
    pub(super) run: Run,
    pub(super) cost_usd: Option<f64>,
    /// Models with tokens and no price.
    pub(super) unpriced: Vec<String>,
    /// The run's tokens by type, all models together.
    pub(super) tokens: Tokens,
    /// One mark per iteration: the last journal record of each.
    pub(super) iterations: Vec<Iteration>,
}

/// What one iteration did (differences of the journal's running counts).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Iteration {
    pub(super) iteration: u32,
    pub(super) tokens: u64,
    pub(super) tools: u64,
    pub(super) new_work: u64,
    pub(super) failures: u64,
    /// Hand-backs in it (paused at a limit, or waiting for the person), with why.
    pub(super) hand_backs: Vec<String>,
    /// How it ended: `continue`, or the run's end reason.
    pub(super) outcome: String,
}

/// Every run of the project with a recorded start, latest activity first.
pub(super) fn collect(store: &Store, config: &Config) -> Vec<RunReport> {
    let mut out: Vec<RunReport> = Vec::new();
    for v in runs::scan(store) {
        let all: Vec<&Run> = v
            .active
            .iter()
            .chain(&v.suspended)
            .chain(&v.ended)
            .collect();
        for r in all {
            out.push(build(&v, r.clone(), config));
        }
    }
    out.sort_by_key(|r| std::cmp::Reverse(r.last_ms()));
    out
}

/// The run `id` names: `SESSION/MODE`, a `SESSION` (its latest run) or a `MODE` (its latest
/// run in the project). `runs` is latest first.
pub(super) fn find<'a>(runs: &'a [RunReport], id: &str) -> Option<&'a RunReport> {
    let id = id.trim();
    runs.iter()
        .find(|r| r.id == id)
        .or_else(|| runs.iter().find(|r| r.session.as_deref() == Some(id)))
        .or_else(|| runs.iter().find(|r| r.run.mode == id))
}

fn build(v: &SessionView, run: Run, config: &Config) -> RunReport {
    let session = v.id().map(str::to_string);
    let id = format!("{}/{}", session.as_deref().unwrap_or("-"), run.mode);
    let s = &run.state;
    let cost_usd = if s.usage.is_empty() {
        s.cost_usd
    } else {
        prices::cost(&s.usage, config)
    };
    let unpriced = prices::unpriced(&s.usage, config);
    let mut tokens = Tokens::default();
    for t in s.usage.values() {
        tokens.add(t);
    }
    let iterations = iterations(&s.journal);
    RunReport {
        id,
        session,
        agent: v.agent.clone(),
        cost_usd,
        unpriced,
        tokens,
        iterations,
        run,
    }
}

/// The journal grouped by iteration, as differences.
pub(super) fn iterations(journal: &[JournalEntry]) -> Vec<Iteration> {
    let mut out: Vec<Iteration> = Vec::new();
    let mut before = JournalEntry::default();
    let mut current: Option<(Iteration, JournalEntry)> = None;
    for e in journal {
        if current
            .as_ref()
            .is_some_and(|(it, _)| it.iteration != e.iteration)
        {
            let (it, last) = current.take().unwrap_or_default();
            out.push(it);
            before = last;
        }
        let (mut it, _) = current.take().unwrap_or_else(|| {
            (
                Iteration {
                    iteration: e.iteration,
                    ..Iteration::default()
                },
                JournalEntry::default(),
            )
        });
        it.tokens = e.tokens.saturating_sub(before.tokens);
        it.tools = e.tools.saturating_sub(before.tools);
        it.new_work = e.new_work.saturating_sub(before.new_work);
        it.failures = e.failures.saturating_sub(before.failures);
        match e.decision.as_str() {
            "paused" | "waiting" => it.hand_backs.push(
                e.reason
                    .clone()
                    .unwrap_or_else(|| "waiting for the person's answer".into()),
            ),
            "ended" => it.outcome = e.reason.clone().unwrap_or_else(|| "ended".into()),
            _ => it.outcome = "continue".into(),
        }
        current = Some((it, e.clone()));
    }
    if let Some((it, _)) = current {
        out.push(it);
    }
    out
}

impl RunReport {
    /// The newest time the run shows: its end, its last check, its start.
    pub(super) fn last_ms(&self) -> i64 {
        self.run
            .ended_ms()
            .or(self.run.last_activity_ms)
            .or(self.run.started_ms)
            .unwrap_or(0)
    }

    fn wall_ms(&self) -> Option<i64> {
        let start = self.run.started_ms?;
        let end = self.run.ended_ms().or(self.run.last_activity_ms)?;
        Some((end - start).max(0))
    }

    /// What the report says about the journal, when something is missing from it.
    pub(super) fn journal_note(&self) -> Option<String> {
        let s = &self.run.state;
        if s.journal.is_empty() && (s.iteration > 1 || s.ended_at.is_some()) {
            return Some(
                "this run's journal is gone (the run was written by an older version or by \
                 OMC, or its records were removed): the summary comes from the run file alone"
                    .into(),
            );
        }
        (s.journal_dropped > 0).then(|| {
            format!(
                "the journal keeps the last {} records: the first {} were dropped",
                crate::state::files::JOURNAL_MAX,
                s.journal_dropped
            )
        })
    }

    fn hand_backs(&self) -> Vec<String> {
        self.iterations
            .iter()
            .flat_map(|i| i.hand_backs.clone())
            .collect()
    }

    fn continuations(&self) -> usize {
        self.run
            .state
            .journal
            .iter()
            .filter(|e| e.decision == "continue")
            .count()
    }

    fn failures(&self) -> u64 {
        self.run.state.journal.last().map_or(0, |e| e.failures)
    }

    pub(super) fn cost_text(&self) -> String {
        match self.cost_usd {
            Some(c) => prices::money_text(c),
            None if self.unpriced.is_empty() => "no cost recorded".into(),
            None => format!(
                "cost unknown (no price for {}: add it under \"prices\" in .omc/config.json)",
                self.unpriced.join(", ")
            ),
        }
    }

    pub(super) fn reason_text(&self) -> String {
        let s = &self.run.state;
        if s.ended_reason.is_some() {
            crate::modes::end_reason_text(s)
        } else if self.run.is_suspended() {
            "suspended (the session ended; the next one may take it up)".into()
        } else {
            "still running".into()
        }
    }

    pub(super) fn verified_text(&self) -> String {
        let s = &self.run.state;
        let checks: Vec<String> = s
            .checks
            .iter()
            .map(|c| {
                // When it last passed matters only when its last run failed.
                let passed = match (c.ok, c.passed_at.as_deref()) {
                    (false, Some(t)) => format!(", last passed {}", short_time(t)),
                    (false, None) => ", never passed in the run".to_string(),
                    (true, _) => String::new(),
                };
                format!(
                    "`{}` {} {}{passed}",
                    one_line(&c.command, 60),
                    if c.ok { "passed" } else { "FAILED" },
                    short_time(&c.at)
                )
            })
            .collect();
        let head = match s.verified {
            Some(true) => "yes",
            Some(false) => "no (no check configured or none passed after the last change)",
            None => "not claimed",
        };
        if checks.is_empty() {
            head.to_string()
        } else {
            format!("{head} — {}", checks.join("; "))
        }
    }

    /// The report's JSON.
    pub(super) fn to_json(&self) -> Value {
        let s = &self.run.state;
        json!({
            "run": self.id,
            "session_id": self.session,
            "mode": self.run.mode,
            "task": s.prompt,
            "agent": self.agent.clone().or_else(|| Some("claude".into())),
            "started_at": s.started_at,
            "ended_at": s.ended_at,
            "wall_ms": self.wall_ms(),
            "active": s.active,
            "suspended": self.run.is_suspended(),
            "ended_reason": s.ended_reason,
            "reason": self.reason_text(),
            "verified": s.verified.unwrap_or(false),
            "checks": s.checks,
            "iterations": s.iteration,
            "continuations": self.continuations(),
            "hand_backs": self.hand_backs(),
            "tokens_used": s.tokens_used,
            "tokens": self.tokens,
            "tokens_by_model": s.usage,
            "max_tokens": (s.max_tokens > 0).then_some(s.max_tokens),
            "cost_usd": self.cost_usd,
            "cost_unknown_models": self.unpriced,
            "max_cost_usd": (s.max_cost_usd > 0.0).then_some(s.max_cost_usd),
            "files_changed": s.files_changed,
            "commands_run": s.commands_run,
            "failures": self.failures(),
            "escalations": s.escalations,
            "timeline": self.iterations.iter().map(|i| json!({
                "iteration": i.iteration,
                "tokens": i.tokens,
                "tools": i.tools,
                "new_work": i.new_work,
                "failures": i.failures,
                "hand_backs": i.hand_backs,
                "outcome": i.outcome,
            })).collect::<Vec<_>>(),
            "journal_note": self.journal_note(),
        })
    }

    /// One line of `--all`.
    pub(super) fn line(&self, _now: i64) -> String {
        let s = &self.run.state;
        let when = self.run.started_ms.map_or("?".into(), crate::time::human);
        let wall = self.wall_ms().map_or("?".into(), short_duration);
        let reason = match (s.ended_reason.as_deref(), s.verified) {
            (Some(r), Some(true)) => format!("{r} ✓"),
            (Some(r), _) => r.to_string(),
            (None, _) if self.run.is_suspended() => "suspended".into(),
            (None, _) => "running".into(),
        };
        let cost = self.cost_usd.map_or("cost ?".into(), prices::money_text);
        format!(
            "{:<28} {:<21} {:>8}  {:<18} {:>6} tokens {:>8}  \"{}\"\n",
            self.id,
            when,
            wall,
            reason,
            tokens_text(s.tokens_used),
            cost,
            one_line(&s.prompt, 50)
        )
    }

    /// The one-screen text; `fancy` draws the sparkline (a terminal without NO_COLOR).
    pub(super) fn text(&self, _now: i64, fancy: bool) -> String {
        let s = &self.run.state;
        let mut o = String::new();
        let agent = self.agent.as_deref().unwrap_or("claude");
        let agent = crate::protocol::Agent::parse(agent)
            .map_or_else(|| agent.to_string(), |a| a.client().to_string());
        o.push_str(&format!(
            "omc-hooks report — {} run {} ({agent})\n\n",
            self.run.mode, self.id
        ));
        let row = |o: &mut String, k: &str, v: &str| o.push_str(&format!("  {k:<11}{v}\n"));
        row(&mut o, "Task", &one_line(&s.prompt, 100));
        let when = format!(
            "{} → {}{}",
            s.started_at.as_deref().map_or("?".into(), short_time),
            s.ended_at.as_deref().map_or("now".into(), short_time),
            self.wall_ms()
                .map(|w| format!(" ({})", short_duration(w)))
                .unwrap_or_default()
        );
        row(&mut o, "Time", &when);
        row(&mut o, "Ended", &self.reason_text());
        row(&mut o, "Verified", &self.verified_text());
        for c in s.checks.iter().filter(|c| !c.ok && !c.tail.is_empty()) {
            for l in c
                .tail
                .lines()
                .rev()
                .take(5)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                o.push_str(&format!("  {:<11}│ {}\n", "", one_line(l, 100)));
            }
        }
        let hand_backs = self.hand_backs();
        row(
            &mut o,
            "Iterations",
            &format!(
                "{} ({} continuations, {} hand-back{}{})",
                s.iteration,
                self.continuations(),
                hand_backs.len(),
                if hand_backs.len() == 1 { "" } else { "s" },
                if hand_backs.is_empty() {
                    String::new()
                } else {
                    format!(": {}", one_line(&hand_backs.join("; "), 80))
                }
            ),
        );
        let t = &self.tokens;
        let split = if t.sum() > 0 {
            format!(
                " (input {}, output {}, cache read {}, cache write {})",
                tokens_text(t.input),
                tokens_text(t.output),
                tokens_text(t.cache_read),
                tokens_text(t.cache_write)
            )
        } else {
            String::new()
        };
        row(
            &mut o,
            "Tokens",
            &format!("{}{split}", tokens_text(s.tokens_used)),
        );
        let budget = if s.max_cost_usd > 0.0 {
            format!(" of a {} budget", prices::money_text(s.max_cost_usd))
        } else {
            String::new()
        };
        row(&mut o, "Cost", &format!("{}{budget}", self.cost_text()));
        if self.iterations.len() > 1 {
            let per: Vec<u64> = self.iterations.iter().map(|i| i.tokens).collect();
            let chart = if fancy {
                sparkline(&per)
            } else {
                per.iter()
                    .map(|n| tokens_text(*n))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            row(&mut o, "", &format!("tokens per iteration: {chart}"));
        }
        let list = |v: &[String]| {
            if v.is_empty() {
                "none recorded".to_string()
            } else {
                one_line(&v.join(", "), 200)
            }
        };
        row(&mut o, "Files", &list(&s.files_changed));
        row(&mut o, "Commands", &list(&s.commands_run));
        let failures = self.failures();
        if failures > 0 {
            row(
                &mut o,
                "Failures",
                &format!("{failures} failed tool call(s)"),
            );
        }
        for e in &s.escalations {
            row(&mut o, "Escalated", &one_line(e, 100));
        }
        if let Some(note) = self.journal_note() {
            row(&mut o, "Journal", &note);
        }
        o.push_str(&format!(
            "\n  omc-hooks report {} --html report.html   a page with the run's timeline\n",
            self.id
        ));
        o
    }
}

/// `10:42` for today's times, else the date too (from an ISO time).
fn short_time(t: &str) -> String {
    crate::time::parse_iso(t).map_or_else(|| t.to_string(), crate::time::human)
}

/// `▁▃█▂`: one block per value, scaled to the largest.
pub(super) fn sparkline(values: &[u64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = values.iter().copied().max().unwrap_or(0).max(1);
    values
        .iter()
        .map(|v| BARS[((*v as f64 / max as f64) * 7.0).round() as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(iteration: u32, decision: &str, tokens: u64, tools: u64) -> JournalEntry {
        JournalEntry {
            iteration,
            at: "2026-01-01T00:00:00Z".into(),
            decision: decision.into(),
            reason: (decision != "continue").then(|| "why".into()),
            tokens,
            tools,
            ..JournalEntry::default()
        }
    }

    #[test]
    fn one_mark_per_iteration_with_its_own_share() {
        let j = [
            e(1, "continue", 100, 2),
            e(2, "paused", 150, 3),
            e(2, "continue", 400, 5),
            e(3, "ended", 450, 6),
        ];
        let its = iterations(&j);
        assert_eq!(its.len(), 3);
        assert_eq!(
            its.iter().map(|i| i.tokens).collect::<Vec<_>>(),
            [100, 300, 50]
        );
        assert_eq!(its[1].tools, 3);
        assert_eq!(its[1].hand_backs, ["why"]);
        assert_eq!(its[2].outcome, "why");
    }

    #[test]
    fn a_sparkline_scales_to_the_largest() {
        assert_eq!(sparkline(&[0, 50, 100]), "▁▅█");
        assert_eq!(sparkline(&[0, 0]), "▁▁");
    }
}
