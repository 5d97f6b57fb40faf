//! Tool-failure escalation (contract §8).
//!
//! PostToolUseFailure records the failure in the session's `last-tool-error.json`, counting
//! repeated failures of the same tool within a minute, and answers with guidance that escalates
//! at the fifth failure. A later success of that tool (PostToolUse) clears the record. Stop
//! reads the same file, in the same scope ([`read`], then [`fresh_guidance`]) — so the guidance the
//! model sees after a failure is also at the head of a persistent mode's continuation.
//!
//! The record goes when the tool succeeds, so the session's failures are also counted, per
//! tool, in `tool-failures.json` ([`TALLY`]), which stays: the SessionEnd summary reports
//! them (a session with five failures, all fixed by the end, had five failures).

use super::Ctx;
use crate::protocol::Answer;
use crate::state::{Change, Scope, StateFile, Store};
use serde::{Deserialize, Serialize};

/// The record's file name in the session (or session-less) state directory.
pub const FILE: &str = "last-tool-error.json";

/// The session's count of failures, per tool (`state-schema/tool-failures.schema.json`).
pub const TALLY: &str = "tool-failures.json";

/// `tool-failures.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Tally {
    #[serde(default)]
    pub schema_version: u32,
    /// Every failure recorded in the session.
    #[serde(default)]
    pub total: u64,
    /// The same, per tool (as the agent names it).
    #[serde(default)]
    pub by_tool: std::collections::BTreeMap<String, u64>,
}

/// Failures of the same tool closer together than this count as retries.
pub const RETRY_WINDOW_MS: i64 = 60_000;

/// From this many failures on, the guidance says to stop retrying.
pub const ESCALATE_AT: u32 = 5;

const PREVIEW_CHARS: usize = 200;
const ERROR_CHARS: usize = 500;

const RETRY: &str = include_str!("../../templates/tool-failure/retry.md");
const ESCALATE: &str = include_str!("../../templates/tool-failure/escalate.md");

/// `last-tool-error.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ToolError {
    #[serde(default)]
    pub schema_version: u32,
    pub tool_name: String,
    #[serde(default)]
    pub tool_input_preview: String,
    #[serde(default)]
    pub error: String,
    /// RFC 3339, as every timestamp in `.omc/`.
    pub timestamp: String,
    #[serde(default)]
    pub retry_count: u32,
}

impl ToolError {
    fn at_ms(&self) -> Option<i64> {
        crate::time::parse_iso(&self.timestamp)
    }

    /// The guidance for this record: analyse-fix-continue, or stop-retrying from the fifth.
    pub fn guidance(&self) -> String {
        let count = self.retry_count.max(1).to_string();
        let template = if self.retry_count >= ESCALATE_AT {
            ESCALATE
        } else {
            RETRY
        };
        crate::modes::fill(
            template,
            &[
                ("tool", &self.tool_name),
                ("count", &count),
                ("error", &self.error),
            ],
        )
    }
}

