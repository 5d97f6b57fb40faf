//! The wire contract (§3) for every hook subcommand the manifest names: whatever arrives on
//! stdin, the hook exits 0 promptly with nothing or one JSON object on stdout.

use crate::common::{Hook, Project, fixtures, manifest_hooks, payload};
use crate::common::{assert_has, assert_lacks};
use serde_json::json;
use std::time::Duration;

/// Well inside the shortest manifest timeout (2 s for SessionEnd is the client's budget; the
/// others are 5 s or more). This bounds a hang, it does not measure speed.
const PROMPT: Duration = Duration::from_secs(4);

fn hooks() -> Vec<(String, String)> {
    let h = manifest_hooks();
    assert!(h.len() >= 10, "manifest lists every event");
    h
}

#[test]
fn recorded_fixtures_are_answered_validly_by_every_hook() {
    let fx = fixtures();
    assert!(
        fx.len() >= 10,
        "tests/fixtures/claude-code holds a recorded payload per event"
    );
    let p = Project::new();
    for (_, sub) in hooks() {
        for (name, mut v) in fx.clone() {
            // Point the recorded payload at the throw-away project.
            v["cwd"] = json!(p.path());
            let out = Hook::new(&sub).payload(v).cwd(p.path()).run();
            out.expect_valid();
            assert!(
                out.elapsed < PROMPT,
                "{sub} on {name} took {:?}",
                out.elapsed
            );
        }
    }
}

#[test]
fn empty_garbage_and_truncated_input_are_no_ops() {
    let p = Project::new();
    let full = serde_json::to_string(&payload("Stop", "s1", p.path())).unwrap();
    let truncated = &full[..full.len() / 2];
    let inputs: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"   \n".to_vec(),
        b"not json at all".to_vec(),
        b"[1,2,3]".to_vec(),
        b"\"a string\"".to_vec(),
        b"null".to_vec(),
        vec![0xff, 0xfe, 0x00, 0x9f],
        truncated.as_bytes().to_vec(),
    ];
    for (_, sub) in hooks() {
        for input in &inputs {
            Hook::new(&sub)
                .stdin(input.clone())
                .cwd(p.path())
                .run()
                .expect_noop();
        }
    }
    assert!(p.files().is_empty(), "bad input wrote {:?}", p.files());
}

#[test]
fn twenty_megabytes_of_input_is_answered_promptly() {
    let p = Project::new();
    let mut big = payload("UserPromptSubmit", "s1", p.path());
    big["prompt"] = json!("ralph ".repeat(20 * 1024 * 1024 / 6));
    let bytes = serde_json::to_vec(&big).unwrap();
    assert!(bytes.len() >= 20 * 1024 * 1024);
    for (_, sub) in hooks() {
        let out = Hook::new(&sub).stdin(bytes.clone()).cwd(p.path()).run();
        out.expect_noop();
        assert!(out.elapsed < PROMPT, "{sub} took {:?}", out.elapsed);
        assert!(out.stderr.contains("larger than"), "{sub}: {}", out.stderr);
    }
}

#[test]
fn a_stdin_that_never_closes_does_not_hold_the_hook() {
    let p = Project::new();
    for (_, sub) in hooks() {
        let out = Hook::new(&sub)
            .stdin(b"{\"session_id\":".to_vec())
            .keep_stdin_open()
            .cwd(p.path())
            .run();
        out.expect_noop();
        assert!(out.elapsed < PROMPT, "{sub} took {:?}", out.elapsed);
    }
}

/// The deadline that cut the hook is said on stderr and in the trace, and no answer follows.
#[test]
fn a_passed_deadline_is_said_and_traced() {
    let p = Project::new();
    let trace = p.path().join("trace.jsonl");
    let out = Hook::new("stop")
        .stdin(b"{\"session_id\":".to_vec())
        .keep_stdin_open()
        .cwd(p.path())
        .env("OMC_TRACE_FILE", &trace.display().to_string())
        .run();
    out.expect_noop();
    assert!(out.elapsed < PROMPT, "took {:?}", out.elapsed);
    assert_has(&out.stderr, "omc-hooks: stop: internal deadline of");
    let lines = std::fs::read_to_string(&trace).unwrap();
    let last: serde_json::Value = serde_json::from_str(lines.lines().last().unwrap()).unwrap();
    assert_eq!(last["outcome"], "deadline", "{lines}");
    assert_eq!(last["hook"], "stop", "{lines}");
}

