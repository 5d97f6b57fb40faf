//! Persistent modes on Stop (contract §6).
//!
//! The highest-priority run of this session that is active, in this project and not stale
//! decides: it blocks with its mode's continuation text, or ends (completion token, its own
//! end, its iteration limit or time budget), or pauses (a hold, or a continuation limit: ours
//! on continuations without progress — [`progress`] resets the count on any tool event — and
//! the client's own, `protocol::agents::caps`). Each decision is made again under the run's
//! lock on the freshly read file, so a cancel racing the Stop wins and parallel hooks lose no
//! count. With no run to continue, the skill guards decide.
//!
//! A model that needs the user hands the turn back ([`needs_input`]): the run (or skill guard)
//! pauses instead of sending it back, and resumes with the user's next prompt.

pub mod budget;
pub mod command;
pub mod guards;
pub mod journal;
pub mod needs_input;
pub mod progress;
pub mod start;
pub mod verify;
pub mod volatile;
pub mod work;
pub mod writes;

use super::{Ctx, skill_guard, tool_failure};
use crate::modes::{
    self, COMPLETION_TOKEN, PersistentMode, Progress, REGISTRY, declares_completion,
};
use crate::protocol::Answer;
use crate::protocol::agents::StopLimits;
use crate::state::files::ModeState;
use crate::state::{Change, Scope, StateFile, Store};
use std::path::Path;

/// A run untouched for longer than this is stale and ends.
pub const STALE_MS: i64 = 2 * 60 * 60 * 1000;

const PAUSED: &str = include_str!("../../../templates/stop/paused.md");
const PAUSED_REPEATING: &str = include_str!("../../../templates/stop/paused-repeating.md");
const PAUSED_PROMPT: &str = include_str!("../../../templates/stop/paused-prompt.md");
const HELD: &str = include_str!("../../../templates/stop/held.md");
const LIMIT: &str = include_str!("../../../templates/stop/limit.md");
const FINISHED: &str = include_str!("../../../templates/stop/finished.md");
const WAITING: &str = include_str!("../../../templates/stop/waiting.md");

/// Whether one more continuation stays within `limit` after `so_far` of the kind it counts.
/// Claude Code honours `cap` blocks in a row without a tool call and ignores the next one
/// (tests/e2e/FINDINGS.md §7); Qwen Code's per-prompt limit is given here already one under
/// its cap. At the limit the run hands control back itself, with a note, rather than being cut
/// off silently with its counters advanced.
pub fn may_block(so_far: u32, limit: u32) -> bool {
    so_far < limit
}

/// What the facts of this Stop are, gathered once.
struct Facts<'a> {
    ctx: &'a Ctx<'a>,
    store: &'a Store,
    now_iso: String,
    /// The client's continuation limits, read when a run first needs them (on Qwen Code and
    /// Cursor that reads the client's settings).
    limits: std::cell::OnceCell<StopLimits>,
    /// The session's work log, read when a run first needs it: once per Stop, however many
    /// runs are live (the evidence a claim needs, what repeated for a hand-back).
    log: std::cell::OnceCell<progress::WorkLog>,
    /// The session's last tool failure, read when first needed: once per Stop, for the
    /// escalation a run notes and the guidance at the head of a continuation.
    tool_error: std::cell::OnceCell<Option<tool_failure::ToolError>>,
}

