//! Magic keywords (contract §5), on UserPromptSubmit.
//!
//! A prompt is scanned for the fourteen keyword names ([`lexicon`]) after the parts that are
//! not the user talking are blanked ([`sanitize`]); each match is judged by the named rules of
//! one table ([`rules`]); precision comes first, because a false positive starts a loop that refuses to
//! stop. What is detected is injected as context (a header line, each mode's instructions from
//! `templates/modes/`, the request), and each persistent mode detected gets a fresh run in the
//! session's `<mode>-state.json`, enforced from the first Stop on. `cancel` ends every run and
//! skill guard of the session, alone: `cancelomc` always, a stop in the person's own words
//! (`stop the loop, it's burning tokens`) only while something of the session runs.
//!
//! Re-activating a mode that is already running restarts it: iteration 1, the new request as
//! its prompt, a fresh iteration budget. The user typed an explicit invocation with (usually) a
//! new task, and the old budget belongs to the old task.

mod blame;
mod boundary;
mod cjk;
mod guards;
pub mod lexicon;
mod matcher;
mod phrases;
mod records;
pub mod rules;
pub mod sanitize;
pub mod scan;
mod scene;
mod shapes;
mod stop;
mod text;
mod vocab;

pub use scan::{Candidate, Detection, detect, detect_with};

use super::Ctx;
use super::cancel::{Cancelled, anything_to_cancel, cancel_scope};
use super::persistent_mode::{budget, start};
use crate::config::Config;
use crate::modes::{PERSISTENT, is_persistent, max_iterations, state_file_name};
use crate::protocol::Answer;
use crate::state::files::ModeState;
use crate::state::health::WriteProblem;
use crate::state::{Change, StateFile};
use std::borrow::Cow;

/// The whole context stays under this many characters (the encoder truncates at 9 500).
pub const CONTEXT_BUDGET: usize = 9_000;
/// The request echoed in the context is cut here (less when the instructions are long).
const REQUEST_ECHO_MAX: usize = 2_000;
/// A run's stored `prompt` is cut here.
pub const STORED_PROMPT_MAX: usize = 500;

/// UserPromptSubmit: detect, activate, inject.
pub fn on_prompt(ctx: &Ctx<'_>) -> Answer {
    let Some(prompt) = ctx.input.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
        return Answer::default();
    };
    // A budget said after the mode's name (`ralph 2h fix …`) is not part of the request; a stop
    // said in the person's own words ends what runs, and with nothing running it is nothing.
    let running = || {
        ctx.store
            .as_ref()
            .is_some_and(|store| anything_to_cancel(store, &ctx.scope))
    };
    let (prompt, budget, det) = with_budget(prompt, &ctx.config, &running);
    let prompt = prompt.as_ref();
    if det.modes.is_empty() {
        return Answer::default();
    }
    let config = budget.apply(&ctx.config, &det.modes);
    let now_iso = crate::time::iso(ctx.now_ms);
    if det.cancel() {
        // Cancelling is always safe, so it works for team workers too.
        let done = ctx
            .store
            .as_ref()
            .map(|store| cancel_scope(store, &ctx.scope, &now_iso))
            .unwrap_or_default();
        let mut answer = Answer::context(render_cancel(&done));
        // The person is told too, not only the model: what could not be ended, why, the fix.
        if let Some(note) = done.failure_note() {
            answer.system_message = Some(format!("omc-hooks: cancel {note}"));
        }
        return answer;
    }
    if ctx.env.team_worker {
        return Answer::default();
    }
    let request = request_text(prompt);
    // A run that could not be written did not start, and the text says so instead of the
    // mode's instructions (which promise a Stop hook that would not come).
    let mut not_started: Vec<(&str, String)> = Vec::new();
    for mode in det.modes.iter().filter(|m| is_persistent(m)) {
        if let Err(problem) = start_run(ctx, &config, mode, &request) {
            crate::diag!("cannot start {mode}: {}", problem.cause());
            not_started.push((mode, start::not_started(mode, &problem)));
        }
    }
    let mut text = render_context_with(&det.modes, &config, &request, |m| {
        not_started
            .iter()
            .find(|(n, _)| *n == m)
            .map(|(_, t)| t.clone())
    });
    if let Some(line) = budget::announce(&config, &det.modes) {
        text.push_str("\n\n");
        text.push_str(&line);
    }
    // Budget words meant as one but not understood: the run starts with its default limits,
    // and the person (and the model, who may be asked) is told which words and why.
    let unclear = budget.unclear_note();
    if let Some(note) = &unclear {
        text.push_str("\n\n");
        text.push_str(note);
    }
    let mut answer = Answer::context(text);
    answer.system_message = unclear.map(|n| format!("omc-hooks: {n}"));
    answer
}

