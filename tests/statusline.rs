//! `omc-hooks statusline` fed the payloads recorded from the real client
//! (`tests/fixtures/claude-code/statusline-*.json`), against arranged state: the exact line for
//! an idle session, a ralph run at 3/10, a context 91 % full, corrupt state; and that the command
//! never writes, never fails and never prints more than one line.

use crate::common::{Hook, Outcome, Project};
use serde_json::{Value, json};

const NOW: i64 = 1_796_305_500_000;

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/claude-code/statusline-{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

fn sid(payload: &Value) -> String {
    payload["session_id"].as_str().unwrap().to_string()
}

/// The command as Claude Code runs it for `project`: CLAUDE_PROJECT_DIR set, stdout a pipe.
/// Colour is off unless a test asks (the test process may itself run under Claude Code).
fn statusline(project: &Project, payload: &Value) -> Hook {
    Hook::new("statusline")
        .payload(payload.clone())
        .cwd(project.path())
        .env("CLAUDE_PROJECT_DIR", project.path().to_str().unwrap())
        .env("CLAUDECODE", "")
        .env("NO_COLOR", "")
        .now(NOW)
}

/// Exit 0 and exactly one line; returns it without the newline.
#[track_caller]
fn line(o: &Outcome) -> String {
    assert_eq!(o.code, Some(0), "stderr: {}", o.stderr);
    assert!(o.stdout.ends_with('\n'), "{:?}", o.stdout);
    let body = o.stdout.trim_end_matches('\n');
    assert!(!body.contains('\n'), "more than one line: {:?}", o.stdout);
    body.to_string()
}

fn iso(ms: i64) -> String {
    omc_hooks::time::iso(ms)
}

fn ralph_at(project: &Project, session: &str, iteration: u32, max: u32) {
    project.write_json(
        &format!(".omc/state/sessions/{session}/ralph-state.json"),
        &json!({"schema_version": 1, "mode": "ralph", "active": true, "session_id": session,
                "prompt": "fix the tests", "started_at": iso(NOW - 600_000),
                "last_checked_at": iso(NOW - 5_000), "iteration": iteration,
                "max_iterations": max}),
    );
}

/// Every file below the project with its bytes, to prove nothing was written.
fn snapshot(project: &Project) -> Vec<(String, Vec<u8>)> {
    project
        .files()
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(project.path().join(&f)).unwrap();
            (f, bytes)
        })
        .collect()
}

#[test]
fn recorded_payloads_give_the_exact_line() {
    let startup = fixture("startup");
    let ralph = fixture("ralph");
    let full = fixture("context-91");
    // The three were recorded in one session.
    assert_eq!(sid(&startup), sid(&ralph));
    assert_eq!(sid(&ralph), sid(&full));
    let session = sid(&ralph);

    // Idle: no run, and before the first response no context figure.
    let p = Project::new();
    assert_eq!(line(&statusline(&p, &startup).run()), "omc");
    assert_eq!(line(&statusline(&p, &ralph).run()), "omc · ctx 0%");
    assert_eq!(line(&statusline(&p, &full).run()), "omc · ctx 91%");

    // An active ralph run at 3/10.
    ralph_at(&p, &session, 3, 10);
    assert_eq!(line(&statusline(&p, &ralph).run()), "ralph 3/10 · ctx 0%");
    assert_eq!(line(&statusline(&p, &full).run()), "ralph 3/10 · ctx 91%");

    // Corrupt state: said on the line, and the file stays where it is, byte for byte.
    std::fs::write(
        p.session_dir(&session).join("ralph-state.json"),
        b"{\"active\": tru",
    )
    .unwrap();
    let before = snapshot(&p);
    assert_eq!(
        line(&statusline(&p, &full).run()),
        "state unreadable · ctx 91%"
    );
    assert_eq!(
        snapshot(&p),
        before,
        "the status line wrote or moved a file"
    );
}

