//! Persistent modes on Stop (contract §6).
//!
//! The highest-priority run of this session that is active, in this project and not stale
//! decides: it blocks with its mode's continuation text, or ends (completion token, its own
//! end, a limit), or pauses (a hold, or Claude Code's consecutive-block cap). Each decision is
//! made again under the run's lock on the freshly read file, so a cancel racing the Stop wins
//! and parallel hooks lose no count. With no run to continue, the skill guards decide.
//!
//! A model that needs the user hands the turn back ([`needs_input`]): the run (or skill guard)
//! pauses instead of sending it back, and resumes with the user's next prompt.

pub mod command;
pub mod guards;
pub mod needs_input;
pub mod start;

use super::{Ctx, skill_guard, tool_failure};
use crate::modes::{
    self, COMPLETION_TOKEN, PersistentMode, Progress, REGISTRY, declares_completion,
};
use crate::protocol::Answer;
use crate::state::files::ModeState;
use crate::state::{Change, Scope, StateFile, Store};
use std::path::Path;

/// A run untouched for longer than this is stale and ends.
pub const STALE_MS: i64 = 2 * 60 * 60 * 1000;

/// Claude Code's own limit on consecutive Stop blocks when `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`
/// does not set one.
pub const DEFAULT_BLOCK_CAP: u32 = 8;

const PAUSED: &str = include_str!("../../../templates/stop/paused.md");
const HELD: &str = include_str!("../../../templates/stop/held.md");
const LIMIT: &str = include_str!("../../../templates/stop/limit.md");
const FINISHED: &str = include_str!("../../../templates/stop/finished.md");
const WAITING: &str = include_str!("../../../templates/stop/waiting.md");

/// The client's consecutive-block cap in force.
pub fn block_cap(env_value: Option<&str>) -> u32 {
    env_value
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_BLOCK_CAP)
}

/// Whether one more block will be honoured after `blocks_so_far` in a row. Claude Code honours
/// `cap` consecutive blocks and ignores the next one (tests/e2e/FINDINGS.md §7: 8 honoured by
/// default, `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=3` → 3). At that Stop the run hands control back
/// itself, with a note, rather than being cut off silently with its counters advanced.
pub fn may_block(blocks_so_far: u32, cap: u32) -> bool {
    blocks_so_far < cap
}

/// What the facts of this Stop are, gathered once.
struct Facts<'a> {
    ctx: &'a Ctx<'a>,
    store: &'a Store,
    now_iso: String,
    cap: u32,
    /// Whose limit `cap` is: the client's name, or `omc-hooks`.
    cap_owner: &'static str,
}

/// The Stop hook entry point.
pub fn stop(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = ctx.store.as_ref() else {
        return Answer::default();
    };
    let facts = Facts {
        ctx,
        store,
        now_iso: crate::time::iso(ctx.now_ms),
        // Ours on every agent (Codex and Gemini have none), or the client's when lower.
        cap: ctx.stop_block_limit().0,
        cap_owner: ctx.stop_block_limit().1,
    };
    let mut notes: Vec<String> = Vec::new();

    // This session's live runs, highest priority first; stale ones end on the way.
    let mut live: Vec<&'static PersistentMode> = Vec::new();
    for spec in &REGISTRY {
        let Some(file) = mode_file(&ctx.scope, spec) else {
            continue;
        };
        let Some(state) = store.read::<ModeState>(&file) else {
            continue;
        };
        match standing(&named(state, spec), &facts) {
            Standing::Ours => live.push(spec),
            Standing::Stale => end_stale(&facts, &file),
            Standing::NotOurs => {}
        }
    }

    let completed = ctx
        .input
        .last_assistant_message
        .as_deref()
        .is_some_and(declares_completion);
    if completed && !live.is_empty() {
        let ended: Vec<&str> = live
            .drain(..)
            .filter(|spec| end_run(&facts, spec, "completed"))
            .map(|spec| spec.name)
            .collect();
        if !ended.is_empty() {
            notes.push(finished_note(&ended.join(", "), "completed"));
        }
    }

    if let Some(top) = live.first()
        && let Some(hold) = guards::hold(ctx)
    {
        if hold.tell() {
            notes.push(modes::fill(
                HELD,
                &[("mode", top.name), ("why", &hold.why())],
            ));
        }
        return with_notes(Answer::default(), notes);
    }

    let handed_back = ctx
        .input
        .last_assistant_message
        .as_deref()
        .filter(|_| !completed)
        .and_then(|m| needs_input::hands_back(m, needs_input::Asker::PersistentMode));
    if let (Some(top), Some(why)) = (live.first(), handed_back)
        && await_user(&facts, top)
    {
        notes.push(modes::fill(
            WAITING,
            &[("what", top.name), ("how", why.how())],
        ));
        return with_notes(Answer::default(), notes);
    }

    for spec in live {
        match advance(&facts, spec) {
            Step::Gone => {}
            Step::Finished(why) => notes.push(finished_note(spec.name, why)),
            Step::Stop(note) => {
                notes.push(note);
                return with_notes(Answer::default(), notes);
            }
            Step::Block(reason) => {
                let reason = match tool_failure::fresh_guidance(ctx) {
                    Some(g) => format!("{g}\n\n{reason}"),
                    None => reason,
                };
                return with_notes(Answer::block(reason), notes);
            }
        }
    }

    with_notes(skill_guards(&facts), notes)
}