/// The prompt's budget and its detection: judged without the budget words when the mode they
/// follow then activates, else as typed with no budget. `detect` shows the same.
/// `running` says whether anything of the session runs, asked only for a stop said in the
/// person's own words.
pub fn with_budget<'p>(
    prompt: &'p str,
    config: &Config,
    running: &dyn Fn() -> bool,
) -> (Cow<'p, str>, budget::Budget, Detection) {
    let disabled = config.disabled_keywords();
    if let Some((rest, budget)) = budget::split(prompt) {
        let det = detect_with(&rest, &disabled, running);
        if det.modes.iter().any(|m| is_persistent(m)) && !det.cancel() {
            return (Cow::Owned(rest), budget, det);
        }
    }
    (
        Cow::Borrowed(prompt),
        budget::Budget::default(),
        detect_with(prompt, &disabled, running),
    )
}

/// UserPromptSubmit: a new prompt starts a new turn, so every active run's counts of Stop
/// blocks go back to 0 (see [`ModeState::new_turn`]), and a run that was waiting for the user,
/// or paused at a continuation limit, has its answer.
pub fn reset_turn(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    for mode in PERSISTENT {
        let Some(file) = StateFile::new(&ctx.scope, &state_file_name(mode)) else {
            continue;
        };
        let needs = store
            .read::<ModeState>(&file)
            .is_some_and(|mut s| s.active && s.new_turn());
        if !needs {
            continue;
        }
        let res = store.update(&file, |s: Option<ModeState>| match s {
            Some(mut s) if s.active => match s.new_turn() {
                true => {
                    // The run was touched by its session: not one left open at a turn's end.
                    s.last_checked_at = Some(crate::time::iso(ctx.now_ms));
                    (Change::Write(s), ())
                }
                false => (Change::Keep, ()),
            },
            _ => (Change::Keep, ()),
        });
        if let Err(e) = res {
            crate::diag!("reset consecutive_blocks of {mode}: {e}");
        }
    }
    Answer::default()
}

/// The request as typed, pasted hook output removed: enough of it for the echo and the stored
/// prompt, both cut far shorter than a long paste. A prefix cut at a line break gives the same
/// text as the whole prompt as far as it goes (a hook-output block the cut splits is removed
/// either way), so a megabyte is read only when its first lines are nearly all hook output.
fn request_text(prompt: &str) -> String {
    let mut take = 64 * 1024;
    loop {
        if take >= prompt.len() {
            return sanitize::strip_echoes(prompt);
        }
        let mut cut = take;
        while !prompt.is_char_boundary(cut) {
            cut -= 1;
        }
        let cut = prompt[..cut].rfind('\n').unwrap_or(cut);
        let request = sanitize::strip_echoes(&prompt[..cut]);
        if request.chars().count() > REQUEST_ECHO_MAX {
            return request;
        }
        take *= 4;
    }
}

/// Writes a fresh run of `mode` (restarting one that is already active).
fn start_run(
    ctx: &Ctx<'_>,
    config: &Config,
    mode: &str,
    request: &str,
) -> Result<(), WriteProblem> {
    let store = ctx.store.as_ref().ok_or_else(start::no_project)?;
    start::start(
        store,
        &ctx.scope,
        mode,
        &stored_prompt(request),
        ctx.now_ms,
        config,
        Some(ctx.input.agent.name()),
        ctx.input.transcript_path.as_deref(),
    )
    .map(|_| ())
}

/// The request as stored in a run: hook output removed, at most 500 characters.
pub fn stored_prompt(request: &str) -> String {
    if request.trim().is_empty() {
        return "(prompt omitted: pasted hook output)".to_string();
    }
    cut(request, STORED_PROMPT_MAX, "...")
}

