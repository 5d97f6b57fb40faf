//! Issue 34 in the real Claude Code client: a ralph run judged by what happened, not by whether
//! a tool ran.
//!
//! * Progress from observables: a model that runs the same `ls` with the same output every turn,
//!   one that makes and undoes the same edit turn after turn, and one that runs the same failing
//!   check with the same error are each handed back after at most 8 continuations without
//!   progress (the run paused, `pause_kind: "no_progress"`, the reason saying what repeated,
//!   shown by `status`), while a model that runs a new command each turn is continued at least
//!   25 times.
//! * Completion from evidence: with `{"verify": ["python3 check.py"]}`, a claim while the check
//!   fails is sent back naming the command and the failure's tail, a claim after an edit the
//!   check has not seen since is sent back too, and once the agent has run the check after its
//!   last change and it passed the claim ends the run as completed and verified; a `sed -i`
//!   through Bash after the passing check voids it (issue 41).
//! * Token budgets: with `{"ralph": {"max_tokens": 100000}}` and the model reporting about
//!   30 000 tokens a call (`Scenario::input_tokens`), the run ends on its budget within a few
//!   continuations (`ended_reason: "max_tokens"`), the continuation showing what was spent; the
//!   same with `ralph --tokens 100k …` in the prompt; and the transcript the budget is counted
//!   from holds every call's usage when the Stop hook runs.

use crate::e2e::ralph::{
    DONE, PROMPT, assert_ended_on_token_budget, assert_handed_back_within_eight, continuations,
    edits_made_and_undone, ralph, spends_its_token_budget, status, stop_feedback,
    tool_results_with, working_turns, works_then_claims,
};
use crate::e2e::{Run, Sandbox, Scenario};
use serde_json::{Value, json};

const MORE: &str = "I looked at it again; more work remains.";

/// A model that runs the same Bash `command` 20 turns in a row, saying after each that more
/// work remains.
fn the_same_command_each_turn(command: &str, description: &str) -> Scenario {
    (0..20).fold(Scenario::new(), |sc, _| {
        sc.reply_tool(
            "Bash",
            json!({"command": command, "description": description}),
        )
        .reply_text(MORE)
    })
}

/// The run was handed back for want of progress after at most 8 continuations without it
/// (`progress_turns` turns of new work aside, each continued), before the script ran out; the
/// reason is recorded, contains each of `why`, and `status` shows it. Returns the reason.
#[track_caller]
fn assert_handed_back(sb: &Sandbox, run: &Run, progress_turns: usize, why: &[&str]) -> String {
    run.assert_success();
    let d = run.diagnostics();
    let conts = continuations(run).len();
    assert_handed_back_within_eight(conts, progress_turns, run.unused_replies, &d);
    assert_eq!(run.result_text(), MORE, "the turn ended normally: {d}");
    let s = ralph(sb, &run.session_id);
    assert_eq!(s["active"], true, "handed back, not ended: {s:#}");
    assert_eq!(s["pause_kind"], "no_progress", "{s:#}");
    let reason = s["paused_reason"].as_str().unwrap_or_default().to_owned();
    assert!(
        reason.starts_with("no progress in the last 8 continuations: "),
        "{s:#}"
    );
    for w in why {
        assert!(reason.contains(w), "{w:?} not in the reason: {s:#}");
    }
    let st = status(sb);
    assert!(st.contains(&format!("(paused: {reason})")), "{st}");
    reason
}

/// The tokens of the assistant messages of a Claude Code transcript: one record per content
/// block, each with its message's `usage`, so counted once per `message.id` (input + output +
/// cache creation + cache read).
fn tokens_recorded(transcript: &str) -> u64 {
    let mut per_message = std::collections::BTreeMap::new();
    for r in transcript
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == "assistant")
    {
        let u = &r["message"]["usage"];
        let n: u64 = [
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .filter_map(|k| u[*k].as_u64())
        .sum();
        if let Some(id) = r["message"]["id"].as_str() {
            per_message.insert(id.to_owned(), n);
        }
    }
    per_message.values().sum()
}

/// What the client records about tokens: the transcript the Stop payload names holds, when the
/// Stop hook runs, the usage of both model calls of the turn (the recorder plugin as the only
/// hook copies it then).
#[test]
fn the_transcript_holds_the_usage_of_every_call_when_stop_runs() {
    let sb = Sandbox::new();
    let rec = sb.root().join("rec");
    let copy = sb.root().join("transcript-at-stop.jsonl");
    crate::e2e_agents::respond(
        &rec,
        "Stop",
        &format!(
            "p=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"transcript_path\"])'); cp \"$p\" '{}'",
            copy.display()
        ),
    );
    let run = sb.claude(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/recorder"),
        "say hi using the shell",
        working_turns(Scenario::new().input_tokens(30_000), 1)
            .env("REC_DIR", rec.to_string_lossy()),
        None,
    );
    run.assert_success();
    let d = run.diagnostics();
    assert_eq!(run.main_loop_requests().len(), 2, "{d}");
    let text = std::fs::read_to_string(&copy).unwrap_or_else(|e| panic!("{copy:?}: {e}\n{d}"));
    assert_eq!(tokens_recorded(&text), 2 * 30_005, "{text}");
}

