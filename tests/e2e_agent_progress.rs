//! Issue 34 in the real Codex CLI, Gemini CLI and Qwen Code after a fresh `omc-hooks install
//! --agent <agent>`: a loop that judges progress from what happened, accepts a completion claim
//! on evidence, and counts tokens. Shared scenario functions taking the [`Agent`], one `#[test]`
//! per agent at the end (as `e2e_agent_long_runs` does):
//!
//! * what the client records about tokens in the file its hook payload names (`transcript_path`)
//!   when the model reports usage: the counters the budget is read from;
//! * a model going round the same two commands (same output each time; three in Gemini CLI, whose
//!   own loop guard would stop two first) is handed back after at most 8 continuations without
//!   progress, the run paused with what repeated;
//! * a model running a new command each turn is still continued at least 25 times;
//! * with `{"verify": ["python3 check.py"]}`, a claim while the check fails is sent back naming
//!   the command and the failure's tail; once the check, run by the agent, passes, the claim
//!   ends the run as completed and verified;
//! * with `{"ralph": {"max_tokens": 100000}}` and about 30 000 tokens a model call, the run ends
//!   on its token budget within a few continuations.
//!
//! And, for one client each: Qwen Code's `edit` making and undoing one change is handed back as
//! an edit back to content seen before; Codex runs no tool hook for its `update_plan`, and with
//! `ralph.verify` a claim made before the check ran is sent back to run it.
//!
//! Commands that read something back go through [`read_back`] (Qwen Code can lose a fast
//! command's output, qwen-FINDINGS.md §13); the check script lingers itself for the same reason,
//! so that the command the agent runs is exactly `python3 check.py`.

use crate::e2e::agent_harness::{AgentRun, AgentSandbox, AgentScenario};
use crate::e2e::clients::Agent;
use crate::e2e::ralph::assert_handed_back_within_eight;
use crate::e2e_agent_modes::continuations_of;
use crate::e2e_agents::{DONE, MORE, PROMPT, ralph_state, read_back, with_omc};
use serde_json::Value;

fn ralph_continuations(run: &AgentRun) -> Vec<String> {
    continuations_of(run, "RALPH LOOP - ITERATION")
}

/// The end-of-turn event whose payload names the transcript.
fn end_of_turn(agent: Agent) -> &'static str {
    match agent {
        Agent::Gemini => "AfterAgent",
        _ => "Stop",
    }
}

/// Usage each model answer reports in the budget scenarios (input; the output is 5 more).
const TOKENS_PER_CALL: u64 = 30_000;

/// `omc-hooks status` in the sandbox's project, with its home.
fn status(sb: &AgentSandbox) -> String {
    crate::e2e::ralph::status_in(&sb.project(), Some(&sb.home()))
}

// ------------------------------------------------------- what the client records ----

/// The JSON lines (or the one JSON document) of a transcript file.
fn json_records(text: &str) -> Vec<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(text.trim()) {
        return vec![v];
    }
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .collect()
}