#[test]
fn colours_as_claude_code_draws_them_and_no_color_wins() {
    let p = Project::new();
    let full = fixture("context-91");
    ralph_at(&p, &sid(&full), 3, 10);
    let under_claude = statusline(&p, &full).env("CLAUDECODE", "1").run();
    assert_eq!(
        line(&under_claude),
        "\x1b[1;36mralph\x1b[0m 3/10\x1b[2m · \x1b[0m\x1b[31mctx 91%\x1b[0m"
    );
    let no_color = statusline(&p, &full)
        .env("CLAUDECODE", "1")
        .env("NO_COLOR", "1")
        .run();
    assert_eq!(line(&no_color), "ralph 3/10 · ctx 91%");
    let dumb = statusline(&p, &full)
        .env("CLAUDECODE", "1")
        .env("TERM", "dumb")
        .run();
    assert_eq!(line(&dumb), "ralph 3/10 · ctx 91%");
    let plain_pipe = statusline(&p, &full).run();
    assert_eq!(
        line(&plain_pipe),
        "ralph 3/10 · ctx 91%",
        "a pipe outside Claude Code gets no colour"
    );
    // --color always overrides NO_COLOR: the person asked for colour explicitly.
    let always = {
        use std::io::Write;
        let mut child = std::process::Command::new(crate::common::BIN)
            .args(["statusline", "--color", "always"])
            .env("CLAUDE_PROJECT_DIR", p.path())
            .env("NO_COLOR", "1")
            .env("OMC_NOW_MS", NOW.to_string())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(&serde_json::to_vec(&full).unwrap())
            .unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(always.starts_with("\x1b[1;36mralph"), "{always:?}");
}

#[test]
fn guard_failure_phase_and_priority() {
    let p = Project::new();
    let full = fixture("context-91");
    let session = sid(&full);
    let dir = format!(".omc/state/sessions/{session}");
    ralph_at(&p, &session, 3, 10);
    p.write_json(
        &format!("{dir}/ultrawork-state.json"),
        &json!({"mode": "ultrawork", "active": true, "started_at": iso(NOW - 1000),
                "last_checked_at": iso(NOW - 1000), "iteration": 1, "max_iterations": 50}),
    );
    p.write_json(
        &format!("{dir}/skill-active-state.json"),
        &json!({"schema_version": 1, "stack": [
            {"skill_name": "review", "level": "medium", "started_at": iso(NOW - 60_000),
             "expires_at": iso(NOW + 20 * 60_000), "stale_ttl_ms": 900000,
             "reinforcement_count": 0, "max_reinforcements": 5},
            {"skill_name": "plan", "level": "medium", "started_at": iso(NOW - 1000),
             "expires_at": iso(NOW + 5 * 60_000), "stale_ttl_ms": 900000,
             "reinforcement_count": 2, "max_reinforcements": 5}]}),
    );
    p.write_json(
        &format!("{dir}/last-tool-error.json"),
        &json!({"schema_version": 1, "tool_name": "Bash", "error": "Exit code 101",
                "timestamp": iso(NOW - 30_000), "retry_count": 3}),
    );
    assert_eq!(
        line(&statusline(&p, &full).run()),
        "ralph 3/10 +ultrawork · skill plan 2/5 · Bash failed 3× · ctx 91%"
    );

    // Ten minutes later the failure is old news, the top guard has lapsed (the one below it
    // shows), and both runs are still within their two hours.
    let later = NOW + 10 * 60_000;
    assert_eq!(
        line(&statusline(&p, &full).now(later).run()),
        "ralph 3/10 +ultrawork · skill review 0/5 · ctx 91%"
    );

    // After two hours without activity the runs are stale: the Stop hook ignores them, and so
    // does the line. The guards have lapsed too.
    let stale = NOW + 3 * 60 * 60_000;
    assert_eq!(
        line(&statusline(&p, &full).now(stale).run()),
        "omc · ctx 91%"
    );

    // An autopilot run reports its phase.
    std::fs::remove_file(p.path().join(&dir).join("ralph-state.json")).unwrap();
    std::fs::remove_file(p.path().join(&dir).join("ultrawork-state.json")).unwrap();
    p.write_json(
        &format!("{dir}/autopilot-state.json"),
        &json!({"mode": "autopilot", "active": true, "started_at": iso(NOW - 1000),
                "last_checked_at": iso(NOW - 1000), "iteration": 2, "max_iterations": 100,
                "phase": "execution"}),
    );
    std::fs::remove_file(p.path().join(&dir).join("last-tool-error.json")).unwrap();
    std::fs::remove_file(p.path().join(&dir).join("skill-active-state.json")).unwrap();
    assert_eq!(
        line(&statusline(&p, &full).run()),
        "autopilot 2/100 (execution) · ctx 91%"
    );

    // Another session's run is not this session's.
    let mut other = full.clone();
    other["session_id"] = json!("another-session");
    assert_eq!(line(&statusline(&p, &other).run()), "omc · ctx 91%");
    // DISABLE_OMC: the hooks do nothing, and the line says so.
    assert_eq!(
        line(&statusline(&p, &full).env("DISABLE_OMC", "1").run()),
        "omc off · ctx 91%"
    );
}

#[test]
fn never_fails_never_writes_never_more_than_one_line() {
    // No .omc at all: nothing is created.
    let p = Project::new();
    let full = fixture("context-91");
    let before = snapshot(&p);
    assert_eq!(line(&statusline(&p, &full).run()), "omc · ctx 91%");
    assert!(!p.omc().exists(), ".omc was created");
    assert_eq!(snapshot(&p), before);

    // Whatever arrives on stdin: exit 0 and one line.
    let huge = vec![b'{'; 3 * 1024 * 1024];
    let inputs: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"garbage".to_vec(),
        b"{\"session_id\": \"x\", \"context_window\": ".to_vec(),
        b"[1, 2, 3]".to_vec(),
        b"{\"session_id\": \"../../etc\", \"cwd\": \"relative\", \"context_window\": {\"used_percentage\": \"lots\"}}".to_vec(),
        b"{\"session_id\": 7, \"context_window\": {\"used_percentage\": -4}}".to_vec(),
        huge,
        vec![0xff, 0xfe, 0x00],
    ];
    for input in inputs {
        let o = statusline(&p, &Value::Null).stdin(input.clone()).run();
        let l = line(&o);
        assert!(
            l == "omc" || l == "omc · ctx 0%",
            "{:?} → {l:?}",
            String::from_utf8_lossy(&input[..input.len().min(60)])
        );
    }
    assert!(!p.omc().exists());

    // Corrupt files everywhere, a directory where a file should be, a file too large: one
    // line, and every byte left as it was.
    let session = sid(&full);
    let dir = p.session_dir(&session);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ralph-state.json"), b"\x00\x01not json").unwrap();
    std::fs::create_dir(dir.join("autopilot-state.json")).unwrap();
    std::fs::write(dir.join("skill-active-state.json"), b"[[[").unwrap();
    std::fs::write(dir.join("last-tool-error.json"), b"{\"tool_name\": 5}").unwrap();
    std::fs::write(
        dir.join("ultrawork-state.json"),
        json!({"active": true, "iteration": "three"}).to_string(),
    )
    .unwrap();
    let before = snapshot(&p);
    let l = line(&statusline(&p, &full).run());
    assert_eq!(l, "state unreadable · ctx 91%");
    assert_eq!(snapshot(&p), before);
    assert!(dir.join("autopilot-state.json").is_dir());

    // A name with a newline and escape sequences in a state file stay on one line.
    std::fs::remove_dir_all(&dir).unwrap();
    p.write_json(
        &format!(".omc/state/sessions/{session}/last-tool-error.json"),
        &json!({"tool_name": "Ba\nsh\x1b[2J", "error": "x", "timestamp": iso(NOW), "retry_count": 1}),
    );
    let l = line(&statusline(&p, &full).env("CLAUDECODE", "1").run());
    assert!(!l.contains("\x1b[2J"), "{l:?}");
    // The whole sequence goes, not only its ESC.
    assert!(l.contains("Ba sh failed 1×"), "{l:?}");
}