/// An agent that starts its hooks with the deadline's signal ignored (an ignored signal stays
/// ignored across exec) still gets a hook that ends by its deadline.
#[cfg(unix)]
#[test]
fn the_deadline_holds_when_the_agent_ignores_its_signal() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let p = Project::new();
    let started = std::time::Instant::now();
    let mut child = Command::new("/bin/sh")
        .args(["-c", "trap '' ALRM; exec \"$0\" stop", crate::common::BIN])
        .current_dir(p.path())
        .env("XDG_CONFIG_HOME", "/nonexistent/omc-hooks-tests")
        .env("XDG_STATE_HOME", crate::common::test_state_home())
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("OMC_STATE_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{\"session_id\":").unwrap();
    // Closed after 10 s: a hook the deadline failed to end then fails the time check, not hangs.
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(10));
        drop(stdin);
    });
    let out = child.wait_with_output().unwrap();
    let elapsed = started.elapsed();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{:?}", out.stdout);
    assert!(elapsed < PROMPT, "took {elapsed:?}");
    assert_has(
        &String::from_utf8_lossy(&out.stderr),
        "internal deadline of",
    );
}

#[test]
fn kill_switches_turn_every_hook_off() {
    let p = Project::new();
    for (event, sub) in hooks() {
        let v = payload(&event, "s1", p.path());
        for (k, val) in [
            ("DISABLE_OMC", "1"),
            ("DISABLE_OMC", "TRUE"),
            ("OMC_SKIP_HOOKS", &format!("other,{sub}")),
        ] {
            let out = Hook::new(&sub).payload(v.clone()).env(k, val).run();
            out.expect_noop();
        }
    }
}

/// A `ralph …` prompt (which answers with the keyword's context) and then a Stop (which
/// blocks on the run), with `env`: (the prompt's outcome, the Stop's outcome).
fn ralph_turn(env: &[(&str, &str)]) -> (crate::common::Outcome, crate::common::Outcome) {
    let p = Project::new();
    let mut prompt = payload("UserPromptSubmit", "s1", p.path());
    prompt["prompt"] = json!("ralph fix the flaky parser tests");
    let mut stop = payload("Stop", "s1", p.path());
    stop["stop_hook_active"] = json!(false);
    let run = |sub: &str, v: &serde_json::Value| {
        let mut h = Hook::new(sub).payload(v.clone()).cwd(p.path());
        for (k, val) in env {
            h = h.env(k, val);
        }
        let out = h.run();
        out.expect_valid();
        out
    };
    let first = run("user-prompt-submit", &prompt);
    (first, run("stop", &stop))
}

#[test]
fn the_switches_read_what_people_type() {
    // Issue 30, item 6. Without a switch both hooks answer (so a no-op below is the switch).
    let (prompt, stop) = ralph_turn(&[]);
    assert!(
        prompt.context().contains("[MAGIC KEYWORD: RALPH]"),
        "{}",
        prompt.stdout
    );
    stop.expect_block("[RALPH LOOP");
    for (k, v) in [
        ("DISABLE_OMC", "yes"),
        ("DISABLE_OMC", "on"),
        ("DISABLE_OMC", " YES "),
        ("DISABLE_OMC", "True"),
        ("OMC_SKIP_HOOKS", "user-prompt-submit,stop"),
        ("OMC_SKIP_HOOKS", " UserPromptSubmit , Stop "),
        ("OMC_SKIP_HOOKS", "user_prompt_submit stop"),
        ("OMC_SKIP_HOOKS", "USER-PROMPT-SUBMIT;STOP"),
        ("OMC_SKIP_HOOKS", "all"),
    ] {
        let (prompt, stop) = ralph_turn(&[(k, v)]);
        prompt.expect_noop();
        stop.expect_noop();
        assert_eq!(prompt.stderr, "", "{k}={v:?}: nothing to warn about");
    }
    // Only the named hook is skipped: ` Stop ` leaves the prompt hook on.
    let (prompt, stop) = ralph_turn(&[("OMC_SKIP_HOOKS", " Stop ")]);
    assert!(prompt.context().contains("[MAGIC KEYWORD: RALPH]"));
    stop.expect_noop();
    // Off means off, in the same spellings.
    let (prompt, _) = ralph_turn(&[("DISABLE_OMC", "no")]);
    assert!(prompt.context().contains("[MAGIC KEYWORD: RALPH]"));
}