/// Every object (at any depth) of `v` that holds a number 30 000 or more: where the usage the
/// model reported was recorded.
fn usage_holders<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(m) => {
            if m.values()
                .any(|x| x.as_u64().is_some_and(|n| n >= TOKENS_PER_CALL))
            {
                out.push((path.clone(), v));
            }
            for (k, x) in m {
                usage_holders(x, format!("{path}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                usage_holders(x, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// One turn with a shell call, the model reporting 30 000 input tokens a call, with the recorder
/// as the only hook; the end-of-turn hook copies the file its payload names
/// (`transcript_path`) as it stands when the hook runs. Returns that copy's path and its JSON
/// records: what a hook can count at the end of a turn.
pub fn what_the_client_records_about_tokens(agent: Agent) -> (std::path::PathBuf, Vec<Value>) {
    let sb = AgentSandbox::new(agent);
    let copy = sb.root().join("transcript-at-end-of-turn.jsonl");
    let (run, events) = crate::e2e_agents::recorded_run(
        &sb,
        "say hi using the shell",
        AgentScenario::new()
            .reply_shell(read_back(agent, "echo hi-from-e2e"))
            .reply_text("FINAL: the command printed hi")
            .prompt_tokens(TOKENS_PER_CALL),
        &[(
            end_of_turn(agent),
            format!(
                "p=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"transcript_path\"])'); cp \"$p\" '{}'",
                copy.display()
            ),
        )],
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_requests().len(), 2, "{d}");
    let ends = crate::e2e_agents::of(&events, end_of_turn(agent));
    assert_eq!(ends.len(), 1, "{d}");
    assert!(ends[0]["transcript_path"].is_string(), "{:#}", ends[0]);
    let text = std::fs::read_to_string(&copy).unwrap_or_else(|e| panic!("{copy:?}: {e}\n{d}"));
    let records = json_records(&text);
    if std::env::var_os("OMC_E2E_SHOW_TOKENS").is_some() {
        println!(
            "{} transcript at the end of the turn ({}):",
            agent.name(),
            ends[0]["transcript_path"]
        );
        for (i, r) in records.iter().enumerate() {
            let mut holders = Vec::new();
            usage_holders(r, format!("[{i}]"), &mut holders);
            for (p, v) in &holders {
                println!("{p}: {v}");
            }
        }
        println!("end-of-turn payload: {:#}", ends[0]);
    }
    (copy, records)
}

/// The tokens of the turn as counted from the records, the way each client keeps them (the
/// shapes in the FINDINGS files):
/// * Codex: `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":
///   {…,"total_tokens":N}}}}` after every model call, cumulative over the thread (the last one
///   is the thread's total);
/// * Gemini CLI: one `{"type":"gemini","id":…,"tokens":{"input","output","cached","thoughts",
///   "tool","total"}}` record per model call, per call, written again (same `id`) when its tool
///   calls are added;
/// * Qwen Code: one `{"type":"assistant","uuid":…,"usageMetadata":{"promptTokenCount",
///   "candidatesTokenCount","thoughtsTokenCount","totalTokenCount","cachedContentTokenCount"}}`
///   record per model call, per call.
pub fn tokens_recorded(agent: Agent, records: &[Value]) -> u64 {
    match agent {
        Agent::Codex => records
            .iter()
            .rev()
            .filter(|r| r["type"] == "event_msg" && r["payload"]["type"] == "token_count")
            .find_map(|r| r["payload"]["info"]["total_token_usage"]["total_tokens"].as_u64())
            .unwrap_or(0),
        Agent::Gemini | Agent::Qwen => {
            let (kind, id, total) = if agent == Agent::Gemini {
                ("gemini", "id", "/tokens/total")
            } else {
                ("assistant", "uuid", "/usageMetadata/totalTokenCount")
            };
            let mut per_call = std::collections::BTreeMap::new();
            for r in records.iter().filter(|r| r["type"] == kind) {
                if let (Some(i), Some(n)) =
                    (r[id].as_str(), r.pointer(total).and_then(Value::as_u64))
                {
                    per_call.insert(i.to_owned(), n);
                }
            }
            per_call.values().sum()
        }
        other => panic!("{}: not looked at", other.name()),
    }
}

/// Two model calls of 30 000 + 5 tokens each are in the transcript when the end-of-turn hook
/// runs, counted the client's way.
pub fn the_client_records_the_tokens_of_every_model_call(agent: Agent) {
    let (copy, records) = what_the_client_records_about_tokens(agent);
    assert_eq!(
        tokens_recorded(agent, &records),
        2 * (TOKENS_PER_CALL + 5),
        "{copy:?}"
    );
}

/// The samples in `tests/fixtures/tokens/` (copied by the end-of-turn hook of the run above, one
/// per client, trimmed) hold the two calls, counted the same way.
#[test]
fn the_recorded_samples_hold_two_calls_of_30005_tokens() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokens");
    for (agent, file) in [
        (Agent::Codex, "codex-rollout.jsonl"),
        (Agent::Gemini, "gemini-chat.jsonl"),
        (Agent::Qwen, "qwen-chat.jsonl"),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let records = json_records(&text);
        assert_eq!(tokens_recorded(agent, &records), 60_010, "{file}");
    }
}

// ------------------------------------------------------------------- progress ----

/// The commands the model goes round: two, as the issue has it; three in Gemini CLI, which
/// replaces the 5th identical tool call of a prompt (continuations included, alternating or
/// not) by its own "Potential loop detected" and ends the turn (gemini-FINDINGS.md §6): with two
/// commands it would catch the loop before 8 continuations without progress.
fn round(agent: Agent) -> Vec<String> {
    let mut cmds = vec!["ls", "cat notes.txt"];
    if agent == Agent::Gemini {
        cmds.push("wc -l notes.txt");
    }
    cmds.into_iter().map(|c| read_back(agent, c)).collect()
}

/// Round and round the same commands, the same output each time, a text turn after each: the
/// first round is new work, then at most 8 continuations without progress.
pub fn a_model_going_round_two_commands_is_handed_back(agent: Agent) {
    let sb = with_omc(agent);
    sb.write("notes.txt", "the tokenizer drops the last token\n");
    let cmds = round(agent);
    let mut sc = AgentScenario::new();
    for i in 0..30 {
        sc = sc
            .reply_shell(cmds[i % cmds.len()].clone())
            .reply_text(MORE);
    }
    let run = sb.run(PROMPT, sc.reply_text(DONE));
    run.assert_success();
    let d = run.diagnostics();
    let conts = ralph_continuations(&run).len();
    let first = cmds.len();
    assert_handed_back_within_eight(conts, first, run.unused_steps, &d);
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], true, "paused, not ended: {s:#}\n{d}");
    assert_eq!(s["pause_kind"], "no_progress", "{s:#}\n{d}");
    let why = s["paused_reason"].as_str().unwrap_or_default();
    assert!(
        why.starts_with("no progress in the last 8 continuations: ")
            && ["`ls", "`cat notes.txt", "`wc -l notes.txt"]
                .iter()
                .any(|c| why.contains(c))
            && why.contains("same output"),
        "{s:#}"
    );
    // `(paused: …)` for a suspended run, `paused: …` for one left open (Qwen Code ends no
    // session headless, qwen-FINDINGS.md §3).
    let st = status(&sb);
    assert!(st.contains(&format!("paused: {why}")), "{st}");
    // Gemini CLI prints a hook's `systemMessage` on stderr headless: the person is told why
    // there too (gemini-FINDINGS.md §15).
    if agent == Agent::Gemini {
        let what = why.trim_start_matches("no progress in the last 8 continuations: ");
        assert!(
            run.stderr
                .contains("ralph paused — no progress in the last 8 continuations")
                && run.stderr.contains(what),
            "{}",
            run.stderr
        );
    }
}

/// `n` turns that each run a new command, then the completion claim.
pub fn a_model_running_a_new_command_each_turn_is_continued_at_least_25_times(agent: Agent) {
    let n = 26;
    let sb = with_omc(agent);
    let mut sc = AgentScenario::new();
    for i in 0..n {
        sc = sc
            .reply_shell(read_back(agent, &format!("echo step-{i}")))
            .reply_text(format!("Step {i} is done; more work remains."));
    }
    let run = sb.run(PROMPT, sc.reply_text(DONE).reply_text("unexpected"));
    run.assert_success();
    let d = run.diagnostics();
    let conts = ralph_continuations(&run).len();
    assert_eq!(conts, n, "{d}");
    assert!(conts >= 25);
    assert_eq!(run.unused_steps, 1, "ended by the claim: {d}");
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["verified"], false, "no verify command configured: {s:#}");
    assert!(s.get("pause_kind").is_none_or(Value::is_null), "{s:#}");
}

