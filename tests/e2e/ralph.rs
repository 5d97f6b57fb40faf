//! A ralph run in the real Claude Code, the pieces its scenarios share (`e2e_long_runs`,
//! `e2e_progress`): the prompt and the claim, a model that works, and what to count after it
//! (the continuations the model was shown, the run's state, what `status` says).

use super::{Run, Sandbox, Scenario};
use serde_json::{Value, json};
use std::path::Path;

pub const PROMPT: &str = "ralph fix the failing parser test";
pub const DONE: &str = "The parser is fixed and the tests pass.\n<omc-complete/>";

/// The ralph run of `sid`, schema-checked.
pub fn ralph(sb: &Sandbox, sid: &str) -> Value {
    let p = sb
        .project()
        .join(".omc/state/sessions")
        .join(sid)
        .join("ralph-state.json");
    let v = serde_json::from_slice(&std::fs::read(&p).unwrap_or_else(|e| panic!("{p:?}: {e}")))
        .unwrap();
    crate::schema::assert_valid("mode-state", &v);
    v
}

/// The `<mode>-state.json` of session `sid` under the `.omc` folder `omc`, schema-checked; none
/// when there is no such file (any client's sandbox).
pub fn mode_state_in(omc: &Path, sid: &str, mode: &str) -> Option<Value> {
    session_state_in(omc, sid, &format!("{mode}-state.json"), "mode-state")
}

/// The state file `name` of session `sid` under the `.omc` folder `omc`, checked against the
/// schema `schema`; none when there is no such file (any client's sandbox).
pub fn session_state_in(omc: &Path, sid: &str, name: &str, schema: &str) -> Option<Value> {
    let p = omc.join("state/sessions").join(sid).join(name);
    let v: Value = serde_json::from_slice(&std::fs::read(p).ok()?).unwrap();
    crate::schema::assert_valid(schema, &v);
    Some(v)
}

/// The checkpoints of session `sid` under the `.omc` folder `omc`, oldest first, each
/// schema-checked (any client's sandbox).
pub fn checkpoints_in(omc: &Path, sid: &str) -> Vec<Value> {
    let dir = omc.join("state/sessions").join(sid).join("checkpoints");
    // Checkpoint files: not their lock files and spares (`.<name>.lock`, `.<name>.spare`).
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .iter()
        .map(|p| {
            let v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
            crate::schema::assert_valid("checkpoint", &v);
            v
        })
        .collect()
}

/// The arguments of `n` edits of `file` that each undo the one before: `x = 1` → `x = 2` and
/// back (a model making and undoing the same edit turn after turn, in any client whose edit
/// tool takes `file_path`, `old_string` and `new_string`).
pub fn edits_made_and_undone(file: &Path, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let (old, new) = if i % 2 == 0 {
                ("x = 1", "x = 2")
            } else {
                ("x = 2", "x = 1")
            };
            json!({"file_path": file, "old_string": old, "new_string": new})
        })
        .collect()
}

/// A run handed back for want of progress: `conts` continuations, at least the `progress`
/// turns of new work and at most 8 more without it, with replies (or steps) of the script left
/// `unused`, so the hand-back came before the script ran out.
#[track_caller]
pub fn assert_handed_back_within_eight(conts: usize, progress: usize, unused: usize, d: &str) {
    assert!(
        (progress..=progress + 8).contains(&conts),
        "{conts} continuations, want {progress} to {}\n{d}",
        progress + 8
    );
    assert!(unused > 0, "handed back before the script ran out\n{d}");
}

/// What the model is shown of ralph's continuation number `iteration` (of the default 100).
pub fn ralph_feedback(iteration: usize) -> String {
    format!("Stop hook feedback:\n[RALPH LOOP - ITERATION {iteration}/100]")
}

/// The client exited cleanly after `requests` main-loop requests, the last of them showing
/// ralph's continuation number `iteration`. Returns the run's diagnostics.
#[track_caller]
pub fn assert_continued_to(run: &Run, requests: usize, iteration: usize) -> String {
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_loop_requests().len(), requests, "{d}");
    assert!(
        run.new_text(requests - 1)
            .contains(&ralph_feedback(iteration)),
        "request {}: {d}",
        requests - 1
    );
    d
}

/// What each main-loop request shows of a ralph continuation (`Stop hook feedback:` …; a
/// failing command's escalation may head it).
pub fn continuations(run: &Run) -> Vec<String> {
    stop_feedback(run)
        .into_iter()
        .filter(|t| t.contains("[RALPH LOOP - ITERATION"))
        .collect()
}

/// What each main-loop request after the first shows of an end-of-turn hook's answer sent back
/// to the model (`Stop hook feedback:` …), whichever mode or check sent it.
pub fn stop_feedback(run: &Run) -> Vec<String> {
    (1..run.main_loop_requests().len())
        .map(|i| run.new_text(i))
        .filter(|t| t.contains("Stop hook feedback:"))
        .collect()
}