#[test]
fn a_symlinked_state_directory_is_not_followed() {
    // The hooks refuse a .omc (or a directory in it) that is a symlink; the line shows no state
    // from there either.
    let outside = Project::new();
    let full = fixture("context-91");
    ralph_at(&outside, &sid(&full), 3, 10);
    let p = Project::new();
    std::os::unix::fs::symlink(outside.omc(), p.omc()).unwrap();
    assert_eq!(line(&statusline(&p, &full).run()), "omc · ctx 91%");
    let q = Project::new();
    std::fs::create_dir_all(q.omc().join("state")).unwrap();
    std::os::unix::fs::symlink(
        outside.omc().join("state/sessions"),
        q.omc().join("state/sessions"),
    )
    .unwrap();
    assert_eq!(line(&statusline(&q, &full).run()), "omc · ctx 91%");
    // Without the link, the same state shows.
    assert_eq!(
        line(&statusline(&outside, &full).run()),
        "ralph 3/10 · ctx 91%"
    );
}

#[test]
fn the_limit_is_the_one_stop_enforces_and_a_wait_for_the_user_shows() {
    let p = Project::new();
    let full = fixture("context-91");
    let session = sid(&full);
    // A file without a limit (as OMC writes them) gets the configured one; OMC_RALPH_HARD_MAX
    // lowers every limit, running runs included — as the Stop hook and `status` count.
    p.write_json(
        &format!(".omc/state/sessions/{session}/ralph-state.json"),
        &json!({"active": true, "session_id": session, "started_at": iso(NOW - 1000),
                "last_checked_at": iso(NOW - 1000), "iteration": 3}),
    );
    p.write_json(
        ".omc/config.json",
        &json!({"ralph": {"max_iterations": 40}}),
    );
    assert_eq!(line(&statusline(&p, &full).run()), "ralph 3/40 · ctx 91%");
    assert_eq!(
        line(&statusline(&p, &full).env("OMC_RALPH_HARD_MAX", "7").run()),
        "ralph 3/7 · ctx 91%"
    );
    // The model asked the user: the run waits for the answer.
    ralph_at(&p, &session, 4, 10);
    let f = p.session_dir(&session).join("ralph-state.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
    v["awaiting_input_at"] = json!(iso(NOW - 2000));
    std::fs::write(&f, v.to_string()).unwrap();
    assert_eq!(
        line(&statusline(&p, &full).run()),
        "ralph 4/10 waiting for you · ctx 91%"
    );
}