#[test]
fn omcs_script_names_skip_the_work_that_does_their_job() {
    // Issue 36: OMC's `keyword-detector` keeps `ralph fix …` inert: no keyword context, no run
    // to continue; the hook itself still runs (and says nothing to warn about).
    let (prompt, stop) = ralph_turn(&[("OMC_SKIP_HOOKS", "keyword-detector")]);
    assert!(
        !prompt.context().contains("MAGIC KEYWORD"),
        "{}",
        prompt.stdout
    );
    stop.expect_noop();
    assert_eq!(prompt.stderr, "", "OMC's own names are no mistake");
    // `persistent-mode` (or `stop-continuation`): the run starts, its Stop loop is off.
    for name in ["persistent-mode", "Stop_Continuation"] {
        let (prompt, stop) = ralph_turn(&[("OMC_SKIP_HOOKS", name)]);
        assert!(
            prompt.context().contains("[MAGIC KEYWORD: RALPH]"),
            "{name}"
        );
        stop.expect_noop();
    }
    // `install --disable-omc` marks the names as OMC's alone: ours stay on.
    let (prompt, stop) = ralph_turn(&[
        ("OMC_SKIP_HOOKS", "keyword-detector,persistent-mode"),
        ("OMC_SKIP_HOOKS_OMC_ONLY", "1"),
    ]);
    assert!(prompt.context().contains("[MAGIC KEYWORD: RALPH]"));
    stop.expect_block("[RALPH LOOP");
    // A script that is a whole hook of OMC's stands for our work in that hook (the person's
    // own hooks.toml entries for it still run: tests/user_hooks/scripts.rs).
    let p = Project::new();
    let mut v = payload("PreToolUse", "s1", p.path());
    v["tool_name"] = json!("Skill");
    v["tool_input"] = json!({"skill": "oh-my-claudecode:deep-interview"});
    let with = |skip: &str| {
        Hook::new("pre-tool-use")
            .payload(v.clone())
            .cwd(p.path())
            .env("OMC_SKIP_HOOKS", skip)
            .env(
                "OMC_TRACE_FILE",
                &p.path().join(format!("{skip}.trace")).to_string_lossy(),
            )
            .run()
    };
    let out = with("pre-tool-enforcer");
    out.expect_noop();
    let on = with("keyword-detector");
    assert!(
        !on.stdout.trim().is_empty(),
        "the skill guard answers when on"
    );
    let trace = std::fs::read_to_string(p.path().join("keyword-detector.trace")).unwrap();
    assert_lacks(&trace, "\"outcome\":\"skipped\"");
}

#[test]
fn an_unreadable_switch_is_said_once_and_never_silently_ignored() {
    // A value that is neither yes nor no: read as on (the variable's name says what was
    // meant), and said on stderr.
    let (prompt, stop) = ralph_turn(&[("DISABLE_OMC", "maybe")]);
    prompt.expect_noop();
    stop.expect_noop();
    assert_eq!(prompt.stderr.lines().count(), 1, "{}", prompt.stderr);
    assert!(
        prompt
            .stderr
            .contains("DISABLE_OMC='maybe' is neither yes (1, true, yes, on) nor no"),
        "{}",
        prompt.stderr
    );
    // A hook name that names nothing skips nothing: said on stderr by every hook, and to the
    // person once per session (a systemMessage), not again.
    let p = Project::new();
    let turn = |text: &str| {
        let mut v = payload("UserPromptSubmit", "s1", p.path());
        v["prompt"] = json!(text);
        let out = Hook::new("user-prompt-submit")
            .payload(v)
            .cwd(p.path())
            .env("OMC_SKIP_HOOKS", "stpo,workflow-drift-guard")
            .run();
        out.expect_valid();
        out
    };
    let first = turn("ralph fix the flaky parser tests");
    assert!(first.context().contains("[MAGIC KEYWORD: RALPH]"));
    let msg = first.system_message();
    assert!(
        msg.starts_with("omc-hooks: OMC_SKIP_HOOKS: 'stpo' names no hook (one of session-start,"),
        "{msg}"
    );
    assert_lacks(&msg, "workflow-drift-guard");
    assert!(
        first.stderr.contains("'stpo' names no hook"),
        "{}",
        first.stderr
    );
    let second = turn("and the lexer too");
    assert!(
        second.json().get("systemMessage").is_none(),
        "told once: {}",
        second.stdout
    );
    let notices = p.read_json(".omc/state/sessions/s1/notices.json").unwrap();
    crate::schema::assert_valid("notices", &notices);
    // doctor names it as a problem.
    let out = std::process::Command::new(crate::common::BIN)
        .arg("doctor")
        .current_dir(p.path())
        .env("OMC_SKIP_HOOKS", "stpo")
        .env("PATH", "/nonexistent")
        .env("XDG_CONFIG_HOME", "/nonexistent/omc-hooks-tests")
        .output()
        .unwrap();
    let doctor = String::from_utf8_lossy(&out.stdout);
    assert_has(&doctor, "OMC_SKIP_HOOKS: 'stpo' names no hook");
    assert_has(&doctor, "OMC_SKIP_HOOKS='stpo' skips: none of our hooks");
}