// ------------------------------------------------------------------- evidence ----

/// A check that fails until `parser.txt` says `fixed`; it lingers after printing (Qwen Code,
/// qwen-FINDINGS.md §13).
pub const CHECK_PY: &str = r#"import pathlib, sys, time
ok = pathlib.Path('parser.txt').read_text().strip() == 'fixed'
print('check: parser ok' if ok else 'FAIL: parse("a b") returned None', flush=True)
time.sleep(0.3)
sys.exit(0 if ok else 1)
"#;

/// The verify scenario written once: `.omc/config.json` is `config` (trusted by the person, as
/// with `trust --yes`: issue 41), the project holds [`CHECK_PY`], `parser.txt` = `parser` and
/// `files`; the model scripted by `sc` claims twice and the second claim ends the run,
/// completed and verified, with the reply after it unused. Returns the sandbox, the run and what
/// the model was told after its first claim.
fn claims_until_verified(
    agent: Agent,
    config: &str,
    parser: &str,
    files: &[(&str, &str)],
    sc: AgentScenario,
) -> (AgentSandbox, AgentRun, String) {
    let sb = with_omc(agent);
    sb.write(".omc/config.json", config);
    crate::common::trust_as_person(&sb.project(), &sb.home().join(".config"));
    sb.write("check.py", CHECK_PY);
    sb.write("parser.txt", parser);
    for (path, text) in files {
        sb.write(path, text);
    }
    let run = sb.run(PROMPT, sc.reply_text(DONE).reply_text("unexpected"));
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.unused_steps, 1, "ended by the second claim: {d}");
    let after_claim = run
        .main_requests()
        .iter()
        .position(|r| {
            r.step
                .as_ref()
                .is_some_and(|s| *s == crate::e2e::model::Step::Text(DONE.into()))
        })
        .unwrap_or_else(|| panic!("no claim answered\n{d}"))
        + 1;
    let told = run.new_text(after_claim);
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], false, "{s:#}");
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["verified"], true, "{s:#}");
    (sb, run, told)
}