#[test]
fn the_same_ls_with_the_same_output_is_handed_back_within_eight() {
    let sb = Sandbox::new();
    sb.write("parser.py", "def parse(s):\n    return None\n");
    let run = sb.claude(
        crate::e2e::plugin_dir(),
        PROMPT,
        the_same_command_each_turn("ls", "list files"),
        None,
    );
    // The first `ls` is new.
    assert_handed_back(&sb, &run, 1, &["`ls`", "same output"]);

    // The person's next prompt (the session resumed) lifts the pause: the run is continued
    // again and ends on the claim.
    let next = sb.claude(
        crate::e2e::plugin_dir(),
        "go on with the parser",
        Scenario::new()
            .reply_text(MORE)
            .reply_text(DONE)
            .reply_text("unexpected"),
        Some(&run.session_id),
    );
    next.assert_success();
    let d = next.diagnostics();
    assert_eq!(continuations(&next).len(), 1, "{d}");
    assert_eq!(next.unused_replies, 1, "ended by the claim: {d}");
    let s = ralph(&sb, &run.session_id);
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert!(s.get("pause_kind").is_none_or(Value::is_null), "{s:#}");
}

#[test]
fn an_edit_made_and_undone_turn_after_turn_is_handed_back_within_eight() {
    let sb = Sandbox::new();
    sb.write("src/app.py", "x = 1\n");
    let file = sb.project().join("src/app.py");
    // Two turns of new work first: a command, then reading the file (the Edit tool needs it).
    let mut sc = Scenario::new()
        .reply_tool(
            "Bash",
            json!({"command": "grep -n x src/app.py", "description": "look"}),
        )
        .reply_text(MORE)
        .reply_tool("Read", json!({"file_path": file}))
        .reply_text(MORE);
    for edit in edits_made_and_undone(&file, 20) {
        sc = sc.reply_tool("Edit", edit).reply_text(MORE);
    }
    let run = sb.claude(crate::e2e::plugin_dir(), PROMPT, sc, None);
    let d = run.diagnostics();
    // The edits were really made: every Edit before the hand-back succeeded.
    let edits = tool_results_with(&run, "has been updated");
    assert!(edits >= 2, "{edits} edits made\n{d}");
    // The two turns of new work and the first edit (`x = 2` is new content) are progress.
    assert_handed_back(
        &sb,
        &run,
        3,
        &["src/app.py", "back to content it had before"],
    );
}

/// A check that fails until `parser.parse("a b")` splits its input.
const CHECK_PY: &str = r#"import sys
sys.dont_write_bytecode = True
from parser import parse
got = parse('a b')
if got != ['a', 'b']:
    sys.exit('FAIL: parse("a b") returned %r' % (got,))
print('check: parser ok')
"#;

#[test]
fn the_same_failing_check_with_the_same_error_is_handed_back_within_eight() {
    let sb = Sandbox::new();
    sb.write("parser.py", "def parse(s):\n    return None\n");
    sb.write("check.py", CHECK_PY);
    let run = sb.claude(
        crate::e2e::plugin_dir(),
        PROMPT,
        the_same_command_each_turn("python3 check.py", "run the check"),
        None,
    );
    let d = run.diagnostics();
    let failed = tool_results_with(&run, "FAIL: parse(\"a b\") returned None");
    assert!(failed >= 2, "the check failed each time: {d}");
    assert_handed_back(&sb, &run, 1, &["`python3 check.py`", "same error"]);
}

#[test]
fn a_model_running_a_new_command_each_turn_is_continued_at_least_25_times() {
    let s = works_then_claims(26).state;
    assert_eq!(s["verified"], false, "no verify command configured: {s:#}");
    assert!(s.get("pause_kind").is_none_or(Value::is_null), "{s:#}");
}