/// No persistent mode continues: a running protected skill may still hold the turn.
fn skill_guards(facts: &Facts<'_>) -> Answer {
    // Nothing to guard without a skill stack; spare the transcript read.
    let stack = StateFile::new(&facts.ctx.scope, super::cancel::SKILL_STACK_FILE);
    if !stack.is_some_and(|f| facts.store.path(&f).exists()) {
        return Answer::default();
    }
    if guards::hold(facts.ctx).is_some() {
        return Answer::default();
    }
    let message = facts.ctx.input.last_assistant_message.as_deref();
    let handed_back = message
        .filter(|m| !declares_completion(m))
        .and_then(|m| needs_input::hands_back(m, needs_input::Asker::SkillGuard));
    if let Some(why) = handed_back {
        // No reinforcement is spent: the guard waits for the user, as long as its TTL allows.
        let top = skill_guard::guards(facts.store, &facts.ctx.scope, facts.ctx.now_ms);
        return match top.first() {
            Some(g) => Answer::system_message(modes::fill(
                WAITING,
                &[
                    ("what", &format!("the `{}` skill", g.skill_name)),
                    ("how", why.how()),
                ],
            )),
            None => Answer::default(),
        };
    }
    skill_guard::stop_block(facts.ctx).map_or_else(Answer::default, Answer::block)
}

/// Marks the run as waiting for the user (shown by `status`; cleared by the next prompt).
/// False if it was no longer live.
fn await_user(facts: &Facts<'_>, spec: &PersistentMode) -> bool {
    let Some(file) = mode_file(&facts.ctx.scope, spec) else {
        return false;
    };
    let r = facts.store.update(&file, |s: Option<ModeState>| match s {
        Some(s) if matches!(standing(&named(s.clone(), spec), facts), Standing::Ours) => {
            let mut s = named(s, spec);
            s.awaiting_input_at = Some(facts.now_iso.clone());
            s.last_checked_at = Some(facts.now_iso.clone());
            s.consecutive_blocks = 0;
            (Change::Write(s), true)
        }
        _ => (Change::Keep, false),
    });
    r.unwrap_or_else(|e| {
        // The hand-back happens anyway: never send back a model that asked the user.
        crate::diag!("stop: cannot mark {} as waiting: {e}", spec.name);
        true
    })
}

fn with_notes(mut answer: Answer, notes: Vec<String>) -> Answer {
    if !notes.is_empty() {
        answer.system_message = Some(notes.join("\n"));
    }
    answer
}

fn mode_file(scope: &Scope, spec: &PersistentMode) -> Option<StateFile> {
    StateFile::new(scope, &modes::state_file_name(spec.name))
}

/// A file written by OMC has no `mode`; the file name says which it is.
fn named(mut state: ModeState, spec: &PersistentMode) -> ModeState {
    if state.mode != spec.name {
        state.mode = spec.name.to_string();
    }
    state
}

enum Standing {
    Ours,
    Stale,
    NotOurs,
}

/// Whether a run is this session's live run, a stale one, or none of our business (inactive,
/// suspended, another session's or another project's — those are left exactly as found).
fn standing(state: &ModeState, facts: &Facts<'_>) -> Standing {
    if !state.active || state.suspended_at.is_some() {
        return Standing::NotOurs;
    }
    let session_ok = match &facts.ctx.scope {
        Scope::Session(id) => state.session_id.as_deref().is_none_or(|s| s == id.as_str()),
        _ => state.session_id.is_none(),
    };
    let project_ok = state
        .project_path
        .as_deref()
        .is_none_or(|p| same_path(Path::new(p), facts.store.project()));
    if !session_ok || !project_ok {
        return Standing::NotOurs;
    }
    let last = [
        state.last_checked_at.as_deref(),
        state.started_at.as_deref(),
        state.extra.get("updated_at").and_then(|v| v.as_str()),
    ]
    .into_iter()
    .flatten()
    .filter_map(crate::time::parse_iso)
    .max();
    match last {
        Some(t) if facts.ctx.now_ms - t <= STALE_MS => Standing::Ours,
        _ => Standing::Stale,
    }
}

