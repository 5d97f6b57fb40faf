//! SessionEnd: summarise the session, suspend its unfinished runs, drop what only made sense
//! while it ran. Claude Code gives SessionEnd hooks about 1.5 s in all (and kills them after),
//! so this touches only this session's own files — a dozen small reads and writes — and never
//! scans other sessions.
//!
//! * `.omc/sessions/<id>.json`: duration, runs with their iterations, failures, subagents,
//!   edits (`state-schema/session-summary.schema.json`) — in a project that has `.omc/`; a
//!   session that recorded nothing in a project without one leaves no trace.
//! * Unfinished runs are **suspended**: `active` stays `true` and `suspended_at` is set, and
//!   the run is listed in the suspended-run index (see [`super::resume`]).
//! * Transient files removed: `subagents.json` (subagents die with the session; they are in
//!   the summary). Kept: mode states, `edits.json`, `todos.json`, `session.json` and
//!   checkpoints, which a `claude --resume` of this session still needs, and
//!   `last-tool-error.json`, which belongs to the tool-failure capability (its 60 s windows
//!   make an old record harmless).

use super::{checkpoint, clip, edits, mode_states, resume, session_start};
use crate::capabilities::{Ctx, subagents};
use crate::protocol::Answer;
use crate::state::files::{ModeState, SCHEMA_VERSION};
use crate::state::{Change, Scope, StateFile, Store};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The directory of `.omc/` holding session summaries.
pub const DIR: &str = "sessions";
const TOOL_ERROR_FILE: &str = "last-tool-error.json";

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub schema_version: u32,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    pub ended_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<i64>,
    pub modes: Vec<RunSummary>,
    /// Iterations over every run of the session.
    pub iterations: u64,
    /// The failure records still open at the end (the last one, if its tool has not
    /// succeeded since).
    pub failures: Vec<checkpoint::ToolError>,
    /// Every tool failure of the session, open or since fixed.
    #[serde(default)]
    pub failure_count: u64,
    /// The same, per tool.
    #[serde(default)]
    pub failures_by_tool: BTreeMap<String, u64>,
    pub subagents: SubagentSummary,
    pub edits: EditSummary,
    /// Modes left suspended.
    pub suspended: Vec<String>,
    /// The session's own totals, runs or not (issue 42): every call the client's transcript
    /// records, from its start. Absent when the transcript cannot be read whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::state::usage::Tokens>,
    /// What they cost at the prices in force; absent when a model has no price (unknown,
    /// never $0) or nothing was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Models with tokens and no price.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost_unknown_models: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunSummary {
    pub mode: String,
    pub active: bool,
    pub suspended: bool,
    pub iteration: u32,
    pub max_iterations: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_reason: Option<String>,
    /// A run ended by a completion claim: whether verify commands backed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// A run handed back: why (`paused_reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_reason: Option<String>,
    /// Tokens the client recorded for the run.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tokens_used: u64,
    /// What the run's tokens cost (absent: unknown or none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    pub prompt: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SubagentSummary {
    pub started: u64,
    pub completed: u64,
    pub running_at_end: u64,
    pub by_type: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EditSummary {
    pub files: u64,
    pub added: u64,
    pub removed: u64,
}

/// SessionEnd entry point. Says nothing (SessionEnd output is not shown to anyone).
pub fn run(ctx: &Ctx<'_>) -> Answer {
    let (Some(store), Some(sid)) = (&ctx.store, ctx.scope.session_id()) else {
        return Answer::default();
    };
    if !store.omc_dir().is_dir() {
        // Nothing recorded in the project; drop the start kept outside it.
        let _ = session_start::take_marker(ctx, store);
        return Answer::default();
    }
    if let Some(marker) = StateFile::new(&ctx.scope, session_start::MARKER) {
        let created = store
            .read::<session_start::Marker>(&marker)
            .is_some_and(|m| m.created_state_dir);
        if created && store.holds_only(&[&marker]) {
            // (A marker of an earlier version, which created `.omc/` at SessionStart.) This
            // session created `.omc/` only to note when it started, and recorded nothing
            // else: leave no `.omc/` behind just to say so.
            if let Err(e) = store.remove_only(&[&marker]) {
                crate::diag!("session-end: cannot remove the session's empty state: {e}");
            }
            return Answer::default();
        }
    }
    let now = crate::time::iso(ctx.now_ms);

    let runs = suspend(store, &ctx.scope, &now);
    let newly: Vec<resume::Suspended> = runs
        .iter()
        .filter(|s| s.active && s.suspended_at.is_some())
        .map(|s| resume::Suspended::of(s, sid, &now))
        .collect();
    if let Err(e) = resume::note(store, &newly) {
        crate::diag!("session-end: suspended-run index not updated: {e}");
    }

    let summary = summarise(ctx, store, &runs, &now);
    match StateFile::nested(&Scope::Omc, DIR, &format!("{sid}.json")) {
        Some(f) => {
            if let Err(e) = store.write(&f, &summary) {
                crate::diag!("session-end: cannot write the summary: {e}");
            }
        }
        None => crate::diag!("session-end: session id too long for a summary file name"),
    }

    if let Some(f) = StateFile::new(&ctx.scope, subagents::FILE)
        && let Err(e) = store.remove(&f)
    {
        crate::diag!("session-end: cannot remove {}: {e}", subagents::FILE);
    }
    Answer::default()
}

