//! PreCompact: flush what the next context needs before Claude Code compacts the conversation.
//!
//! Writes `checkpoints/<stamp>.json` in the session scope (active runs with task and iteration,
//! running skill guards, the last tool error, edited files with line counts, open todos),
//! keeps the newest [`KEEP_CHECKPOINTS`], appends a dated entry to the notepad's Working
//! Memory, and shows the person a short `systemMessage` (the only output PreCompact accepts).
//! SessionStart (`source: "compact"`) then hands the newest checkpoint back to the model.
//!
//! Files owned by other capabilities (`skill-active-state.json`, `last-tool-error.json`) are
//! read as generic JSON, tolerantly: whatever recognisable entries they hold are listed.

use super::{clip, edits, mode_states, notepad, render, todos};
use crate::capabilities::Ctx;
use crate::protocol::Answer;
use crate::state::files::SCHEMA_VERSION;
use crate::state::health::WriteProblem;
use crate::state::{Scope, StateFile, Store};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The subdirectory of the session scope holding checkpoints.
pub const DIR: &str = "checkpoints";
/// Checkpoints kept per session (older ones are removed).
pub const KEEP_CHECKPOINTS: usize = 10;
/// Files listed in a checkpoint (the most recently edited).
const MAX_FILES_LISTED: usize = 50;
/// The one checkpoint of an event that may not be followed by a compaction
/// ([`crate::protocol::HookInput::compaction_uncertain`]), replaced in place.
pub const PENDING: &str = "pending.json";

const SKILL_STACK_FILE: &str = crate::capabilities::cancel::SKILL_STACK_FILE;
const TOOL_ERROR_FILE: &str = "last-tool-error.json";