/// The claim while `python3 check.py` fails is sent back, naming the command and the failure's
/// tail; the agent fixes the file, runs the check (it passes) and claims: completed, verified.
pub fn a_claim_is_accepted_only_after_the_agent_ran_the_check_and_it_passed(agent: Agent) {
    let config = r#"{"verify": ["python3 check.py"]}"#;
    let fix = read_back(agent, "echo fixed > parser.txt && cat parser.txt");
    let sc = AgentScenario::new()
        .reply_shell("python3 check.py")
        .reply_text(DONE)
        .reply_shell(fix)
        .reply_shell("python3 check.py");
    let (_, run, told) = claims_until_verified(agent, config, "broken\n", &[], sc);
    assert!(
        told.contains("python3 check.py") && told.contains("FAIL: parse(\"a b\") returned None"),
        "the model is told which check failed and how: {told}\n{}",
        run.diagnostics()
    );
}

// ------------------------------------------------------------------- budgets ----

/// Each model call reports ~30 000 tokens; the budget is 100 000: the run ends on it within a
/// few continuations.
pub fn a_run_ends_on_its_token_budget(agent: Agent) {
    let sb = with_omc(agent);
    sb.write(".omc/config.json", r#"{"ralph": {"max_tokens": 100000}}"#);
    let mut sc = AgentScenario::new().prompt_tokens(TOKENS_PER_CALL);
    for i in 0..10 {
        sc = sc
            .reply_shell(read_back(agent, &format!("echo step-{i}")))
            .reply_text(format!("Step {i} is done; more work remains."));
    }
    let run = sb.run(PROMPT, sc);
    run.assert_success();
    let d = run.diagnostics();
    let conts = ralph_continuations(&run);
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    crate::e2e::ralph::assert_ended_on_token_budget(&conts, &s, run.unused_steps, &d);
    if agent == Agent::Gemini {
        assert!(
            run.stderr
                .contains("omc-hooks: ralph stopped at its limit of 100k tokens"),
            "the person is told: {}",
            run.stderr
        );
    }
}

macro_rules! agent_suite {
    ($m:ident, $agent:expr) => {
        mod $m {
            use super::*;

            #[test]
            fn a_model_going_round_two_commands_is_handed_back() {
                super::a_model_going_round_two_commands_is_handed_back($agent);
            }

            #[test]
            fn a_model_running_a_new_command_each_turn_is_continued_at_least_25_times() {
                super::a_model_running_a_new_command_each_turn_is_continued_at_least_25_times(
                    $agent,
                );
            }

            #[test]
            fn a_claim_is_accepted_only_after_the_agent_ran_the_check_and_it_passed() {
                super::a_claim_is_accepted_only_after_the_agent_ran_the_check_and_it_passed($agent);
            }

            #[test]
            fn the_client_records_the_tokens_of_every_model_call() {
                super::the_client_records_the_tokens_of_every_model_call($agent);
            }

            #[test]
            fn a_run_ends_on_its_token_budget() {
                super::a_run_ends_on_its_token_budget($agent);
            }
        }
    };
}

agent_suite!(codex, Agent::Codex);
agent_suite!(gemini, Agent::Gemini);
agent_suite!(qwen, Agent::Qwen);

/// Codex's plan tool (`update_plan`): Codex 0.169.0 runs no tool hook for it (only Stop fires
/// around such turns), so a hook cannot see a plan step completed there; a model that only
/// updates its plan is, to the hooks, a model that runs no tool (codex-FINDINGS.md §17).
#[test]
fn codex_runs_no_tool_hook_for_update_plan() {
    let sb = with_omc(Agent::Codex);
    let trace = sb.root().join("trace.jsonl");
    let plan = |done: usize| -> Value {
        let plan: Vec<Value> = ["fix the tokenizer", "fix the parser", "run the tests"]
            .iter()
            .enumerate()
            .map(|(k, s)| {
                serde_json::json!({"step": s,
                    "status": if k < done { "completed" } else { "pending" }})
            })
            .collect();
        serde_json::json!({"explanation": format!("{done} done"), "plan": plan})
    };
    let mut sc = AgentScenario::new();
    for done in 1..=3 {
        sc = sc.reply_call("update_plan", plan(done)).reply_text(MORE);
    }
    let run = sb.run(
        PROMPT,
        sc.reply_text(DONE)
            .env("OMC_TRACE_FILE", trace.to_string_lossy()),
    );
    run.assert_success();
    let d = run.diagnostics();
    // The calls were made and answered.
    let answered = run
        .main_requests()
        .iter()
        .flat_map(|r| r.tool_outputs())
        .count();
    assert!(answered >= 3, "{d}");
    let events: Vec<String> = std::fs::read_to_string(&trace)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["agent_event"].as_str().map(str::to_owned))
        .collect();
    assert!(
        events.iter().filter(|e| *e == "Stop").count() >= 3,
        "{events:?}\n{d}"
    );
    assert!(
        !events
            .iter()
            .any(|e| e == "PreToolUse" || e == "PostToolUse"),
        "{events:?}"
    );
}

