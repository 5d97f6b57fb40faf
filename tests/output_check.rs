//! Output that lies (contract §8): a shell call that exited 0 but whose output shows a failure
//! gets one hint; success-looking output, scary words and all, never does.
//!
//! * `labelled_outputs_score_precision_098_and_recall_085`: the detector against the 202 real
//!   outputs of `tests/data/tool-outputs/outputs.jsonl` (labelled and committed before the
//!   detector was written; its README says how they were captured). Prints the figures and
//!   every miss with `-- --nocapture`.
//! * The binary, fed PostToolUse payloads: a failing test summary gets the hint, a passing one
//!   nothing, in Claude Code's shape and in Codex's and Gemini CLI's.

use crate::common::{Hook, Project, payload};
use omc_hooks::capabilities::output_check::shows_failure;
use serde_json::{Value, json};

const DATA: &str = include_str!("data/tool-outputs/outputs.jsonl");

#[test]
fn labelled_outputs_score_precision_098_and_recall_085() {
    let (mut tp, mut fp, mut fneg, mut n) = (0u32, 0u32, 0u32, 0u32);
    let mut scary_successes = 0;
    for line in DATA.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a JSON line");
        let output = case["output"].as_str().unwrap();
        let failure = case["label"] == "failure";
        n += 1;
        let said = shows_failure(output);
        let lower = output.to_lowercase();
        if !failure
            && ["error", "fail", "panic", "fatal", "traceback"]
                .iter()
                .any(|w| lower.contains(w))
        {
            scary_successes += 1;
        }
        match (failure, &said) {
            (true, Some(_)) => tp += 1,
            (false, Some(ev)) => {
                fp += 1;
                println!("FALSE POSITIVE  {}  ← {ev}", case["command"]);
            }
            (true, None) => {
                fneg += 1;
                println!("MISSED          {}", case["command"]);
            }
            (false, None) => {}
        }
    }
    let precision = f64::from(tp) / f64::from((tp + fp).max(1));
    let recall = f64::from(tp) / f64::from((tp + fneg).max(1));
    println!(
        "{n} outputs: precision {precision:.3} ({fp} false positives), recall {recall:.3} ({fneg} missed)"
    );
    assert!(n >= 150, "the set must hold at least 150 outputs, not {n}");
    assert!(
        2 * scary_successes >= n,
        "half the set must be successes with scary words: {scary_successes} of {n}"
    );
    assert!(precision >= 0.98, "precision {precision:.3} under 0.98");
    assert!(recall >= 0.85, "recall {recall:.3} under 0.85");
}

const FAILING: &str = "running 4 tests\ntest tests::parses ... FAILED\n\nfailures:\n\ntest result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.15s\n";
const PASSING: &str = "running 4 tests\ntest tests::test_error_is_reported ... ok\ntest tests::panics_on_zero - should panic ... ok\n\ntest result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n";

fn post_tool_use(agent: Option<&str>, response: Value, tool: &str) -> Value {
    post_tool_use_of(agent, response, tool, "cargo test 2>&1 | tail -n 5")
}

fn post_tool_use_of(agent: Option<&str>, response: Value, tool: &str, command: &str) -> Value {
    let p = Project::new();
    let event = if agent == Some("gemini") {
        "AfterTool"
    } else {
        "PostToolUse"
    };
    let mut v = payload(event, "lies-1", p.path());
    v["tool_name"] = json!(tool);
    v["tool_input"] = json!({"command": command});
    v["tool_response"] = response;
    if agent == Some("codex") {
        // Codex's exit status is read from its rollout transcript (codex-FINDINGS.md §5).
        let t = p.path().join("rollout.jsonl");
        let done = json!({"type":"event_msg","payload":{"type":"item_completed","turn_id":"t",
            "item":{"id":"call_1","type":"CommandExecution","exit_code":0,"status":"completed"}}});
        std::fs::write(&t, format!("{done}\n")).unwrap();
        v["transcript_path"] = json!(t.to_string_lossy());
        v["tool_use_id"] = json!("call_1");
    }
    let mut hook = Hook::new("post-tool-use").cwd(p.path()).payload(v);
    if let Some(a) = agent {
        hook = hook.agent(a);
    }
    let out = hook.run();
    out.expect_valid();
    if out.stdout.trim().is_empty() {
        Value::Null
    } else {
        out.json()
    }
}

fn context(v: &Value) -> String {
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_bash_call_that_exited_0_with_a_failing_summary_gets_the_hint_and_a_passing_one_nothing() {
    let failing = post_tool_use(
        None,
        json!({"stdout": FAILING, "stderr": "", "interrupted": false, "isImage": false}),
        "Bash",
    );
    assert_eq!(
        context(&failing),
        "[OUTPUT CHECK] The command exited 0, but its output reports a failure: `test tests::parses ... FAILED`. Read the output again before you go on; the exit status of a pipeline or of `cmd; echo …` is not the command's."
    );
    let passing = post_tool_use(
        None,
        json!({"stdout": PASSING, "stderr": "", "interrupted": false, "isImage": false}),
        "Bash",
    );
    assert_eq!(context(&passing), "", "{passing}");
    // Another tool's output is not a shell's.
    let read = post_tool_use(None, json!({"stdout": FAILING}), "Read");
    assert_eq!(context(&read), "", "{read}");
}

#[test]
fn codex_and_gemini_shell_output_is_read_too() {
    let codex = post_tool_use(Some("codex"), json!(FAILING), "Bash");
    assert!(codex.to_string().contains("[OUTPUT CHECK]"), "{codex}");
    let codex = post_tool_use(Some("codex"), json!(PASSING), "Bash");
    assert!(!codex.to_string().contains("[OUTPUT CHECK]"), "{codex}");
    let gemini_ok = json!({"llmContent": format!("<untrusted_context>\nOutput: {PASSING}\nProcess Group PGID: 1\n</untrusted_context>"), "returnDisplay": PASSING});
    let g = post_tool_use(Some("gemini"), gemini_ok, "run_shell_command");
    assert!(!g.to_string().contains("[OUTPUT CHECK]"), "{g}");
    let gemini_bad = json!({"llmContent": format!("<untrusted_context>\nOutput: {FAILING}\nProcess Group PGID: 1\n</untrusted_context>"), "returnDisplay": FAILING});
    let g = post_tool_use(Some("gemini"), gemini_bad, "run_shell_command");
    assert!(g.to_string().contains("[OUTPUT CHECK]"), "{g}");
}

#[test]
fn a_command_that_only_shows_text_is_never_output_that_lies() {
    let response = json!({"stdout": FAILING, "stderr": "", "interrupted": false, "isImage": false});
    for command in [
        "cat tests/fixtures/failing-run.txt",
        "sed -n '1,40p' target/test.log",
        "git show HEAD~1",
        "rustc --explain E0425",
        "head -50 target/test.log",
        "tail -n 20 target/test.log",
        "less target/test.log",
        "bat target/test.log",
        "git log -p -3",
        "git diff HEAD~1",
        "grep -n -A3 FAILED target/test.log",
    ] {
        let out = post_tool_use_of(None, response.clone(), "Bash", command);
        assert_eq!(context(&out), "", "{command}: {out}");
    }
    // Running the tests and showing their tail is still checked.
    let out = post_tool_use_of(None, response, "Bash", "cargo test 2>&1 | tail -n 20");
    assert!(context(&out).contains("[OUTPUT CHECK]"), "{out}");
}
