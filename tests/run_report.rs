//! `omc-hooks report` and the money budget through the binary (issue 42, contract §6 "Cost",
//! §11): a scripted ralph run — a Claude Code transcript with a known model and usage, an
//! edit, a failing then passing check, a claim — is reported with its reason, proof, tokens,
//! cost (tokens × the prices set in `.omc/config.json`), files and commands; the page is
//! self-contained; a run started with `--cost 0.01` ends as `max_cost` once its transcript
//! passes a cent, and what a run spent survives its suspension and resumption.

use crate::common::command_in;
use crate::common::{BIN, Hook, Outcome, Project};
use crate::common::{assert_has, assert_lacks};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::process::Command;

/// The pinned clock of `common::Hook` (2026-12-03T13:45:00Z).
const NOW: i64 = 1_796_305_500_000;
const MODEL: &str = "claude-sonnet-4-5-20250929";
const CHECK: &str = "python3 check.py";

/// The prices the test sets (per million tokens): not the shipped ones, so the report must
/// use the configuration's.
fn prices() -> Value {
    json!({"claude-sonnet-4-5": {"input": 2, "output": 10, "cache_read": 0.5, "cache_write": 4}})
}

/// Dollars for one call's usage at [`prices`].
fn dollars(input: u64, output: u64, cache_read: u64, cache_write: u64) -> f64 {
    (input as f64 * 2.0 + output as f64 * 10.0 + cache_read as f64 * 0.5 + cache_write as f64 * 4.0)
        / 1e6
}

/// The project's configuration: prices, and the verify command the claim must be backed by.
/// One helper, so that a change in how verify commands are trusted is made here alone.
fn configure(p: &Project, verify: Option<&str>) {
    let mut c = json!({"prices": prices()});
    if let Some(v) = verify {
        c["verify"] = json!([v]);
    }
    p.write_json(".omc/config.json", &c);
    // The project's verify commands are used once the person trusted them (issue 41).
    if verify.is_some() {
        crate::common::trust_as_person(p.path(), &person(p));
    }
}

/// The person's configuration directory (`XDG_CONFIG_HOME`) the hooks are given: where
/// `trust` records the project's verify commands.
fn person(p: &Project) -> std::path::PathBuf {
    p.path().join(".person-config")
}

fn base(p: &Project, sid: &str, event: &str) -> Value {
    json!({"session_id": sid, "cwd": p.path(), "hook_event_name": event, "prompt_id": "p1"})
}