/// Qwen Code's `edit` tool making and undoing the same change turn after turn: the file only
/// goes back to content it had before, so after the first edit nothing is progress. (Not run in
/// Gemini CLI, whose own guard stops the 5th identical `replace` of a prompt at about the same
/// turn as our cap, nor in Codex, whose edits are `apply_patch` through the shell with no
/// post-tool event.)
#[test]
fn qwen_an_edit_made_and_undone_turn_after_turn_is_handed_back() {
    let agent = Agent::Qwen;
    let sb = with_omc(agent);
    let file = sb.write("src/app.py", "x = 1\n");
    // Qwen Code edits only a file read in the session: a read first (new work too).
    let mut sc = AgentScenario::new()
        .reply_call("read_file", serde_json::json!({ "file_path": file }))
        .reply_text(MORE);
    for edit in crate::e2e::ralph::edits_made_and_undone(&file, 20) {
        sc = sc.reply_call("edit", edit).reply_text(MORE);
    }
    let run = sb.run(PROMPT, sc.reply_text(DONE));
    run.assert_success();
    let d = run.diagnostics();
    let conts = ralph_continuations(&run).len();
    // The read and the first edit are new work.
    assert_handed_back_within_eight(conts, 2, run.unused_steps, &d);
    // The edits were made: no tool failed, and the edits' results say so.
    let results: Vec<String> = run
        .main_requests()
        .iter()
        .flat_map(|r| r.tool_outputs())
        .collect();
    assert!(
        !results.iter().any(|t| t.contains("TOOL ERROR")),
        "{results:#?}"
    );
    let edited = results
        .iter()
        .filter(|t| t.contains("has been updated"))
        .count();
    assert!(edited >= 2, "{results:#?}\n{d}");
    let s = ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
    assert_eq!(s["active"], true, "{s:#}\n{d}");
    assert_eq!(s["pause_kind"], "no_progress", "{s:#}\n{d}");
    let why = s["paused_reason"].as_str().unwrap_or_default();
    assert!(
        why.contains("src/app.py") && why.contains("back to content it had before"),
        "{s:#}\n{d}"
    );
}