/// Suspends the session's active runs; returns every run found (after the change).
fn suspend(store: &Store, scope: &Scope, now: &str) -> Vec<ModeState> {
    let mut out = Vec::new();
    for (file, state) in mode_states(store, scope) {
        if !(state.active && state.suspended_at.is_none()) {
            out.push(state);
            continue;
        }
        let r = store.update(&file, |cur: Option<ModeState>| match cur {
            Some(mut s) if s.active && s.suspended_at.is_none() => {
                s.suspended_at = Some(now.to_string());
                (Change::Write(s.clone()), Some(s))
            }
            other => (Change::Keep, other),
        });
        match r {
            Ok(Some(s)) => out.push(s),
            Ok(None) => {}
            Err(e) => {
                crate::diag!("session-end: cannot suspend {}: {e}", file.name());
                out.push(state);
            }
        }
    }
    out
}

fn summarise(ctx: &Ctx<'_>, store: &Store, runs: &[ModeState], now: &str) -> Summary {
    let scope = &ctx.scope;
    let marker = session_start::take_marker(ctx, store);
    let tracked = subagents::tracked(ctx);
    // Without a marker (SessionStart could not write it, or the session began under an older
    // version), the earliest thing the session is known to have started stands in.
    let started_at = marker.map(|m| m.started_at).or_else(|| {
        runs.iter()
            .filter_map(|r| r.started_at.clone())
            .chain(tracked.agents.iter().map(|a| a.started_at.clone()))
            .filter(|s| crate::time::parse_iso(s).is_some())
            .min_by_key(|s| crate::time::parse_iso(s).unwrap_or(i64::MAX))
    });
    let duration_ms = started_at
        .as_deref()
        .and_then(crate::time::parse_iso)
        .map(|t| (ctx.now_ms - t).max(0));

    let mut by_type = BTreeMap::new();
    for a in &tracked.agents {
        let t = if a.agent_type.is_empty() {
            "unknown"
        } else {
            a.agent_type.as_str()
        };
        *by_type.entry(clip(t, 64)).or_insert(0) += 1;
    }
    let running_at_end = tracked
        .agents
        .iter()
        .filter(|a| a.status == subagents::Status::Running)
        .count() as u64;

    let e = edits::read(store, scope);
    // The session's own tokens, from the transcript whole (bounded by `usage::MAX_BYTES`).
    let session = ctx
        .input
        .transcript_path
        .as_deref()
        .and_then(crate::state::usage::read_whole)
        .map(|t| crate::state::usage::counted_in(&t))
        .filter(|c| c.total > 0);
    let failures: Vec<checkpoint::ToolError> = StateFile::new(scope, TOOL_ERROR_FILE)
        .and_then(|f| store.read::<Value>(&f))
        .and_then(|v| checkpoint::tool_error(&v))
        .into_iter()
        .collect();
    let tally = StateFile::new(scope, crate::capabilities::tool_failure::TALLY)
        .and_then(|f| store.read::<crate::capabilities::tool_failure::Tally>(&f))
        .unwrap_or_default();
    // A session recorded before the tally existed still counts its open record.
    let failure_count = tally
        .total
        .max(failures.iter().map(|f| f.retry_count).sum());

    Summary {
        schema_version: SCHEMA_VERSION,
        session_id: scope
            .session_id()
            .map(|s| s.to_string())
            .unwrap_or_default(),
        reason: ctx.input.reason.as_deref().map(|r| clip(r, 40)),
        started_at,
        ended_at: now.to_string(),
        duration_ms,
        modes: runs
            .iter()
            .map(|r| RunSummary {
                mode: r.mode.clone(),
                active: r.active,
                suspended: r.active && r.suspended_at.is_some(),
                iteration: r.iteration,
                max_iterations: r.max_iterations,
                ended_reason: r.ended_reason.clone(),
                verified: r.verified,
                paused_reason: r.paused_reason.clone(),
                tokens_used: r.tokens_used,
                cost_usd: crate::modes::run_cost(r, &ctx.config).or(r.cost_usd),
                prompt: clip(&r.prompt, 200),
            })
            .collect(),
        iterations: runs.iter().map(|r| u64::from(r.iteration)).sum(),
        failures,
        failure_count,
        failures_by_tool: tally.by_tool,
        subagents: SubagentSummary {
            started: tracked.total_started,
            completed: tracked.total_stopped,
            running_at_end,
            by_type,
        },
        edits: EditSummary {
            files: e.files.len() as u64 + e.dropped_files,
            added: e.files.iter().map(|f| f.added).sum(),
            removed: e.files.iter().map(|f| f.removed).sum(),
        },
        suspended: runs
            .iter()
            .filter(|r| r.active && r.suspended_at.is_some())
            .map(|r| r.mode.clone())
            .collect(),
        tokens_used: session.as_ref().map(|c| c.total),
        tokens: session.as_ref().map(|c| {
            let mut t = crate::state::usage::Tokens::default();
            for m in c.by_model.values() {
                t.add(m);
            }
            t
        }),
        cost_usd: session
            .as_ref()
            .and_then(|c| crate::config::prices::cost(&c.by_model, &ctx.config)),
        cost_unknown_models: session
            .as_ref()
            .map(|c| crate::config::prices::unpriced(&c.by_model, &ctx.config))
            .unwrap_or_default(),
    }
}
