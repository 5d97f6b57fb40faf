//! The shapes of the state files shared by more than one capability.
//!
//! Core fields keep OMC's names (`active`, `session_id`, `started_at`, `last_checked_at`,
//! `iteration`, `max_iterations`, `prompt`, `project_path`) so a project coming from OMC stays
//! readable; fields this crate does not know are kept in `extra` and written back unchanged.
//! Each file has a JSON Schema in `state-schema/`; the tests validate written files against it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = 1;

/// `<mode>-state.json`: one persistent mode's run in one session.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModeState {
    /// 0 for files written by OMC (which have no version).
    #[serde(default)]
    pub schema_version: u32,
    #[serde(default)]
    pub mode: String,
    pub active: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_path: Option<String>,
    /// The sanitised user request that started the run.
    #[serde(default)]
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_checked_at: Option<String>,
    #[serde(default)]
    pub iteration: u32,
    #[serde(default)]
    pub max_iterations: u32,
    /// Stop blocks in a row without progress: since the agent last ran a tool (any tool event
    /// of the session resets it) or the user last typed a prompt.
    #[serde(default)]
    pub consecutive_blocks: u32,
    /// Stop blocks since the user's last prompt, tools or not: what a client that counts every
    /// continuation of a prompt (Qwen Code) holds us to.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub turn_blocks: u32,
    /// The run's time budget in minutes (0: none): `<mode>.max_minutes`, or the keyword's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_minutes: u32,
    /// When the time budget runs out; moved on by the time a run spends suspended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_at: Option<String>,
    /// The run's token budget (0: none): `<mode>.max_tokens`, or the prompt's `--tokens`.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub max_tokens: u64,
    /// Tokens the client recorded since the run started, counted at each Stop.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub tokens_used: u64,
    /// Where the last count of `tokens_used` stopped in the client's session file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_cursor: Option<crate::state::usage::Cursor>,
    /// The same tokens by model and type (what prices apply to), counted at each Stop.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub usage: crate::state::usage::ByModel,
    /// What `usage` cost at the prices in force at the last count; `None` before any usage
    /// or while a model with tokens has no price (unknown, never $0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The run's money budget in US dollars (0: none): `<mode>.max_cost_usd`, or `--cost`.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub max_cost_usd: f64,
    /// One record per Stop that decided something (at most [`JOURNAL_MAX`], the oldest
    /// dropped first): what `omc-hooks report` draws the run from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub journal: Vec<JournalEntry>,
    /// Records dropped from the front of `journal` to keep it bounded.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub journal_dropped: u32,
    /// Files the run changed (relative to the project where inside it), from the session's
    /// work log at the last Stop; at most [`LISTED_MAX`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_changed: Vec<String>,
    /// Distinct shell commands the run ran, as at the last Stop; at most [`LISTED_MAX`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands_run: Vec<String>,
    /// The verify commands' last runs, as at the last Stop.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckRun>,
    /// Tool failures that escalated during the run (a tool failing again and again), as a
    /// Stop saw them: `Bash failed 5× (…): <error>`; at most [`LISTED_MAX`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<String>,
    /// Set when Stop handed the turn back at a continuation limit (with why); cleared by the
    /// user's next prompt (until then, further Stops are let through).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_reason: Option<String>,
    /// Which limit the hand-back was: `no_progress` (continuations without new work) or
    /// `client_cap` (the client's own count of continuations per prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_kind: Option<String>,
    /// Mode-reported progress: autopilot phase, team phase, pipeline stage name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Set when the run ended: `completed`, `cancelled`, `max_iterations`, `stale`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// For a run ended by a completion claim: whether the project's verify commands had
    /// passed after the last change (`false` when none are configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Set by SessionEnd when the run outlives its session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended_at: Option<String>,
    /// Set when Stop handed the turn back because the model needs the user (a question at the
    /// end of its message, or the needs-input marker); cleared by the user's next prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub awaiting_input_at: Option<String>,
    /// Everything else (mode-specific counters, OMC's own fields), kept as found.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ModeState {
    /// A fresh, active run.
    pub fn start(
        mode: &str,
        session_id: Option<&str>,
        project: &str,
        prompt: &str,
        now_iso: &str,
        max_iterations: u32,
    ) -> ModeState {
        ModeState {
            schema_version: SCHEMA_VERSION,
            mode: mode.to_string(),
            active: true,
            session_id: session_id.map(str::to_string),
            project_path: Some(project.to_string()),
            prompt: prompt.to_string(),
            started_at: Some(now_iso.to_string()),
            last_checked_at: Some(now_iso.to_string()),
            iteration: 1,
            max_iterations,
            consecutive_blocks: 0,
            turn_blocks: 0,
            max_minutes: 0,
            deadline_at: None,
            max_tokens: 0,
            tokens_used: 0,
            token_cursor: None,
            usage: Default::default(),
            cost_usd: None,
            max_cost_usd: 0.0,
            journal: Vec::new(),
            journal_dropped: 0,
            files_changed: Vec::new(),
            commands_run: Vec::new(),
            checks: Vec::new(),
            escalations: Vec::new(),
            paused_at: None,
            paused_reason: None,
            pause_kind: None,
            phase: None,
            ended_reason: None,
            ended_at: None,
            verified: None,
            suspended_at: None,
            awaiting_input_at: None,
            extra: Map::new(),
        }
    }

    /// Gives the run a time budget of `minutes` from `now_ms` (none for 0).
    pub fn set_time_budget(&mut self, minutes: u32, now_ms: i64) {
        self.max_minutes = minutes;
        self.deadline_at = (minutes > 0)
            .then(|| crate::time::iso(now_ms.saturating_add(i64::from(minutes) * 60_000)));
    }

    /// Takes a suspended run back up at `now_ms`: `suspended_at` cleared, and the time budget's
    /// deadline moved on by the time spent suspended (a budget counts the run's working time,
    /// not the night between two sessions).
    pub fn unsuspend(&mut self, now_ms: i64) {
        let since = self
            .suspended_at
            .take()
            .and_then(|t| crate::time::parse_iso(&t));
        if let (Some(since), Some(deadline)) = (
            since,
            self.deadline_at.as_deref().and_then(crate::time::parse_iso),
        ) {
            let away = (now_ms - since).max(0);
            self.deadline_at = Some(crate::time::iso(deadline.saturating_add(away)));
        }
    }

    /// Clears what only held within a turn: the continuation counts, a pause, a wait for the
    /// user. Whether anything changed.
    pub fn new_turn(&mut self) -> bool {
        let changed = self.consecutive_blocks > 0
            || self.turn_blocks > 0
            || self.paused_at.is_some()
            || self.paused_reason.is_some()
            || self.pause_kind.is_some()
            || self.awaiting_input_at.is_some();
        self.consecutive_blocks = 0;
        self.turn_blocks = 0;
        self.paused_at = None;
        self.paused_reason = None;
        self.pause_kind = None;
        self.awaiting_input_at = None;
        changed
    }

    /// Marks the run ended for `reason` at `now_iso`.
    pub fn end(&mut self, reason: &str, now_iso: &str) {
        self.active = false;
        self.ended_reason = Some(reason.to_string());
        self.ended_at = Some(now_iso.to_string());
        self.last_checked_at = Some(now_iso.to_string());
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

fn is_zero_f64(n: &f64) -> bool {
    *n == 0.0
}

/// Records a run's journal keeps: one per continuation of the longest default limit (ralph's
/// 100), so a run within its limit is drawn whole; about 150 bytes each.
pub const JOURNAL_MAX: usize = 100;
/// Files and commands a run lists.
pub const LISTED_MAX: usize = 50;

/// One Stop of a run, as the report draws it. Counts are cumulative for the run (the chart
/// draws the differences), so a record lost between two others loses nothing.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct JournalEntry {
    /// The run's iteration when this Stop decided.
    pub iteration: u32,
    pub at: String,
    /// `continue`, `paused` (a continuation limit handed the turn back), `waiting` (the model
    /// asked the person), or `ended` (with `reason`).
    pub decision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Tokens and cost of the run so far.
    #[serde(default)]
    pub tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Tool events, events with new work, and failed tool calls of the run so far.
    #[serde(default)]
    pub tools: u64,
    #[serde(default)]
    pub new_work: u64,
    #[serde(default)]
    pub failures: u64,
}

/// A verify command's last run, as the report shows it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CheckRun {
    pub command: String,
    pub ok: bool,
    pub at: String,
    /// When it last passed in the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_at: Option<String>,
    /// The end of its output when it failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tail: String,
}