/// `ralph.verify` (the mode's own list): a claim before the agent ran the check at all is sent
/// back naming it; after the agent's passing run the claim ends the run, verified (Codex).
#[test]
fn codex_a_claim_before_the_check_ran_is_sent_back_to_run_it() {
    let config = r#"{"ralph": {"verify": ["python3 check.py"]}}"#;
    let sc = AgentScenario::new()
        .reply_text(DONE)
        .reply_shell("python3 check.py");
    let (_, run, told) = claims_until_verified(Agent::Codex, config, "fixed\n", &[], sc);
    // The first claim is the first answer: the model is told at the next request.
    assert_eq!(told, run.new_text(1));
    assert!(
        told.contains("<hook_prompt") && told.contains("python3 check.py"),
        "the model is told which check to run: {told}\n{}",
        run.diagnostics()
    );
}

/// Issue 41: Codex edits through `apply_patch` in the shell (PreToolUse only,
/// codex-FINDINGS.md §15). A patch after the passing check, then a claim: not accepted, the
/// model told to run the check again; after it does, the claim ends the run, verified.
#[test]
fn codex_a_patch_after_the_passing_check_voids_it() {
    let config = r#"{"verify": ["python3 check.py"]}"#;
    let sc = AgentScenario::new()
        .reply_shell("python3 check.py")
        .reply_shell(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n-x = 1\n+x = 2\n*** End Patch\nEOF",
        )
        .reply_text(DONE)
        .reply_shell("python3 check.py");
    let notes = [("notes.txt", "x = 1\n")];
    let (sb, run, told) = claims_until_verified(Agent::Codex, config, "fixed\n", &notes, sc);
    let d = run.diagnostics();
    assert_eq!(
        std::fs::read_to_string(sb.project().join("notes.txt")).unwrap(),
        "x = 2\n",
        "Codex applied the patch: {d}"
    );
    assert!(
        told.contains("ran after `python3 check.py` last ran"),
        "told to run the check again: {told}\n{d}"
    );
}

/// Issue 41: Qwen Code's model going round two commands (as typed: no pause after printing, so
/// the client sometimes loses a fast command's output, qwen-FINDINGS.md §13) is handed back
/// within 13 turns of work in each of four runs, as steadily as the other clients.
#[test]
fn qwen_a_busy_spin_is_handed_back_within_13_turns_every_time() {
    let agent = Agent::Qwen;
    let mut turns = Vec::new();
    for _ in 0..4 {
        let sb = with_omc(agent);
        sb.write("notes.txt", "the tokenizer drops the last token\n");
        let cmds = ["ls", "cat notes.txt"];
        let mut sc = AgentScenario::new();
        for i in 0..30 {
            sc = sc.reply_shell(cmds[i % 2]).reply_text(MORE);
        }
        let run = sb.run(PROMPT, sc.reply_text(DONE));
        run.assert_success();
        let d = run.diagnostics();
        let conts = ralph_continuations(&run).len();
        let s =
            ralph_state(&sb, &run.session_id).unwrap_or_else(|| panic!("ralph-state.json\n{d}"));
        assert_eq!(s["pause_kind"], "no_progress", "{s:#}\n{d}");
        assert!(
            (2..=13).contains(&conts),
            "{conts} turns of work before the hand-back (runs so far: {turns:?})\n{d}"
        );
        turns.push(conts);
    }
    eprintln!("turns of work before each hand-back: {turns:?}");
}