/// `omc-hooks status` in `project` (with `home` as `HOME` when given).
pub fn status_in(project: &Path, home: Option<&Path>) -> String {
    let mut cmd = std::process::Command::new(super::agent_harness::omc_bin());
    cmd.arg("status")
        .current_dir(project)
        .env_remove("CLAUDE_PROJECT_DIR");
    if let Some(home) = home {
        cmd.env("HOME", home);
    }
    String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
}

/// `omc-hooks status` in the sandbox's project.
pub fn status(sb: &Sandbox) -> String {
    status_in(&sb.project(), None)
}

/// `n` turns that each run one (different) Bash command and then end with text.
pub fn working_turns(mut sc: Scenario, n: usize) -> Scenario {
    for i in 0..n {
        sc = sc
            .reply_tool(
                "Bash",
                json!({"command": format!("echo step-{i}"), "description": "step"}),
            )
            .reply_text(format!("step {i} done; more remains"));
    }
    sc
}

/// How many tool results the model was shown, over the run's main-loop requests, contain
/// `needle`.
pub fn tool_results_with(run: &Run, needle: &str) -> usize {
    run.main_loop_requests()
        .iter()
        .flat_map(|r| r.tool_results())
        .filter(|(_, text, _)| text.contains(needle))
        .count()
}

/// What a scenario left: the sandbox, the run, the continuations the model was shown and the
/// run's state.
pub struct Outcome {
    pub sb: Sandbox,
    pub run: Run,
    pub conts: Vec<String>,
    pub state: Value,
}

/// Runs `prompt` in a fresh sandbox (`.omc/config.json` = `config` when given) with the model
/// scripted by `scenario`; asserts the client succeeded.
pub fn run_ralph(config: Option<&str>, prompt: &str, scenario: Scenario) -> Outcome {
    let sb = Sandbox::new();
    if let Some(config) = config {
        sb.write(".omc/config.json", config);
    }
    let run = sb.claude(super::plugin_dir(), prompt, scenario, None);
    run.assert_success();
    let conts = continuations(&run);
    let state = ralph(&sb, &run.session_id);
    Outcome {
        sb,
        run,
        conts,
        state,
    }
}

/// A model that works `n` turns and then claims: continued `n` times (the last at iteration
/// `n + 1`), the run ended as completed by the claim, the reply after it unused.
pub fn works_then_claims(n: usize) -> Outcome {
    let sc = working_turns(Scenario::new(), n)
        .reply_text(DONE)
        .reply_text("unexpected");
    let o = run_ralph(None, PROMPT, sc);
    let (d, s) = (o.run.diagnostics(), &o.state);
    assert_eq!(o.conts.len(), n, "{d}");
    let nth = format!("[RALPH LOOP - ITERATION {}/100", n + 1);
    assert!(o.conts[n - 1].contains(&nth), "{d}");
    assert_eq!(o.run.unused_replies, 1, "ended by the claim: {d}");
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    o
}

/// A model reporting ~30 000 tokens a call, working 10 turns, under a budget of 100k tokens
/// (from `config` or the prompt): the run ends on it within a few continuations.
pub fn spends_its_token_budget(config: Option<&str>, prompt: &str) -> Outcome {
    let sc = working_turns(Scenario::new().input_tokens(30_000), 10);
    let o = run_ralph(config, prompt, sc);
    let (d, s) = (o.run.diagnostics(), &o.state);
    // Two model calls a turn, ~30 000 tokens each: ~60 000 at the first Stop, ~120 000 at the
    // second.
    let n = o.conts.len();
    assert!((1..=3).contains(&n), "{n} continuations\n{d}");
    assert_eq!(s["max_tokens"], 100_000, "{s:#}");
    assert_eq!(s["ended_reason"], "max_tokens", "{s:#}");
    o
}

/// A run under a budget of 100k tokens, its model reporting ~30 000 a call, ended on it: within
/// a few continuations (`conts`), the first showing what was spent, before the script ran out
/// (`unused` replies left), the state saying so with what was used. The same check for Claude
/// Code and the other clients.
#[track_caller]
pub fn assert_ended_on_token_budget(conts: &[String], s: &Value, unused: usize, d: &str) {
    // Two model calls a turn: 60 000 after the first, 120 000 after the second.
    let n = conts.len();
    assert!((1..=3).contains(&n), "{n} continuations\n{d}");
    assert!(
        conts[0].contains("k/100k tokens"),
        "the continuation shows the tokens spent: {}",
        conts[0]
    );
    assert!(unused > 0, "ended before the script ran out\n{d}");
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "max_tokens", "{s:#}");
    assert_eq!(s["max_tokens"], 100_000, "{s:#}");
    let used = s["tokens_used"].as_u64().unwrap_or(0);
    assert!(
        (100_000..=200_000).contains(&used),
        "tokens_used {used}: {s:#}"
    );
}