fn same_path(a: &Path, b: &Path) -> bool {
    let trim = |p: &Path| p.to_string_lossy().trim_end_matches('/').to_string();
    trim(a) == trim(b)
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

fn end_stale(facts: &Facts<'_>, file: &StateFile) {
    let r = facts.store.update(file, |s: Option<ModeState>| match s {
        Some(mut s) if matches!(standing(&s, facts), Standing::Stale) => {
            s.end("stale", &facts.now_iso);
            (Change::Write(s), ())
        }
        _ => (Change::Keep, ()),
    });
    if let Err(e) = r {
        crate::diag!("stop: cannot end stale run {}: {e}", file.name());
    }
}

/// Ends a live run for `why`; false if it was no longer live.
fn end_run(facts: &Facts<'_>, spec: &PersistentMode, why: &str) -> bool {
    let Some(file) = mode_file(&facts.ctx.scope, spec) else {
        return false;
    };
    let r = facts.store.update(&file, |s: Option<ModeState>| match s {
        Some(s) if matches!(standing(&named(s.clone(), spec), facts), Standing::Ours) => {
            let mut s = named(s, spec);
            s.end(why, &facts.now_iso);
            (Change::Write(s), true)
        }
        _ => (Change::Keep, false),
    });
    r.unwrap_or_else(|e| {
        crate::diag!("stop: cannot end {}: {e}", spec.name);
        false
    })
}

/// What one run decided under its lock.
enum Step {
    /// No longer live (cancelled, vanished, changed hands meanwhile).
    Gone,
    /// Ended by its own measure; the next run may still continue.
    Finished(&'static str),
    /// Stop allowed with a note for the person (limit reached, or paused at the block cap).
    Stop(String),
    /// Continue with this reason.
    Block(String),
}

fn advance(facts: &Facts<'_>, spec: &'static PersistentMode) -> Step {
    let Some(file) = mode_file(&facts.ctx.scope, spec) else {
        return Step::Gone;
    };
    let config = &facts.ctx.config;
    let r = facts.store.update(&file, |s: Option<ModeState>| {
        let Some(s) = s else {
            return (Change::Keep, Step::Gone);
        };
        let mut s = named(s, spec);
        match standing(&s, facts) {
            Standing::Ours => {}
            Standing::Stale => {
                s.end("stale", &facts.now_iso);
                return (Change::Write(s), Step::Gone);
            }
            Standing::NotOurs => return (Change::Keep, Step::Gone),
        }
        if let Some(why) = modes::finished(&s) {
            s.end(why, &facts.now_iso);
            return (Change::Write(s), Step::Finished(why));
        }
        let max = modes::effective_max(&s, config);
        if s.iteration >= max {
            s.end("max_iterations", &facts.now_iso);
            let limit = format!("{max} iterations");
            return (Change::Write(s), Step::Stop(limit_note(spec.name, &limit)));
        }
        if spec.progress == Progress::Tests {
            let (cycle, max_cycles) = modes::cycles_of(&s);
            if cycle > max_cycles {
                s.end("max_cycles", &facts.now_iso);
                let limit = format!("{max_cycles} QA cycles");
                return (Change::Write(s), Step::Stop(limit_note(spec.name, &limit)));
            }
        }
        let so_far = if facts.ctx.input.stop_hook_active {
            s.consecutive_blocks
        } else {
            0
        };
        s.last_checked_at = Some(facts.now_iso.clone());
        if !may_block(so_far, facts.cap) {
            s.consecutive_blocks = 0;
            let note = modes::fill(
                PAUSED,
                &[
                    ("mode", spec.name),
                    ("blocks", &so_far.to_string()),
                    ("cap", &facts.cap.to_string()),
                    ("who", facts.cap_owner),
                ],
            );
            return (Change::Write(s), Step::Stop(note));
        }
        s.iteration = s.iteration.saturating_add(1);
        s.consecutive_blocks = so_far + 1;
        let reason = continuation(spec, &s, max, facts.ctx);
        (Change::Write(s), Step::Block(reason))
    });
    r.unwrap_or_else(|e| {
        crate::diag!("stop: cannot update {}: {e}; not blocking", spec.name);
        Step::Gone
    })
}

fn limit_note(mode: &str, limit: &str) -> String {
    modes::fill(LIMIT, &[("mode", mode), ("limit", limit)])
}

fn finished_note(mode: &str, why: &str) -> String {
    let why = match why {
        "completed" => "completed",
        "tests_passing" => "all tests passing",
        "failed" => "reported failed",
        "cancelled" => "reported cancelled",
        other => other,
    };
    modes::fill(FINISHED, &[("mode", mode), ("why", why)])
}

/// How the model should call this binary: its own path when known, quoted for a shell.
pub(crate) fn bin(ctx: &Ctx<'_>) -> String {
    let Some(path) = ctx.env.var(crate::env::EXE_VAR) else {
        return "omc-hooks".into();
    };
    let safe = path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c));
    if safe {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// The task as the run recorded it (OMC's files may use other names).
fn task_of(s: &ModeState) -> String {
    let text = Some(s.prompt.as_str())
        .filter(|p| !p.trim().is_empty())
        .map(str::to_string)
        .or_else(|| {
            ["original_prompt", "task", "objective", "current_objective"]
                .iter()
                .find_map(|k| s.extra.get(*k)?.as_str().map(str::to_string))
        })
        .unwrap_or_else(|| "(the request that started this run)".into());
    crate::protocol::output::truncate_chars(text.trim(), 2_000)
}

/// The block reason: the mode's template with this run's numbers.
pub(crate) fn continuation(
    spec: &PersistentMode,
    s: &ModeState,
    max: u32,
    ctx: &Ctx<'_>,
) -> String {
    let iteration = s.iteration.to_string();
    let max = max.to_string();
    let task = task_of(s);
    let bin = bin(ctx);
    let session_flag = ctx
        .scope
        .session_id()
        .map(|id| format!(" --session {id}"))
        .unwrap_or_default();
    let phase = modes::phase_of(s).unwrap_or_else(|| "not reported yet".into());
    let (cycle, max_cycles) = modes::cycles_of(s);
    let (cycle, max_cycles) = (cycle.to_string(), max_cycles.to_string());
    let tests = match s.extra.get("all_passing").and_then(|v| v.as_bool()) {
        Some(false) => "the last run failed",
        _ => "no test result recorded yet",
    };
    let stage = modes::stages_of(s)
        .map(|(k, n)| format!("{k}/{n}"))
        .unwrap_or_else(|| "not reported yet".into());
    modes::fill(
        spec.template,
        &[
            ("iteration", &iteration),
            ("max", &max),
            ("task", &task),
            ("complete", COMPLETION_TOKEN),
            ("needs_input", needs_input::NEEDS_INPUT_TOKEN),
            ("bin", &bin),
            ("session_flag", &session_flag),
            ("phase", &phase),
            ("cycle", &cycle),
            ("max_cycles", &max_cycles),
            ("tests", tests),
            ("stage", &stage),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_allows_exactly_the_blocks_the_client_honours() {
        assert_eq!(block_cap(None), 8);
        assert_eq!(block_cap(Some("3")), 3);
        assert_eq!(block_cap(Some("0")), 8);
        assert_eq!(block_cap(Some("many")), 8);
        let allowed = (0..20).take_while(|n| may_block(*n, 8)).count();
        assert_eq!(allowed, 8);
        assert!(may_block(0, 1));
        assert!(!may_block(1, 1));
    }

    #[test]
    fn completion_token_spellings() {
        for yes in [
            "All done.\n<omc-complete/>",
            "All done.\n<omc-complete />\n",
            "All done.\r\n  <omc-complete></omc-complete>  \r\n\n",
            "<omc-complete/>",
            "```sh\ncargo test\n```\nAll green.\n<omc-complete/>",
        ] {
            assert!(declares_completion(yes), "{yes:?}");
        }
        for no in [
            "more work remains",
            "<omc-completed/>",
            // Mentions, not declarations (issue 30, item 4).
            "I will not print <omc-complete/> yet: 3 tests still fail.",
            "done <omc-complete />",
            "Once the tests pass I will write `<omc-complete/>`.",
            "The instructions say:\n> <omc-complete/>",
            "Example of the last line:\n`<omc-complete/>`",
            "Here is how it ends:\n```\n<omc-complete/>",
            "<omc-complete/>\nbut first, one more test fails.",
            "",
        ] {
            assert!(!declares_completion(no), "{no:?}");
        }
    }
}