/// PostToolUseFailure: record the failure and answer with guidance.
pub fn record(ctx: &Ctx<'_>) -> Answer {
    let input = ctx.input;
    if input.is_interrupt {
        return Answer::default();
    }
    // Recorded, and shown to the model, under the agent's own name for the tool.
    let (Some(tool), Some(error)) = (input.tool_as_named(), input.error.as_deref()) else {
        return Answer::default();
    };
    let tool = tool.trim();
    if tool.is_empty() || is_noise(error) {
        return Answer::default();
    }
    let (Some(store), Some(file)) = (ctx.store.as_ref(), StateFile::new(&ctx.scope, FILE)) else {
        return Answer::default();
    };
    let preview = match &input.tool_input {
        None => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    let now = ctx.now_ms;
    let result = store.update(&file, |prev: Option<ToolError>| {
        let retry_count = match prev {
            Some(p) if p.tool_name == tool && within_window(p.at_ms(), now) => {
                p.retry_count.max(1).saturating_add(1)
            }
            _ => 1,
        };
        let rec = ToolError {
            schema_version: crate::state::files::SCHEMA_VERSION,
            tool_name: tool.to_string(),
            tool_input_preview: clip(&preview, PREVIEW_CHARS),
            error: clip(error.trim(), ERROR_CHARS),
            timestamp: crate::time::iso(now),
            retry_count,
        };
        (Change::Write(rec.clone()), rec)
    });
    match result {
        Ok(rec) => {
            count(ctx, tool);
            Answer::context(rec.guidance())
        }
        Err(e) => {
            crate::diag!("tool-failure: cannot record the failure of {tool}: {e}");
            Answer::default()
        }
    }
}

/// Adds one failure of `tool` to the session's [`TALLY`].
fn count(ctx: &Ctx<'_>, tool: &str) {
    let (Some(store), Some(file)) = (ctx.store.as_ref(), StateFile::new(&ctx.scope, TALLY)) else {
        return;
    };
    let r = store.update(&file, |t: Option<Tally>| {
        let mut t = t.unwrap_or_default();
        t.schema_version = crate::state::files::SCHEMA_VERSION;
        t.total = t.total.saturating_add(1);
        let n = t.by_tool.entry(clip(tool, 100)).or_insert(0);
        *n = n.saturating_add(1);
        (Change::Write(t), ())
    });
    if let Err(e) = r {
        crate::diag!("tool-failure: cannot count the failure of {tool}: {e}");
    }
}

/// PostToolUse: a success of the failing tool clears the record.
pub fn clear(ctx: &Ctx<'_>) -> Answer {
    let (Some(store), Some(file), Some(tool)) = (
        ctx.store.as_ref(),
        StateFile::new(&ctx.scope, FILE),
        ctx.input.tool_as_named(),
    ) else {
        return Answer::default();
    };
    // Most tool calls follow no failure, or another tool's: do not create directories or
    // take locks for them (the record is read without the lock, and again under it).
    // A call whose outcome could not be read is no success: the record stays.
    let tool = tool.trim();
    if ctx.input.outcome_unknown
        || store
            .read::<ToolError>(&file)
            .is_none_or(|p| p.tool_name != tool)
    {
        return Answer::default();
    }
    let cleared = store.update(&file, |prev: Option<ToolError>| match prev {
        Some(p) if p.tool_name == tool => (Change::Remove, ()),
        _ => (Change::Keep, ()),
    });
    if let Err(e) = cleared {
        crate::diag!("tool-failure: cannot clear the record for {tool}: {e}");
    }
    Answer::default()
}

/// The session's last tool failure, if one is recorded.
pub fn read(store: &Store, scope: &Scope) -> Option<ToolError> {
    store.read(&StateFile::new(scope, FILE)?)
}

/// The guidance for the failure `rec` when it is at most [`RETRY_WINDOW_MS`] old at `now_ms`,
/// for the head of a Stop reason.
pub fn fresh_guidance(rec: &ToolError, now_ms: i64) -> Option<String> {
    within_window(rec.at_ms(), now_ms).then(|| rec.guidance())
}

/// How far in the future a record may be and still count. Every hook process reads its clock
/// once, when it starts, and may then wait up to [`crate::state::fs::LOCK_WAIT`] for the file's
/// lock: when a client runs several failing tool calls at once, a hook that started a few
/// milliseconds before another can find that other's newer record. Counting it as a retry is
/// right (it is one); a record further ahead than this is a clock that jumped, and starts over.
pub const FUTURE_SLACK_MS: i64 = 10_000;

fn within_window(at: Option<i64>, now: i64) -> bool {
    at.is_some_and(|t| (-FUTURE_SLACK_MS..=RETRY_WINDOW_MS).contains(&(now - t)))
}

/// Failures that are not the tool's fault: the user declined or interrupted it. Claude Code
/// reports those with fixed texts; they must not count towards an escalation.
fn is_noise(error: &str) -> bool {
    let e = error.trim();
    if e.is_empty() {
        return true;
    }
    const USER_STOPPED: [&str; 5] = [
        "The user doesn't want to proceed with this tool use",
        "The user doesn't want to take this action right now",
        "[Request interrupted by user",
        "Request interrupted by user",
        "Interrupted by user",
    ];
    USER_STOPPED.iter().any(|p| e.starts_with(p))
        || (e.starts_with("Permission to use ") && e.contains(" has been denied"))
}

/// Cuts `text` to at most `max` characters, marking a cut with `...`.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max - 3).collect();
    s.push_str("...");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(n: u32) -> ToolError {
        ToolError {
            schema_version: 1,
            tool_name: "Bash".into(),
            tool_input_preview: "{\"command\":\"npm test\"}".into(),
            error: "Exit code 1\nnpm ERR! missing script: test".into(),
            timestamp: "2026-12-02T13:45:00.000Z".into(),
            retry_count: n,
        }
    }

    #[test]
    fn guidance_texts_are_pinned() {
        assert_eq!(
            rec(2).guidance(),
            "[TOOL ERROR - RETRY 2] Tool \"Bash\" failed. Analyse the error, fix what caused it, and continue working.\n\
             Error: Exit code 1\nnpm ERR! missing script: test"
        );
        assert_eq!(
            rec(5).guidance(),
            "[TOOL ERROR - ALTERNATIVE APPROACH NEEDED] Tool \"Bash\" has failed 5 times — stop retrying the same approach. \
             Step back: try a different command or tool, check prerequisites (dependencies, paths, permissions, configuration), \
             or ask the user for guidance.\n\
             Last error: Exit code 1\nnpm ERR! missing script: test"
        );
    }

    #[test]
    fn clipping_marks_the_cut_and_respects_the_limit() {
        assert_eq!(clip("short", 200), "short");
        let c = clip(&"é".repeat(300), 200);
        assert_eq!(c.chars().count(), 200);
        assert!(c.ends_with("..."));
    }

    #[test]
    fn user_refusals_are_noise_real_errors_are_not() {
        assert!(is_noise(""));
        assert!(is_noise("  "));
        assert!(is_noise(
            "The user doesn't want to proceed with this tool use. The tool use was rejected."
        ));
        assert!(is_noise("[Request interrupted by user for tool use]"));
        assert!(is_noise(
            "Permission to use Bash with command rm -rf x has been denied."
        ));
        assert!(!is_noise("Exit code 1"));
        assert!(!is_noise("Connection refused"));
    }

    #[test]
    fn the_window_is_inclusive_and_only_slightly_in_the_future() {
        assert!(within_window(Some(0), 60_000));
        assert!(!within_window(Some(0), 60_001));
        // written by a concurrent hook whose clock was read a little later
        assert!(within_window(Some(10), 0));
        assert!(within_window(Some(FUTURE_SLACK_MS), 0));
        assert!(!within_window(Some(FUTURE_SLACK_MS + 1), 0));
        assert!(!within_window(None, 0));
    }

    #[test]
    fn a_concurrent_failure_recorded_a_moment_later_is_still_a_retry() {
        // Four failing calls run at once (Codex runs parallel tool calls concurrently): hooks
        // that read their clocks at t, t+3, t+1, t+2 ms take the lock in that order. Each must
        // count on top of the one before (e2e_agent_guards::parallel_failing_commands_…).
        use crate::config::Config;
        use crate::env::Env;
        use crate::protocol::HookInput;
        use crate::state::{Root, Scope, Store};
        use serde_json::json;
        const T: i64 = 1_796_305_500_000;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            Root {
                project: dir.path().into(),
                omc: dir.path().join(".omc"),
            },
            T,
        );
        let env = Env::default();
        let mut counts = Vec::new();
        for offset in [0, 3, 1, 2] {
            let input = HookInput::from_map(
                json!({"hook_event_name": "PostToolUseFailure", "session_id": "s1",
                       "tool_name": "Bash", "tool_input": {"command": "make"},
                       "error": "Exit code 1"})
                .as_object()
                .unwrap()
                .clone(),
            );
            let ctx = Ctx {
                hook: crate::hooks::find("post-tool-use-failure").unwrap(),
                input: &input,
                env: &env,
                now_ms: T + offset,
                scope: Scope::for_session(Some("s1")),
                store: Some(store.clone()),
                config: Config::default(),
                hook_files: Default::default(),
            };
            let a = record(&ctx);
            let text = a.context.unwrap_or_default();
            counts.push(text.split(']').next().unwrap_or_default().to_string());
        }
        assert_eq!(
            counts,
            [
                "[TOOL ERROR - RETRY 1",
                "[TOOL ERROR - RETRY 2",
                "[TOOL ERROR - RETRY 3",
                "[TOOL ERROR - RETRY 4"
            ]
        );
    }
}