/// A project whose trusted `verify` command is `python3 check.py` ([`CHECK_PY`]), with
/// `parser.py` holding `parser`.
fn verified_project(parser: &str) -> Sandbox {
    let sb = Sandbox::new();
    sb.write(".omc/config.json", r#"{"verify": ["python3 check.py"]}"#);
    // The project's verify commands are used once the person trusted them (issue 41).
    crate::common::trust_as_person(&sb.project(), &sb.home().join(".config"));
    sb.write("parser.py", parser);
    sb.write("check.py", CHECK_PY);
    sb
}

/// The model's call that runs the check.
fn bash_check() -> Value {
    json!({"command": "python3 check.py", "description": "run the check"})
}

/// The ralph state `s` ended on an accepted claim, verified by the check.
#[track_caller]
fn assert_completed_and_verified(s: &Value) {
    assert_eq!(s["ended_reason"], "completed", "{s:#}");
    assert_eq!(s["verified"], true, "{s:#}");
}

/// The ralph run in `sb` of a model that follows `scenario` with a claim, then claims again
/// should that be sent back (a reply left over says the run ended on the first); the client
/// exited cleanly.
fn claims_after(sb: &Sandbox, scenario: Scenario) -> Run {
    let run = sb.claude(
        crate::e2e::plugin_dir(),
        PROMPT,
        scenario.reply_text(DONE).reply_text("unexpected"),
        None,
    );
    run.assert_success();
    run
}

/// What the model was `told` when a claim was sent back holds each of `needles`.
#[track_caller]
fn assert_told(told: &str, needles: &[&str], what: &str) {
    for needle in needles {
        assert!(told.contains(needle), "{what}: {told}");
    }
}

#[test]
fn a_claim_is_accepted_only_after_the_agent_ran_the_check_after_its_last_change() {
    let sb = verified_project("def parse(s):\n    return None\n");
    let file = sb.project().join("parser.py");
    let check = bash_check();
    let run = claims_after(
        &sb,
        Scenario::new()
            // 1. the check fails; a claim anyway
            .reply_tool("Bash", check.clone())
            .reply_text(DONE)
            // 2. the fix, and a claim before the check has seen it
            .reply_tool("Read", json!({"file_path": file}))
            .reply_tool(
                "Edit",
                json!({"file_path": file, "old_string": "return None",
                       "new_string": "return s.split()"}),
            )
            .reply_text(DONE)
            // 3. the check passes; the claim
            .reply_tool("Bash", check),
    );
    let d = run.diagnostics();
    assert_eq!(run.unused_replies, 1, "ended by the third claim: {d}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "def parse(s):\n    return s.split()\n",
        "{d}"
    );
    // The request after each refused claim: what the model was told.
    let told = stop_feedback(&run);
    assert_eq!(told.len(), 2, "two claims sent back: {told:#?}\n{d}");
    assert_told(
        &told[0],
        &["python3 check.py", "FAIL: parse(\"a b\") returned None"],
        "the failing check and its output's tail",
    );
    assert_told(
        &told[1],
        &["python3 check.py"],
        "the check to run after the edit",
    );
    let s = ralph(&sb, &run.session_id);
    assert_eq!(s["active"], false, "{s:#}");
    assert_completed_and_verified(&s);
}

/// Issue 41: the check passes, then the model changes a file through Bash (`sed -i`) and
/// claims: not accepted, the model told to run the check again; after it does, the claim ends
/// the run, verified.
#[test]
fn a_sed_i_after_the_passing_check_voids_it() {
    let sb = verified_project("# v1\ndef parse(s):\n    return s.split()\n");
    let check = bash_check();
    let run = claims_after(
        &sb,
        Scenario::new()
            .reply_tool("Bash", check.clone())
            .reply_tool(
                "Bash",
                json!({"command": "sed -i 's/v1/v2/' parser.py", "description": "bump"}),
            )
            .reply_text(DONE)
            .reply_tool("Bash", check),
    );
    let d = run.diagnostics();
    assert!(
        std::fs::read_to_string(sb.project().join("parser.py"))
            .unwrap()
            .starts_with("# v2"),
        "the shell changed the file: {d}"
    );
    assert_eq!(run.unused_replies, 1, "ended by the second claim: {d}");
    let told = stop_feedback(&run);
    assert_eq!(told.len(), 1, "the first claim sent back: {told:#?}\n{d}");
    assert_told(
        &told[0],
        &[
            "ran after `python3 check.py` last ran",
            "Run `python3 check.py` again",
        ],
        "told to run the check again",
    );
    assert_completed_and_verified(&ralph(&sb, &run.session_id));
}

#[test]
fn a_run_ends_on_its_token_budget_within_a_few_continuations() {
    let config = r#"{"ralph": {"max_tokens": 100000}}"#;
    let o = spends_its_token_budget(Some(config), PROMPT);
    let d = o.run.diagnostics();
    assert_ended_on_token_budget(&o.conts, &o.state, o.run.unused_replies, &d);
}

#[test]
fn a_token_budget_in_the_prompt_ends_the_run() {
    let prompt = "ralph --tokens 100k fix the failing parser test";
    let s = spends_its_token_budget(None, prompt).state;
    assert_eq!(
        s["prompt"], PROMPT,
        "the budget is not part of the task: {s:#}"
    );
}