fn cut(text: &str, max: usize, marker: &str) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(marker.chars().count());
    let mut s: String = text.chars().take(keep).collect();
    s.push_str(marker);
    s
}

/// A mode's instructions, from `templates/modes/<name>.md`.
pub fn template(name: &str) -> &'static str {
    match name {
        "cancel" => include_str!("../../../templates/modes/cancel.md"),
        "ralph" => include_str!("../../../templates/modes/ralph.md"),
        "autopilot" => include_str!("../../../templates/modes/autopilot.md"),
        "ultrawork" => include_str!("../../../templates/modes/ultrawork.md"),
        "ccg" => include_str!("../../../templates/modes/ccg.md"),
        "ralplan" => include_str!("../../../templates/modes/ralplan.md"),
        "deep-interview" => include_str!("../../../templates/modes/deep-interview.md"),
        "ai-slop-cleaner" => include_str!("../../../templates/modes/ai-slop-cleaner.md"),
        "tdd" => include_str!("../../../templates/modes/tdd.md"),
        "code-review" => include_str!("../../../templates/modes/code-review.md"),
        "security-review" => include_str!("../../../templates/modes/security-review.md"),
        "ultrathink" => include_str!("../../../templates/modes/ultrathink.md"),
        "deepsearch" => include_str!("../../../templates/modes/deepsearch.md"),
        "analyze" => include_str!("../../../templates/modes/analyze.md"),
        _ => "",
    }
}

const REQUEST: &str = include_str!("../../../templates/keywords/request.md");

/// `[MAGIC KEYWORD: RALPH]` or `[MAGIC KEYWORDS DETECTED: RALPH, TDD]`.
pub fn header(modes: &[&str]) -> String {
    let names: Vec<String> = modes.iter().map(|m| m.to_uppercase()).collect();
    match names.as_slice() {
        [one] => format!("[MAGIC KEYWORD: {one}]"),
        _ => format!("[MAGIC KEYWORDS DETECTED: {}]", names.join(", ")),
    }
}

/// The context for detected (non-cancel) modes, in chain order.
pub fn render_context(modes: &[&str], config: &Config, request: &str) -> String {
    render_context_with(modes, config, request, |_| None)
}

/// [`render_context`], with `instead(mode)` replacing a mode's instructions (a run that could
/// not be started).
pub fn render_context_with(
    modes: &[&str],
    config: &Config,
    request: &str,
    instead: impl Fn(&str) -> Option<String>,
) -> String {
    let mut out = header(modes);
    for m in modes {
        out.push_str("\n\n");
        match instead(m) {
            Some(text) => out.push_str(text.trim_end()),
            None => out.push_str(
                template(m)
                    .trim_end()
                    .replace("{{max_iterations}}", &max_iterations(m, config).to_string())
                    .as_str(),
            ),
        }
    }
    let frame = REQUEST.trim_end().replace("{{request}}", "");
    let room = CONTEXT_BUDGET
        .saturating_sub(out.chars().count() + frame.chars().count() + 2)
        .min(REQUEST_ECHO_MAX);
    let request = request.trim();
    if !request.is_empty() && room >= 80 {
        out.push_str("\n\n");
        out.push_str(
            &REQUEST
                .trim_end()
                .replace("{{request}}", &cut(request, room, " …[truncated]")),
        );
    }
    out
}