impl Facts<'_> {
    fn tool_error(&self) -> Option<&tool_failure::ToolError> {
        self.tool_error
            .get_or_init(|| tool_failure::read(self.store, &self.ctx.scope))
            .as_ref()
    }

    fn limits(&self) -> StopLimits {
        *self.limits.get_or_init(|| self.ctx.stop_limits())
    }

    fn log(&self) -> &progress::WorkLog {
        self.log
            .get_or_init(|| progress::read(self.store, &self.ctx.scope))
    }
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
        limits: std::cell::OnceCell::new(),
        log: std::cell::OnceCell::new(),
        tool_error: std::cell::OnceCell::new(),
    };
    let mut notes: Vec<String> = Vec::new();

    // This session's live runs, highest priority first; stale ones end on the way. One
    // listing of the session's directory says which mode files to open: a session with no
    // run opens none ([`crate::state::Store::names`]).
    let present = store.names(&ctx.scope);
    let mut live: Vec<&'static PersistentMode> = Vec::new();
    for spec in &REGISTRY {
        let Some(file) = mode_file(&ctx.scope, spec) else {
            continue;
        };
        if present
            .as_ref()
            .is_some_and(|p| !p.iter().any(|n| n == file.name()))
        {
            continue;
        }
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
    // A claim ends a run only with the evidence its verify commands ask for; a run whose
    // evidence is missing goes on, told what to run.
    let mut unverified: Vec<(&'static str, String)> = Vec::new();
    if completed && !live.is_empty() {
        let log = facts.log();
        let mut ended: Vec<&str> = Vec::new();
        live.retain(|spec| match verify::unmet(spec.name, &ctx.config, log) {
            Some(note) => {
                unverified.push((spec.name, note));
                true
            }
            None => {
                let checked = !verify::commands(spec.name, &ctx.config).is_empty();
                if end_run(&facts, spec, "completed", Some(checked)) {
                    ended.push(spec.name);
                }
                false
            }
        });
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
        let claim = unverified
            .iter()
            .find(|(m, _)| *m == spec.name)
            .map(|(_, n)| n.as_str());
        match advance(&facts, spec, claim) {
            Step::Gone => {}
            Step::Finished(why) => notes.push(finished_note(spec.name, why)),
            Step::Stop(note) => {
                notes.push(note);
                return with_notes(Answer::default(), notes);
            }
            Step::Paused(note, state) => {
                left_open(&facts, &state);
                notes.push(note);
                return with_notes(Answer::default(), notes);
            }
            Step::StillPaused => return with_notes(Answer::default(), notes),
            Step::Block(reason) => {
                let reason = match facts
                    .tool_error()
                    .and_then(|e| tool_failure::fresh_guidance(e, ctx.now_ms))
                {
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
    let log = facts.log();
    let r = facts.store.update(&file, |s: Option<ModeState>| match s {
        Some(s) if matches!(standing(&named(s.clone(), spec), facts), Standing::Ours) => {
            let mut s = named(s, spec);
            s.new_turn();
            s.awaiting_input_at = Some(facts.now_iso.clone());
            s.last_checked_at = Some(facts.now_iso.clone());
            count_tokens(&mut s, facts.ctx);
            journal::note(&mut s, log, &facts.now_iso, "waiting", None);
            (Change::Write(s.clone()), Some(s))
        }
        _ => (Change::Keep, None),
    });
    match r {
        Ok(Some(s)) => {
            left_open(facts, &s);
            true
        }
        Ok(None) => false,
        Err(e) => {
            // The hand-back happens anyway: never send back a model that asked the user.
            crate::diag!("stop: cannot mark {} as waiting: {e}", spec.name);
            true
        }
    }
}

/// The turn ends with the run `s` still active. On an agent whose sessions may end without a
/// SessionEnd (so the run would never be suspended), it is noted as left open, for the next
/// session to take up (`memory::resume`).
fn left_open(facts: &Facts<'_>, s: &ModeState) {
    if let (true, Some(sid)) = (
        facts.ctx.input.agent.may_end_silently(),
        facts.ctx.scope.session_id(),
    ) {
        super::memory::resume::note_open(facts.store, s, sid, &facts.now_iso);
    }
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

/// Ends a live run for `why` (`verified`: for a completion claim, whether verify commands
/// backed it); false if it was no longer live.
fn end_run(facts: &Facts<'_>, spec: &PersistentMode, why: &str, verified: Option<bool>) -> bool {
    let Some(file) = mode_file(&facts.ctx.scope, spec) else {
        return false;
    };
    let log = facts.log();
    let escalated = facts.tool_error().and_then(journal::escalation);
    let r = facts.store.update(&file, |s: Option<ModeState>| match s {
        Some(s) if matches!(standing(&named(s.clone(), spec), facts), Standing::Ours) => {
            let mut s = named(s, spec);
            count_tokens(&mut s, facts.ctx);
            journal::note_escalation(&mut s, escalated.as_ref());
            s.end(why, &facts.now_iso);
            s.verified = verified;
            journal::note(&mut s, log, &facts.now_iso, "ended", Some(why));
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
    /// Stop allowed with a note for the person: the run ended at a limit.
    Stop(String),
    /// Stop allowed with a note for the person: the run paused at a continuation limit, and
    /// stays active as it is now.
    Paused(String, Box<ModeState>),
    /// Stop allowed silently: the run was handed back earlier and waits for the person's next
    /// prompt.
    StillPaused,
    /// Continue with this reason.
    Block(String),
}

fn advance(facts: &Facts<'_>, spec: &'static PersistentMode, claim: Option<&str>) -> Step {
    let Some(file) = mode_file(&facts.ctx.scope, spec) else {
        return Step::Gone;
    };
    let config = &facts.ctx.config;
    // What repeated since the last progress, for a hand-back (read once, outside the lock).
    let log = facts.log();
    let escalated = facts.tool_error().and_then(journal::escalation);
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
        // Counted first, so a run that ends here ends with what it spent.
        count_tokens(&mut s, facts.ctx);
        journal::note_escalation(&mut s, escalated.as_ref());
        let end = |s: &mut ModeState, why: &str| {
            s.end(why, &facts.now_iso);
            journal::note(s, log, &facts.now_iso, "ended", Some(why));
        };
        if let Some(why) = modes::finished(&s) {
            end(&mut s, why);
            return (Change::Write(s), Step::Finished(why));
        }
        let max = modes::effective_max(&s, config);
        if s.iteration >= max {
            end(&mut s, "max_iterations");
            let limit = format!("{max} iterations");
            return (Change::Write(s), Step::Stop(limit_note(spec.name, &limit)));
        }
        if spec.progress == Progress::Tests {
            let (cycle, max_cycles) = modes::cycles_of(&s);
            if cycle > max_cycles {
                end(&mut s, "max_cycles");
                let limit = format!("{max_cycles} QA cycles");
                return (Change::Write(s), Step::Stop(limit_note(spec.name, &limit)));
            }
        }
        if let Some(left) = modes::time_left_ms(&s, facts.ctx.now_ms)
            && left <= 0
        {
            end(&mut s, "max_minutes");
            let limit = modes::minutes_text(s.max_minutes);
            return (Change::Write(s), Step::Stop(limit_note(spec.name, &limit)));
        }
        if s.max_tokens > 0 && s.tokens_used >= s.max_tokens {
            end(&mut s, "max_tokens");
            let limit = format!(
                "{} tokens ({} spent)",
                tokens_text(s.max_tokens),
                tokens_text(s.tokens_used)
            );
            return (Change::Write(s), Step::Stop(limit_note(spec.name, &limit)));
        }
        if let Some(spent) = s
            .cost_usd
            .filter(|c| s.max_cost_usd > 0.0 && *c >= s.max_cost_usd)
        {
            end(&mut s, "max_cost");
            let limit = format!(
                "{} ({} spent)",
                money_text(s.max_cost_usd),
                money_text(spent)
            );
            return (Change::Write(s), Step::Stop(limit_note(spec.name, &limit)));
        }
        // Handed back at a limit: the run waits for the person's next prompt, however many
        // Stops the client sends meanwhile.
        if s.paused_at.is_some() {
            s.last_checked_at = Some(facts.now_iso.clone());
            return (Change::Write(s), Step::StillPaused);
        }
        // A Stop the client sends outside a continuation starts the counts afresh (a stale
        // count from an earlier turn does not hold) — where the client's flag says so reliably;
        // elsewhere the person's prompt resets the counts (`keywords::reset_turn`).
        let fresh = !facts.ctx.input.stop_hook_active
            && facts.ctx.input.format.flags_every_continued_stop();
        let idle = if fresh { 0 } else { s.consecutive_blocks };
        let per_prompt =
            facts
                .ctx
                .input
                .client_continuations
                .unwrap_or(if fresh { 0 } else { s.turn_blocks });
        s.last_checked_at = Some(facts.now_iso.clone());
        let limits = facts.limits();
        let pause = if !may_block(idle, limits.idle.max) {
            let (template, why) = match log.repeat.as_deref().filter(|_| log.repeats > 0) {
                Some(what) => (
                    PAUSED_REPEATING,
                    format!("no progress in the last {idle} continuations: {what}"),
                ),
                None => (
                    PAUSED,
                    format!("no tool ran in the last {idle} continuations"),
                ),
            };
            Some((template, idle, limits.idle, why, "no_progress"))
        } else {
            limits
                .per_prompt
                .filter(|l| !may_block(per_prompt, l.max))
                .map(|l| {
                    (
                        PAUSED_PROMPT,
                        per_prompt,
                        l,
                        format!("{} allows {} continuations per prompt", l.owner, l.max),
                        "client_cap",
                    )
                })
        };
        if let Some((template, blocks, limit, why, kind)) = pause {
            s.new_turn();
            s.paused_at = Some(facts.now_iso.clone());
            s.pause_kind = Some(kind.to_string());
            let what = log.repeat.clone().unwrap_or_default();
            let note = modes::fill(
                template,
                &[
                    ("mode", spec.name),
                    ("blocks", &blocks.to_string()),
                    ("cap", &limit.max.to_string()),
                    ("who", limit.owner),
                    ("what", &what),
                ],
            );
            s.paused_reason = Some(why.clone());
            journal::note(&mut s, log, &facts.now_iso, "paused", Some(&why));
            return (Change::Write(s.clone()), Step::Paused(note, Box::new(s)));
        }
        // The record names the iteration that just ended.
        journal::note(&mut s, log, &facts.now_iso, "continue", None);
        s.iteration = s.iteration.saturating_add(1);
        s.consecutive_blocks = idle + 1;
        s.turn_blocks = per_prompt.saturating_add(1);
        s.paused_at = None;
        s.paused_reason = None;
        let reason = continuation(spec, &s, max, facts.ctx);
        let reason = match claim {
            Some(note) => format!("{}\n\n{reason}", note.trim_end()),
            None => reason,
        };
        (Change::Write(s), Step::Block(reason))
    });
    r.unwrap_or_else(|e| {
        crate::diag!("stop: cannot update {}: {e}; not blocking", spec.name);
        Step::Gone
    })
}

/// Adds the tokens the client recorded since the last count to the run's `tokens_used`
/// (from the run's start on, by the records' time stamps).
fn count_tokens(s: &mut ModeState, ctx: &Ctx<'_>) {
    let Some(path) = ctx.input.transcript_path.as_deref() else {
        return;
    };
    let since = s
        .started_at
        .as_deref()
        .and_then(crate::time::parse_iso)
        .unwrap_or(i64::MIN);
    if let Some((added, cursor)) =
        crate::state::usage::count_split(path, s.token_cursor.as_ref(), since)
    {
        s.tokens_used = s.tokens_used.saturating_add(added.total);
        crate::state::usage::add_models(&mut s.usage, &added.by_model);
        s.usage.retain(|_, t| t.sum() > 0);
        s.token_cursor = Some(cursor);
    }
    s.cost_usd = modes::run_cost(s, &ctx.config);
}

fn money_text(usd: f64) -> String {
    crate::config::prices::money_text(usd)
}

fn tokens_text(n: u64) -> String {
    crate::state::usage::tokens_text(n)
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
            ("time_left", &modes::budget_suffix(s, ctx.now_ms)),
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
            // An indented code block (issue 35).
            "The last line of your message must be:\n\n    <omc-complete/>",
            "Like this:\n\t<omc-complete/>\n",
            "",
        ] {
            assert!(!declares_completion(no), "{no:?}");
        }
    }
}