#[test]
fn no_diagnostic_says_omc_hooks_twice() {
    // Issue 30, item 10: notices also shown to the person carry the prefix already.
    let p = Project::new();
    let config = tempfile::tempdir().unwrap();
    p.write_omc(
        "hooks.toml",
        "[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"true\"\n",
    );
    std::fs::write(
        p.omc().join("config.json"),
        r#"{"ralph": {"max_iterations": "x"}}"#,
    )
    .unwrap();
    let mut lines = Vec::new();
    for (sub, event) in [
        ("session-start", "SessionStart"),
        ("user-prompt-submit", "UserPromptSubmit"),
        ("stop", "Stop"),
    ] {
        let mut v = payload(event, "s1", p.path());
        v["prompt"] = json!("ralph fix it");
        let out = Hook::new(sub)
            .payload(v)
            .cwd(p.path())
            .env("XDG_CONFIG_HOME", config.path().to_str().unwrap())
            .env("OMC_DEBUG", "1")
            .env("OMC_SKIP_HOOKS", "nothing-by-this-name")
            .run();
        out.expect_valid();
        lines.extend(out.stderr.lines().map(str::to_string));
    }
    assert!(
        lines.iter().any(|l| l.contains("is not trusted")),
        "the untrusted notice is on stderr: {lines:#?}"
    );
    for l in &lines {
        assert!(l.starts_with("omc-hooks: "), "{l}");
        assert_lacks(l, "omc-hooks: omc-hooks:");
    }
}

#[test]
fn unknown_subcommand_is_an_error_for_people_not_a_hook() {
    // As a hook (stdin is a pipe, a payload on it): exit 0 — Claude Code reads 2 as "block" —
    // nothing on stdout, one line on stderr. Also for no subcommand at all.
    for args in [
        vec!["no-such-hook"],
        vec!["no-such-thing", "--flag"],
        vec![],
    ] {
        let out = crate::common::Hook::args(&args)
            .payload(serde_json::json!({"hook_event_name": "Notification", "message": "hi"}))
            .run();
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{args:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("omc-hooks: "), "{}", out.stderr);
    }
    // An unknown argument to a hook subcommand is ignored with one line; the hook still runs.
    let p = crate::common::Project::new();
    let out = crate::common::Hook::args(&["stop", "--no-such-flag"])
        .payload(crate::common::payload("Stop", "s1", p.path()))
        .run();
    out.expect_noop();
    assert!(
        out.stderr
            .contains("ignoring unexpected argument '--no-such-flag'"),
        "{}",
        out.stderr
    );
    // A person at a terminal still gets a usage error.
    let t = crate::common::at_terminal(&["no-such-thing"]);
    assert_eq!(t.0, 2, "{}", t.1);
    assert!(t.1.contains("unknown command 'no-such-thing'"), "{}", t.1);
    assert!(t.1.contains("omc-hooks help"), "{}", t.1);
}

#[test]
fn help_and_version_answer_without_reading_stdin() {
    for args in [vec!["--help"], vec!["--version"], vec!["stop", "--help"]] {
        let out = std::process::Command::new(crate::common::BIN)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
}