/// The context after a cancel: what was ended.
pub fn render_cancel(done: &Cancelled) -> String {
    let mut what = String::new();
    if !done.modes.is_empty() {
        what.push_str(&format!("Ended: {}.", done.modes.join(", ")));
    }
    if done.skill_guards {
        if !what.is_empty() {
            what.push(' ');
        }
        what.push_str("Skill guards released.");
    }
    if !done.notes.is_empty() {
        what.push_str(&format!(" ({}.)", done.notes.join("; ")));
    }
    if !done.failed.is_empty() {
        if !what.is_empty() {
            what.push(' ');
        }
        what.push_str(&format!("NOT ended: {}.", done.failed.join("; ")));
    }
    if what.is_empty() {
        what.push_str("Nothing was running, so nothing changed.");
    }
    format!(
        "{}\n\n{}",
        header(&["cancel"]),
        template("cancel")
            .trim_end()
            .replace("{{cancelled}}", &what)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::KEYWORD_CHAIN;

    #[test]
    fn every_name_has_a_template_and_persistent_ones_say_how_to_end() {
        for name in KEYWORD_CHAIN {
            assert!(!template(name).trim().is_empty(), "{name}");
            if is_persistent(name) {
                let t = template(name);
                assert!(t.contains("`<omc-complete/>`"), "{name}: completion token");
                assert!(t.contains("`cancelomc`"), "{name}: how to cancel");
                assert!(t.contains("{{max_iterations}}"), "{name}: the budget");
            }
        }
        assert!(template("autopilot").contains("omc-hooks mode phase autopilot <phase>"));
    }

    #[test]
    fn headers() {
        assert_eq!(header(&["ralph"]), "[MAGIC KEYWORD: RALPH]");
        assert_eq!(
            header(&["ralph", "tdd"]),
            "[MAGIC KEYWORDS DETECTED: RALPH, TDD]"
        );
    }

    #[test]
    fn all_modes_at_once_stay_within_budget() {
        let all: Vec<&str> = KEYWORD_CHAIN[1..].to_vec();
        let ctx = render_context(&all, &Config::default(), &"x".repeat(50_000));
        assert!(ctx.chars().count() <= CONTEXT_BUDGET, "{}", ctx.len());
        assert!(ctx.contains("User request"));
    }

    /// Compares `got` with `snapshots/<name>`; `OMC_UPDATE_SNAPSHOTS=1` rewrites the file.
    #[track_caller]
    fn snapshot(name: &str, got: &str) {
        crate::capabilities::snapshot("src/capabilities/keywords/snapshots", name, got);
    }

    #[test]
    fn ralph_context_snapshot() {
        let got = render_context(&["ralph"], &Config::default(), "ralph fix the tests");
        snapshot("ralph-context.txt", &got);
    }

    #[test]
    fn multi_context_snapshot() {
        let got = render_context(
            &["autopilot", "tdd"],
            &Config::from_value(serde_json::json!({"autopilot": {"max_iterations": 12}})),
            "autopilot build the CLI, tdd",
        );
        snapshot("autopilot-tdd-context.txt", &got);
    }

    #[test]
    fn cancel_snapshot() {
        let done = Cancelled {
            modes: vec!["ralph".into(), "ultrawork".into()],
            skill_guards: true,
            ..Cancelled::default()
        };
        assert_eq!(
            render_cancel(&done),
            "[MAGIC KEYWORD: CANCEL]\n\nCANCEL: the user asked to stop the omc-hooks runs of \
             this session. Ended: ralph, ultrawork. Skill guards released.\nStop the current \
             workflow and do not resume it unless the user asks again."
        );
        assert!(render_cancel(&Cancelled::default()).contains("Nothing was running"));
    }

    #[test]
    fn a_long_request_is_read_only_as_far_as_it_is_echoed() {
        let line = "fix the parser and then look at the lexer, ralph fix the tests\n";
        let mut p = String::from("[RALPH LOOP - ITERATION 2/100] Work is NOT done.\nTask: old\n\n");
        while p.len() < 300_000 {
            p.push_str(line);
        }
        let whole = sanitize::strip_echoes(&p);
        let part = request_text(&p);
        assert!(part.len() < whole.len());
        assert!(whole.starts_with(&part));
        assert_eq!(stored_prompt(&part), stored_prompt(&whole));
        // hook output filling the first lines: read further
        let mut q = "[MAGIC KEYWORD: RALPH]\n".repeat(20_000);
        q.push_str("\n\nralph fix the tests");
        assert_eq!(request_text(&q), sanitize::strip_echoes(&q));
    }

    #[test]
    fn stored_prompt_is_capped() {
        let long = "x".repeat(2_000);
        let s = stored_prompt(&long);
        assert_eq!(s.chars().count(), STORED_PROMPT_MAX);
        assert!(s.ends_with("..."));
        assert!(stored_prompt("  ").starts_with("(prompt omitted"));
    }
}