fn with(mut v: Value, extra: Value) -> Value {
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

fn hook(p: &Project, sub: &str, payload: Value) -> Outcome {
    let person = person(p);
    Hook::new(sub)
        .payload(payload)
        .cwd(p.path())
        .env("XDG_CONFIG_HOME", &person.to_string_lossy())
        .run()
}

fn prompt(p: &Project, sid: &str, text: &str) {
    hook(
        p,
        "user-prompt-submit",
        with(base(p, sid, "UserPromptSubmit"), json!({"prompt": text})),
    )
    .expect_valid();
}

/// One assistant message in Claude Code's transcript, on two lines (one per content block,
/// the same usage on each, as Claude Code writes them).
fn call(t: &std::path::Path, id: &str, u: (u64, u64, u64, u64)) {
    use std::io::Write;
    let line = json!({"type": "assistant", "timestamp": "2026-12-03T13:45:00.000Z",
        "message": {"id": id, "role": "assistant", "model": MODEL,
            "usage": {"input_tokens": u.0, "output_tokens": u.1,
                      "cache_read_input_tokens": u.2, "cache_creation_input_tokens": u.3}}});
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(t)
        .unwrap();
    writeln!(f, "{line}\n{line}").unwrap();
}

fn shell(p: &Project, sid: &str, cmd: &str, output: &str, ok: bool) {
    let input = json!({"command": cmd});
    hook(
        p,
        "pre-tool-use",
        with(
            base(p, sid, "PreToolUse"),
            json!({"tool_name": "Bash", "tool_input": input}),
        ),
    )
    .expect_valid();
    let (sub, event, extra) = if ok {
        (
            "post-tool-use",
            "PostToolUse",
            json!({"tool_response": {"stdout": output, "stderr": ""}}),
        )
    } else {
        (
            "post-tool-use-failure",
            "PostToolUseFailure",
            json!({"error": format!("Exit code 1\n{output}")}),
        )
    };
    hook(
        p,
        sub,
        with(
            base(p, sid, event),
            with(json!({"tool_name": "Bash", "tool_input": input}), extra),
        ),
    )
    .expect_valid();
}

fn edit(p: &Project, sid: &str, rel: &str, content: &str) {
    let file = p.path().join(rel);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let input = json!({"file_path": file, "content": content});
    hook(
        p,
        "pre-tool-use",
        with(
            base(p, sid, "PreToolUse"),
            json!({"tool_name": "Write", "tool_input": input}),
        ),
    )
    .expect_valid();
    std::fs::write(&file, content).unwrap();
    hook(
        p,
        "post-tool-use",
        with(
            base(p, sid, "PostToolUse"),
            json!({"tool_name": "Write", "tool_input": input, "tool_response": {"filePath": file}}),
        ),
    )
    .expect_valid();
}

fn stop(p: &Project, sid: &str, t: &std::path::Path, n: u32, message: &str) -> Outcome {
    hook(
        p,
        "stop",
        with(
            base(p, sid, "Stop"),
            json!({"stop_hook_active": n > 0, "transcript_path": t,
                   "last_assistant_message": message}),
        ),
    )
}

fn blocked(out: &Outcome) -> bool {
    out.stdout.contains("\"decision\":\"block\"") || out.stdout.contains("\"decision\": \"block\"")
}

fn ralph(p: &Project, sid: &str) -> Value {
    let v = p
        .read_json(&format!(".omc/state/sessions/{sid}/ralph-state.json"))
        .expect("ralph-state.json");
    assert_valid("mode-state", &v);
    v
}

/// `omc-hooks report ARGS` in the project, at the pinned clock: (exit code, stdout).
pub(crate) fn report(p: &Project, args: &[&str]) -> (i32, String) {
    let out = command_in(p.path())
        .arg("report")
        .args(args)
        .env("OMC_NOW_MS", (NOW + 60_000).to_string())
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The scripted run: returns its project, transcript and the dollars its usage adds up to.
pub(crate) fn scripted_run() -> (Project, std::path::PathBuf, f64, u64) {
    let p = Project::new();
    configure(&p, Some(CHECK));
    let sid = "rep";
    let t = p.path().join("transcript.jsonl");
    prompt(&p, sid, "ralph fix the total in src/total.py");
    // Iteration 1: an edit, the check fails, the model goes on.
    let u1 = (1_000, 200, 5_000, 2_000);
    call(&t, "msg-1", u1);
    edit(&p, sid, "src/total.py", "TOTAL = 3\n");
    shell(&p, sid, CHECK, "AssertionError: total is 2, want 3", false);
    let out = stop(&p, sid, &t, 0, "The check still fails; fixing.");
    assert!(blocked(&out), "continued: {}", out.stdout);
    // Iteration 2: the check passes after the edit, and the model claims completion.
    let u2 = (500, 100, 8_000, 0);
    call(&t, "msg-2", u2);
    shell(&p, sid, CHECK, "ok", true);
    let out = stop(&p, sid, &t, 1, "Fixed; the check passes.\n<omc-complete/>");
    assert!(!blocked(&out), "the claim ends the run: {}", out.stdout);
    let usd = dollars(u1.0, u1.1, u1.2, u1.3) + dollars(u2.0, u2.1, u2.2, u2.3);
    let tokens = 1_000 + 200 + 5_000 + 2_000 + 500 + 100 + 8_000;
    (p, t, usd, tokens)
}

#[test]
fn a_scripted_run_is_reported_with_its_reason_proof_tokens_cost_files_and_commands() {
    let (p, _t, usd, tokens) = scripted_run();
    let s = ralph(&p, "rep");
    assert_eq!(s["ended_reason"], "completed");
    let (code, out) = report(&p, &["--json"]);
    assert_eq!(code, 0, "{out}");
    let r: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(r["mode"], "ralph");
    assert_eq!(r["task"], "ralph fix the total in src/total.py");
    assert_eq!(r["agent"], "claude");
    assert_eq!(r["started_at"], "2026-12-03T13:45:00.000Z");
    assert!(r["ended_at"].is_string());
    assert_eq!(r["ended_reason"], "completed");
    assert_eq!(r["verified"], true);
    assert_eq!(r["iterations"], 2);
    assert_eq!(r["tokens_used"], tokens);
    let cost = r["cost_usd"].as_f64().expect("a known cost");
    assert!((cost - usd).abs() <= usd * 0.01, "{cost} vs {usd}");
    assert_eq!(r["files_changed"], json!(["src/total.py"]));
    assert_eq!(r["commands_run"], json!([CHECK]));
    assert_eq!(r["checks"][0]["command"], CHECK);
    assert_eq!(r["checks"][0]["ok"], true);
    assert_eq!(r["tokens"]["cache_read"], 13_000);
    // One mark per iteration: the first continued after a failure, the second ended.
    let timeline = r["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 2, "{timeline:?}");
    assert_eq!(timeline[0]["failures"], 1);
    assert_eq!(timeline[0]["tokens"], 8_200);
    assert_eq!(timeline[1]["outcome"], "completed");
    assert_eq!(r["journal_note"], Value::Null);
    // The text: the reason in words and the cost.
    let (code, text) = report(&p, &[]);
    assert_eq!(code, 0, "{text}");
    assert_has(&text, "completed, verified by the project's checks");
    assert!((usd - 0.0205).abs() < 1e-12);
    assert_has(&text, "Cost       $0.02");
    assert_has(&text, "src/total.py");
    assert!(
        text.contains("tokens per iteration: 8k 8k"),
        "not a terminal: plain numbers\n{text}"
    );
    // `status` shows the cost beside the tokens, and where to see the rest.
    let status = command_in(p.path())
        .arg("status")
        .env("OMC_NOW_MS", (NOW + 60_000).to_string())
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert_has(&status, "16k tokens, $0.02");
    assert_has(&status, "'omc-hooks report SESSION/MODE'");
    // By id, as the report names it; an unknown id is an error.
    assert_eq!(report(&p, &["rep/ralph", "--json"]).1, out);
    assert_eq!(report(&p, &["ralph", "--json"]).1, out);
    let (code, err) = report(&p, &["nope"]);
    assert_ne!(code, 0);
    assert_has(&err, "no run 'nope'");
    // --all: one line.
    let (_, all) = report(&p, &["--all"]);
    assert_eq!(all.lines().count(), 1, "{all}");
    assert!(
        all.starts_with("rep/ralph") && all.contains("completed ✓"),
        "{all}"
    );
    // The page.
    let page = p.path().join("report.html");
    let (code, said) = report(&p, &["--html", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{said}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_has(&html, "<svg");
    assert!(
        !html.to_ascii_lowercase().contains("http"),
        "no address in the page"
    );
    assert_eq!(html.matches("data-mark=\"iteration\"").count(), 2);
}

#[test]
fn an_unknown_model_has_an_unknown_cost_never_zero() {
    let p = Project::new();
    let sid = "unk";
    let t = p.path().join("t.jsonl");
    prompt(&p, sid, "ralph fix it");
    use std::io::Write;
    let line = json!({"type": "assistant", "timestamp": "2026-12-03T13:45:00.000Z",
        "message": {"id": "m1", "model": "house-model-7", "usage": {"input_tokens": 100, "output_tokens": 5}}});
    writeln!(std::fs::File::create(&t).unwrap(), "{line}").unwrap();
    assert!(blocked(&stop(&p, sid, &t, 0, "more to do")));
    let (_, out) = report(&p, &["--json"]);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["cost_usd"], Value::Null);
    assert_eq!(r["cost_unknown_models"], json!(["house-model-7"]));
    let (_, text) = report(&p, &[]);
    assert_has(&text, "cost unknown (no price for house-model-7");
    assert_lacks(&text, "$0.00");
}

#[test]
fn a_money_budget_ends_the_run_as_max_cost_and_says_what_was_spent() {
    for how in ["prompt", "config"] {
        let p = Project::new();
        let sid = "cost";
        let t = p.path().join("t.jsonl");
        if how == "prompt" {
            configure(&p, None);
            prompt(&p, sid, "ralph --cost 0.01 fix it");
            assert_eq!(ralph(&p, sid)["prompt"], "ralph fix it");
        } else {
            let mut c = json!({"prices": prices()});
            c["ralph"] = json!({"max_cost_usd": 0.01});
            p.write_json(".omc/config.json", &c);
            prompt(&p, sid, "ralph fix it");
        }
        assert_eq!(ralph(&p, sid)["max_cost_usd"], 0.01);
        // Half a cent: continued, the budget shown.
        call(&t, "m1", (0, 500, 0, 0));
        let out = stop(&p, sid, &t, 0, "more to do");
        assert!(blocked(&out), "{}", out.stdout);
        assert!(out.stdout.contains("$0.005/$0.01"), "{}", out.stdout);
        // Past one cent: ended as max_cost, the person told what was spent.
        call(&t, "m2", (0, 600, 0, 0));
        let out = stop(&p, sid, &t, 1, "more to do");
        assert!(!blocked(&out), "{}", out.stdout);
        assert!(
            out.stdout.contains("$0.01 ($0.011 spent)"),
            "{}",
            out.stdout
        );
        let s = ralph(&p, sid);
        assert_eq!(s["ended_reason"], "max_cost", "{how}");
        let (_, text) = report(&p, &[]);
        assert_has(&text, "money budget spent");
    }
}

#[test]
fn a_report_of_a_run_without_a_journal_says_it_is_gone() {
    let p = Project::new();
    p.write_json(
        ".omc/state/sessions/old/ralph-state.json",
        &json!({"active": false, "mode": "ralph", "prompt": "ralph port it",
                "started_at": "2026-12-03T12:00:00Z", "ended_at": "2026-12-03T13:00:00Z",
                "ended_reason": "max_iterations", "iteration": 40, "tokens_used": 5000}),
    );
    let (_, text) = report(&p, &["old/ralph"]);
    assert_has(&text, "iteration limit reached");
    assert_has(&text, "this run's journal is gone");
    assert_has(&text, "no cost recorded");
}

fn session_end(p: &Project, sid: &str, t: &std::path::Path, now: i64) {
    Hook::new("session-end")
        .payload(with(
            base(p, sid, "SessionEnd"),
            json!({"reason": "other", "transcript_path": t}),
        ))
        .cwd(p.path())
        .now(now)
        .run()
        .expect_noop();
}

#[test]
fn the_session_summary_carries_the_sessions_tokens_and_cost_with_or_without_a_run() {
    let p = Project::new();
    configure(&p, None);
    let t = p.path().join("t.jsonl");
    call(&t, "m1", (1_000, 100, 0, 0));
    session_end(&p, "plain", &t, NOW + 60_000);
    let s = p.read_json(".omc/sessions/plain.json").expect("summary");
    assert_valid("session-summary", &s);
    assert_eq!(s["modes"], json!([]));
    assert_eq!(s["tokens_used"], 1_100);
    assert_eq!(s["tokens"]["output"], 100);
    let cost = s["cost_usd"].as_f64().unwrap();
    assert!((cost - dollars(1_000, 100, 0, 0)).abs() < 1e-9, "{cost}");
    // With a run: the session's totals, and the run's own cost.
    let (p, t, usd, tokens) = scripted_run();
    session_end(&p, "rep", &t, NOW + 60_000);
    let s = p.read_json(".omc/sessions/rep.json").expect("summary");
    assert_valid("session-summary", &s);
    assert_eq!(s["tokens_used"], tokens);
    assert!((s["cost_usd"].as_f64().unwrap() - usd).abs() < 1e-9);
    assert!((s["modes"][0]["cost_usd"].as_f64().unwrap() - usd).abs() < 1e-9);
}

#[test]
fn what_a_run_spent_survives_its_suspension_and_resumption() {
    let p = Project::new();
    configure(&p, None);
    let t1 = p.path().join("one.jsonl");
    prompt(&p, "one", "ralph --cost 0.01 fix it");
    call(&t1, "m1", (0, 700, 0, 0));
    assert!(blocked(&stop(&p, "one", &t1, 0, "more to do")));
    session_end(&p, "one", &t1, NOW + 60_000);
    // The next session takes the run up, spent money and all.
    Hook::new("session-start")
        .payload(with(
            base(&p, "two", "SessionStart"),
            json!({"source": "startup"}),
        ))
        .cwd(p.path())
        .now(NOW + 120_000)
        .run()
        .expect_valid();
    let s = ralph(&p, "two");
    assert_eq!(s["active"], true);
    assert_eq!(s["tokens_used"], 700);
    // Another 0.4 cents in the new session's transcript pass the cent.
    let t2 = p.path().join("two.jsonl");
    let line = json!({"type": "assistant", "timestamp": "2026-12-03T13:47:00.000Z",
        "message": {"id": "m2", "model": MODEL, "usage": {"input_tokens": 0, "output_tokens": 400}}});
    std::fs::write(&t2, format!("{line}\n")).unwrap();
    let out = Hook::new("stop")
        .payload(with(
            base(&p, "two", "Stop"),
            json!({"stop_hook_active": false, "transcript_path": t2,
                   "last_assistant_message": "more to do"}),
        ))
        .cwd(p.path())
        .now(NOW + 180_000)
        .run();
    assert!(!blocked(&out), "{}", out.stdout);
    let s = ralph(&p, "two");
    assert_eq!(s["ended_reason"], "max_cost");
    assert_eq!(s["tokens_used"], 1_100);
}

#[test]
fn detect_shows_a_money_budget_and_judges_the_prompt_without_it() {
    let out = Command::new(BIN)
        .args(["detect", "--json", "ralph --cost $0.50 fix the tests"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["modes"], json!(["ralph"]), "{v}");
    assert_eq!(v["budget"]["max_cost_usd"], 0.5, "{v}");
    assert_eq!(v["budget"]["judged"], "ralph fix the tests", "{v}");
    let out = Command::new(BIN)
        .args(["detect", "ralph --cost 5 fix the tests"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_has(&text, "budget: $5.00");
}

#[test]
fn an_edit_is_a_file_changed_whether_or_not_its_content_was_new_and_however_its_path_is_given() {
    let p = Project::new();
    let sid = "ed";
    let t = p.path().join("t.jsonl");
    prompt(&p, sid, "ralph tidy it");
    // A relative path, and an edit whose file the check never wrote (same content before and
    // after: no new work, still an edit of the file).
    for (path, write) in [("src/a.py", true), ("src/ghost.py", false)] {
        let input = json!({"file_path": path, "content": "x = 1\n"});
        for (sub, event) in [
            ("pre-tool-use", "PreToolUse"),
            ("post-tool-use", "PostToolUse"),
        ] {
            if sub == "post-tool-use" && write {
                std::fs::create_dir_all(p.path().join("src")).unwrap();
                std::fs::write(p.path().join(path), "x = 1\n").unwrap();
            }
            hook(
                &p,
                sub,
                with(
                    base(&p, sid, event),
                    json!({"tool_name": "Edit", "tool_input": input}),
                ),
            )
            .expect_valid();
        }
    }
    std::fs::write(&t, "").unwrap();
    assert!(blocked(&stop(&p, sid, &t, 0, "more to do")));
    let (_, out) = report(&p, &["--json"]);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        r["files_changed"],
        json!(["src/a.py", "src/ghost.py"]),
        "{r:#}"
    );
}

#[test]
fn report_has_help_and_refuses_what_it_cannot_do() {
    let p = Project::new();
    let (code, help) = report(&p, &["--help"]);
    assert_eq!(code, 0, "{help}");
    assert!(help.starts_with("Usage: omc-hooks report"), "{help}");
    assert_eq!(report(&p, &["--bogus"]).0, 2);
    assert_eq!(report(&p, &["--all", "--html", "x.html"]).0, 2);
    assert_eq!(report(&p, &["a", "b"]).0, 2);
    let (code, none) = report(&p, &[]);
    assert_eq!(code, 0, "{none}");
    assert!(none.starts_with("No runs in "), "{none}");
    let (_, none) = report(&p, &["--all"]);
    assert!(none.starts_with("No runs in the last 7 days"), "{none}");
}

#[test]
fn a_failure_that_escalated_during_the_run_is_reported() {
    let p = Project::new();
    let sid = "esc";
    let t = p.path().join("t.jsonl");
    std::fs::write(&t, "").unwrap();
    prompt(&p, sid, "ralph make the build pass");
    for _ in 0..5 {
        shell(&p, sid, "make build", "error: linker `cc` not found", false);
    }
    assert!(blocked(&stop(&p, sid, &t, 0, "still failing")));
    let (_, out) = report(&p, &["--json"]);
    let r: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        r["escalations"],
        json!(["Bash failed 5× in a row: Exit code 1 error: linker `cc` not found"]),
        "{r:#}"
    );
    assert_eq!(r["failures"], 5, "{r:#}");
    let (_, text) = report(&p, &[]);
    assert_has(&text, "Escalated  Bash failed 5× in a row");
}