const MESSAGE: &str = include_str!("../../../templates/memory/precompact-message.md");
const ENTRY: &str = include_str!("../../../templates/memory/working-memory-entry.md");
const CONTEXT: &str = include_str!("../../../templates/memory/checkpoint-context.md");
const NOT_SAVED: &str = include_str!("../../../templates/memory/precompact-not-saved.md");

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Checkpoint {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    #[serde(default)]
    pub active_modes: Vec<ActiveMode>,
    #[serde(default)]
    pub skill_guards: Vec<SkillGuard>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_tool_error: Option<ToolError>,
    #[serde(default)]
    pub edited_files: Vec<edits::EditedFile>,
    #[serde(default)]
    pub open_todos: Vec<todos::Todo>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ActiveMode {
    pub mode: String,
    pub prompt: String,
    pub iteration: u32,
    pub max_iterations: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SkillGuard {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ToolError {
    pub tool_name: String,
    pub error: String,
    pub retry_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// PreCompact entry point.
pub fn run(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let cp = collect(ctx, store);
    if ctx.input.compaction_uncertain {
        keep_pending(store, &ctx.scope, &cp);
        return Answer::default();
    }
    let stamp = crate::time::stamp(ctx.now_ms);
    let saved = match StateFile::nested(&ctx.scope, DIR, &format!("{stamp}.json")) {
        Some(f) => store.write(&f, &cp).map(|()| prune(store, &ctx.scope)),
        None => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("no checkpoint file name for {stamp}"),
        )),
    };
    let notepad = notepad::append(store, ctx.now_ms, &entry_text(&cp));
    match saved {
        Ok(()) => {
            if let Err(e) = notepad {
                crate::diag!("pre-compact: notepad not updated: {e}");
            }
            Answer::system_message(message(&cp))
        }
        Err(e) => {
            // Never claim a checkpoint that is not on disk.
            let problem = WriteProblem::from_io(&e, store.omc_dir());
            crate::diag!("pre-compact: cannot write checkpoint: {e}");
            Answer::system_message(not_saved(&problem))
        }
    }
}

/// The note when the checkpoint could not be written: what was not saved, why, and the fix.
pub fn not_saved(problem: &WriteProblem) -> String {
    render(
        NOT_SAVED.trim_end(),
        &[("cause", &problem.cause()), ("fix", &problem.fix())],
    )
}

/// For an event that may not be followed by a compaction at all (Gemini CLI's PreCompress
/// fires before every model call): no notepad entry and no message — either would claim a
/// compaction that most likely did not happen, once per turn — and one checkpoint file,
/// [`PENDING`], kept equal to what is in flight: written only when that changed (an active
/// run's iteration, an edit), removed when nothing is in flight any more. Most calls read a few
/// small files and write nothing.
fn keep_pending(store: &Store, scope: &Scope, cp: &Checkpoint) {
    let Some(file) = StateFile::nested(scope, DIR, PENDING) else {
        return;
    };
    let last: Option<Checkpoint> = store.read(&file);
    let r = if cp.is_empty() {
        match last {
            Some(_) => store.remove(&file),
            None => Ok(()),
        }
    } else if last.is_some_and(|l| l.same_content(cp)) {
        Ok(())
    } else {
        store.write(&file, cp)
    };
    if let Err(e) = r {
        crate::diag!("pre-compact: pending checkpoint: {e}");
    }
}

impl Checkpoint {
    /// Nothing in flight.
    pub fn is_empty(&self) -> bool {
        self.active_modes.is_empty()
            && self.skill_guards.is_empty()
            && self.last_tool_error.is_none()
            && self.edited_files.is_empty()
            && self.open_todos.is_empty()
    }

    /// The same in everything but when and why it was taken.
    pub fn same_content(&self, other: &Checkpoint) -> bool {
        let content = |c: &Checkpoint| Checkpoint {
            created_at: String::new(),
            trigger: None,
            ..c.clone()
        };
        content(self) == content(other)
    }
}

/// Gathers the checkpoint from the session's files.
pub fn collect(ctx: &Ctx<'_>, store: &Store) -> Checkpoint {
    let scope = &ctx.scope;
    let active_modes = mode_states(store, scope)
        .into_iter()
        .filter(|(_, s)| s.active)
        .map(|(_, s)| ActiveMode {
            mode: s.mode.clone(),
            prompt: clip(&s.prompt, 1_000),
            iteration: s.iteration,
            max_iterations: crate::modes::effective_max(&s, &ctx.config),
            phase: s.phase.clone(),
            started_at: s.started_at.clone(),
        })
        .collect();
    let generic = |name: &str| -> Option<Value> { store.read(&StateFile::new(scope, name)?) };
    let skill_guards = generic(SKILL_STACK_FILE)
        .map(|v| skill_guards(&v, ctx.now_ms))
        .unwrap_or_default();
    let last_tool_error = generic(TOOL_ERROR_FILE).and_then(|v| tool_error(&v));
    let mut edited = edits::read(store, scope).files;
    edited.reverse(); // most recent first
    edited.truncate(MAX_FILES_LISTED);
    Checkpoint {
        schema_version: SCHEMA_VERSION,
        session_id: scope.session_id().map(|s| s.to_string()),
        created_at: crate::time::iso(ctx.now_ms),
        trigger: ctx.input.trigger.as_deref().map(|t| clip(t, 40)),
        active_modes,
        skill_guards,
        last_tool_error,
        edited_files: edited,
        open_todos: todos::read(store, scope)
            .items
            .into_iter()
            .filter(todos::Todo::open)
            .collect(),
    }
}

/// Skill guards found anywhere (depth ≤ 3) in the skill stack file: objects naming a skill
/// (`skill_name`, `skill` or `name`) that are not completed or expired.
pub fn skill_guards(v: &Value, now_ms: i64) -> Vec<SkillGuard> {
    fn walk(v: &Value, depth: usize, now_ms: i64, out: &mut Vec<SkillGuard>) {
        if depth > 3 || out.len() >= 20 {
            return;
        }
        match v {
            Value::Object(o) => {
                let name = ["skill_name", "skill", "name"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str));
                if let Some(name) = name {
                    let done = o.get("completed_at").is_some_and(|c| !c.is_null())
                        || o.get("active") == Some(&Value::Bool(false))
                        || o.get("expires_at")
                            .and_then(Value::as_str)
                            .and_then(crate::time::parse_iso)
                            .is_some_and(|t| t < now_ms);
                    if !done {
                        out.push(SkillGuard {
                            name: clip(name, 100),
                            level: o
                                .get("level")
                                .or_else(|| o.get("protection"))
                                .and_then(Value::as_str)
                                .map(|l| clip(l, 20)),
                        });
                    }
                    return;
                }
                for child in o.values() {
                    walk(child, depth + 1, now_ms, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, depth + 1, now_ms, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, 0, now_ms, &mut out);
    out
}

/// The tool-failure record, read tolerantly.
pub fn tool_error(v: &Value) -> Option<ToolError> {
    Some(ToolError {
        tool_name: clip(v.get("tool_name")?.as_str()?, 100),
        error: clip(v.get("error").and_then(Value::as_str).unwrap_or(""), 500),
        retry_count: v.get("retry_count").and_then(Value::as_u64).unwrap_or(1),
        timestamp: v
            .get("timestamp")
            .and_then(Value::as_str)
            .map(|t| clip(t, 40)),
    })
}

/// Removes all but the newest [`KEEP_CHECKPOINTS`] of the session's checkpoints.
fn prune(store: &Store, scope: &Scope) {
    let names: Vec<String> = store
        .list(scope, Some(DIR))
        .into_iter()
        .filter(|n| is_stamped(n))
        .collect();
    let surplus = names.len().saturating_sub(KEEP_CHECKPOINTS);
    for name in &names[..surplus] {
        if let Some(f) = StateFile::nested(scope, DIR, name)
            && let Err(e) = store.remove(&f)
        {
            crate::diag!("pre-compact: cannot remove old checkpoint {name}: {e}");
        }
    }
}

/// A checkpoint taken before a compaction, named by its time (`<stamp>.json`); not
/// [`PENDING`], which would sort after every stamp.
fn is_stamped(name: &str) -> bool {
    name.ends_with(".json") && name != PENDING
}

/// The newest checkpoint of a session, if any: the newest named by its time, or [`PENDING`]
/// when that was taken later (its name says nothing of its age, its `created_at` does).
pub fn latest(store: &Store, scope: &Scope) -> Option<Checkpoint> {
    let read =
        |name: &str| -> Option<Checkpoint> { store.read(&StateFile::nested(scope, DIR, name)?) };
    let names = store.list(scope, Some(DIR));
    let stamped = names.iter().rfind(|n| is_stamped(n)).and_then(|n| read(n));
    let pending = names
        .iter()
        .any(|n| n == PENDING)
        .then(|| read(PENDING))
        .flatten();
    match (stamped, pending) {
        (Some(s), Some(p)) if p.created_at > s.created_at => Some(p),
        (Some(s), _) => Some(s),
        (None, p) => p,
    }
}

fn modes_line(cp: &Checkpoint) -> String {
    if cp.active_modes.is_empty() {
        return "none".into();
    }
    cp.active_modes
        .iter()
        .map(|m| {
            format!(
                "{} {}/{} \"{}\"",
                m.mode,
                m.iteration,
                m.max_iterations,
                clip(&m.prompt, 80)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn files_line(cp: &Checkpoint, max: usize) -> String {
    if cp.edited_files.is_empty() {
        return "none".into();
    }
    let mut parts: Vec<String> = cp
        .edited_files
        .iter()
        .take(max)
        .map(|f| format!("{} (+{} -{})", clip(&f.path, 200), f.added, f.removed))
        .collect();
    if cp.edited_files.len() > max {
        parts.push(format!("and {} more", cp.edited_files.len() - max));
    }
    parts.join(", ")
}

fn error_line(cp: &Checkpoint) -> String {
    cp.last_tool_error.as_ref().map_or("none".into(), |e| {
        format!(
            "{} failed {}× — {}",
            e.tool_name,
            e.retry_count,
            clip(&e.error, 160)
        )
    })
}

fn guards_line(cp: &Checkpoint) -> String {
    if cp.skill_guards.is_empty() {
        return "none".into();
    }
    cp.skill_guards
        .iter()
        .map(|g| match &g.level {
            Some(l) => format!("{} ({l})", g.name),
            None => g.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn todos_block(cp: &Checkpoint) -> String {
    if cp.open_todos.is_empty() {
        return "- none".into();
    }
    cp.open_todos
        .iter()
        .take(30)
        .map(|t| format!("- [{}] {}", t.status, clip(&t.content, 200)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The person's note (systemMessage).
pub fn message(cp: &Checkpoint) -> String {
    render(
        MESSAGE.trim_end(),
        &[
            ("modes", &modes_line(cp)),
            ("files", &cp.edited_files.len().to_string()),
            ("todos", &cp.open_todos.len().to_string()),
        ],
    )
}

/// The notepad's Working Memory entry.
pub fn entry_text(cp: &Checkpoint) -> String {
    render(
        ENTRY.trim_end(),
        &[
            ("trigger", cp.trigger.as_deref().unwrap_or("auto")),
            ("session", cp.session_id.as_deref().unwrap_or("-")),
            ("modes", &modes_line(cp)),
            ("files", &files_line(cp, 10)),
            ("todos", &cp.open_todos.len().to_string()),
            ("error", &error_line(cp)),
        ],
    )
}

/// What SessionStart shows the model after a compaction.
pub fn context(cp: &Checkpoint) -> String {
    render(
        CONTEXT.trim_end(),
        &[
            ("created", &cp.created_at),
            ("modes", &modes_line(cp)),
            ("guards", &guards_line(cp)),
            ("error", &error_line(cp)),
            ("files", &files_line(cp, 30)),
            ("todos", &todos_block(cp)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_that_was_not_written_says_so() {
        let p = WriteProblem::DiskFull("/p/.omc".into());
        assert_eq!(
            not_saved(&p),
            "omc-hooks checkpoint NOT saved before compaction, because the disk holding /p/.omc \
             is full: after compaction the model gets no checkpoint of the active runs and work \
             in flight (fix: free some space on that disk)."
        );
    }
    use serde_json::json;

    fn sample() -> Checkpoint {
        Checkpoint {
            schema_version: 1,
            session_id: Some("s1".into()),
            created_at: "2026-12-02T13:45:00.000Z".into(),
            trigger: Some("manual".into()),
            active_modes: vec![ActiveMode {
                mode: "ralph".into(),
                prompt: "fix the tests".into(),
                iteration: 3,
                max_iterations: 100,
                phase: None,
                started_at: None,
            }],
            skill_guards: vec![SkillGuard {
                name: "plan".into(),
                level: Some("medium".into()),
            }],
            last_tool_error: Some(ToolError {
                tool_name: "Bash".into(),
                error: "Exit code 3".into(),
                retry_count: 2,
                timestamp: None,
            }),
            edited_files: vec![edits::EditedFile {
                path: "src/a.rs".into(),
                added: 3,
                removed: 1,
                edits: 2,
                last_edit_at: "t".into(),
            }],
            open_todos: vec![todos::Todo {
                id: None,
                content: "write tests".into(),
                status: "in_progress".into(),
            }],
        }
    }

    /// A store in a fresh temporary project (kept alive by the returned directory).
    fn scratch_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(
            crate::state::Root {
                project: dir.path().into(),
                omc: dir.path().join(".omc"),
            },
            1_796_305_500_000,
        );
        (dir, store)
    }

    #[test]
    fn an_uncertain_compaction_keeps_one_pending_checkpoint_and_writes_nothing_unchanged() {
        let (dir, store) = scratch_store();
        let scope = Scope::for_session(Some("s1"));
        let pending = StateFile::nested(&scope, DIR, PENDING).unwrap();
        let names = || store.list(&scope, Some(DIR));
        // Nothing in flight, nothing on disk: not even the session directory.
        keep_pending(&store, &scope, &Checkpoint::default());
        assert!(!dir.path().join(".omc").exists());
        // A run: one file.
        let mut cp = sample();
        keep_pending(&store, &scope, &cp);
        assert_eq!(names(), vec![PENDING.to_string()]);
        // Asked again a turn later with the same content: not rewritten.
        let before = std::fs::metadata(store.path(&pending))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut later = cp.clone();
        later.created_at = "2026-12-02T13:46:00.000Z".into();
        later.trigger = Some("auto".into());
        keep_pending(&store, &scope, &later);
        let after = std::fs::metadata(store.path(&pending))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(before, after, "unchanged content is not written again");
        // The run's next iteration: the same file, replaced.
        cp.active_modes[0].iteration = 4;
        keep_pending(&store, &scope, &cp);
        assert_eq!(names(), vec![PENDING.to_string()]);
        assert_eq!(latest(&store, &scope).unwrap().active_modes[0].iteration, 4);
        // Nothing in flight any more: removed.
        keep_pending(&store, &scope, &Checkpoint::default());
        assert!(names().is_empty());
    }

    #[test]
    fn the_pending_checkpoint_is_never_pruned_and_is_latest_only_when_newer() {
        let (_dir, store) = scratch_store();
        let scope = Scope::for_session(Some("s1"));
        let at = |stamp: &str, iteration: u32| {
            let mut cp = sample();
            cp.created_at = stamp.into();
            cp.active_modes[0].iteration = iteration;
            cp
        };
        // a pending checkpoint (it sorts after every stamp), then a later stamped one
        keep_pending(&store, &scope, &at("2026-12-02T13:40:00.000Z", 3));
        let f = StateFile::nested(&scope, DIR, "20261202T134500000Z.json").unwrap();
        store.write(&f, &at("2026-12-02T13:45:00.000Z", 5)).unwrap();
        assert_eq!(latest(&store, &scope).unwrap().active_modes[0].iteration, 5);
        // the pending one changes later: now it is the newest
        keep_pending(&store, &scope, &at("2026-12-02T13:50:00.000Z", 6));
        assert_eq!(latest(&store, &scope).unwrap().active_modes[0].iteration, 6);
        // KEEP_CHECKPOINTS stamped ones more: the pending one is not counted, nor pruned
        for i in 0..KEEP_CHECKPOINTS {
            let f =
                StateFile::nested(&scope, DIR, &format!("20261202T14{i:02}00000Z.json")).unwrap();
            store.write(&f, &at("2026-12-02T13:30:00.000Z", 1)).unwrap();
        }
        prune(&store, &scope);
        let names = store.list(&scope, Some(DIR));
        assert_eq!(names.len(), KEEP_CHECKPOINTS + 1, "{names:?}");
        assert!(names.iter().any(|n| n == PENDING), "{names:?}");
        assert!(
            !names.iter().any(|n| n == "20261202T134500000Z.json"),
            "{names:?}"
        );
    }

    #[test]
    fn texts_are_pinned() {
        let cp = sample();
        assert_eq!(
            message(&cp),
            "omc-hooks checkpoint saved before compaction — active: ralph 3/100 \"fix the tests\"; 1 edited file(s), 1 open todo(s)."
        );
        assert_eq!(
            entry_text(&cp),
            "Compaction (manual) in session s1.\n- Active: ralph 3/100 \"fix the tests\"\n- Edited: src/a.rs (+3 -1)\n- Open todos: 1\n- Last tool error: Bash failed 2× — Exit code 3"
        );
        assert_eq!(
            context(&cp),
            "[CHECKPOINT BEFORE COMPACTION] Saved 2026-12-02T13:45:00.000Z. The conversation was compacted; this is what was in flight.\n\
             - Active runs: ralph 3/100 \"fix the tests\"\n\
             - Skill guards: plan (medium)\n\
             - Last tool error: Bash failed 2× — Exit code 3\n\
             - Edited files: src/a.rs (+3 -1)\n\
             Open todos:\n\
             - [in_progress] write tests"
        );
    }

    #[test]
    fn skill_guards_are_found_tolerantly() {
        let now = 1_796_305_500_000;
        let v = json!({"schema_version":1,"stack":[
            {"skill_name":"plan","level":"medium","expires_at":"2026-12-03T14:00:00.000Z"},
            {"skill_name":"old","expires_at":"2026-12-01T00:00:00.000Z"},
            {"skill_name":"done","completed_at":"2026-12-02T13:00:00.000Z"}]});
        let g = skill_guards(&v, now);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].name, "plan");
        let omc_v2 = json!({"version":2,"active_skills":{"ralplan":{"skill_name":"ralplan","completed_at":null}}});
        assert_eq!(skill_guards(&omc_v2, now)[0].name, "ralplan");
        assert!(skill_guards(&json!("junk"), now).is_empty());
    }

    #[test]
    fn tool_error_tolerates_missing_fields() {
        assert_eq!(tool_error(&json!({"error":"x"})), None);
        let e = tool_error(&json!({"tool_name":"Bash"})).unwrap();
        assert_eq!((e.retry_count, e.error.as_str()), (1, ""));
    }
}
