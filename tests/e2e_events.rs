//! Claude Code's StopFailure in the real client (issue 46): the scripted model answers every
//! main-loop request with an API error (HTTP 400, `invalid_request_error`; the client tries
//! once more, then gives the turn up); Claude Code 2.1.332 fires StopFailure instead of Stop;
//! our `stop-failure` hook hands the ralph run back with the error as its reason, and a
//! person's `hooks.toml` entry on `stop-failure` receives the payload.
//!
//! The client does not wait for StopFailure's hooks and kills them when it exits (a `-p` run
//! exits right after the failed turn: only a hook faster than that finishes, see
//! tests/e2e/FINDINGS.md §18), so the session is kept open the way an interactive one is: the
//! prompt goes in as a `stream-json` message and stdin stays open until our hook has written its
//! trace line (its last act), then closes.

use crate::e2e::harness::client_bin;
use crate::e2e::server::{ModelServer, Reply};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// More failing answers than the client asks for in one turn.
const MAX_REQUESTS: usize = 12;

/// How long the session is kept open for the hook, at most.
const PATIENCE: Duration = Duration::from_secs(120);

fn run_open_session(project: &Path, home: &Path, trace: &Path, server: &ModelServer) -> String {
    let tmp = home.parent().unwrap().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cmd = Command::new(client_bin());
    cmd.args([
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
        "--plugin-dir",
    ])
    .arg(crate::e2e::plugin::plugin_dir())
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("HOME", home)
    .env("XDG_CONFIG_HOME", home.join(".config"))
    .env("TMPDIR", &tmp)
    .env("ANTHROPIC_BASE_URL", server.base_url())
    .env("ANTHROPIC_API_KEY", "test")
    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    .env("IS_SANDBOX", "1")
    .env("DISABLE_AUTOUPDATER", "1")
    .env("OMC_TRACE_FILE", trace)
    .current_dir(project)
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().expect("spawn claude");
    let mut stdin = child.stdin.take().unwrap();
    let mut so = child.stdout.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut so, &mut s);
        s
    });
    let msg = json!({"type": "user", "message": {"role": "user", "content": "ralph fix the flaky tests"}});
    writeln!(stdin, "{msg}").unwrap();
    stdin.flush().unwrap();
    let start = Instant::now();
    while !std::fs::read_to_string(trace).is_ok_and(|t| t.contains("\"hook\":\"stop-failure\""))
        && start.elapsed() < PATIENCE
        && child.try_wait().ok().flatten().is_none()
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(stdin);
    let start = Instant::now();
    while child.try_wait().ok().flatten().is_none() && start.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    #[cfg(unix)]
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    out.join().unwrap_or_default()
}

#[test]
fn claude_code_an_api_error_fires_stop_failure_and_hands_the_run_back() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    let home = root.path().join("home");
    std::fs::create_dir_all(project.join(".omc")).unwrap();
    let seen = root.path().join("stop-failure.json");
    let config = home.join(".config/omc-hooks");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("hooks.toml"),
        format!(
            "[[hooks]]\nevent = \"stop-failure\"\ntype = \"script\"\ncommand = \"cat > '{}'\"\n",
            seen.display()
        ),
    )
    .unwrap();
    let server = ModelServer::start(
        (0..MAX_REQUESTS)
            .map(|_| {
                Reply::Error(
                    "400 Bad Request",
                    "invalid_request_error".into(),
                    "scripted failure for the StopFailure test".into(),
                )
            })
            .collect(),
    );
    let trace = root.path().join("trace.jsonl");
    let stdout = run_open_session(&project, &home, &trace, &server);
    let traced = std::fs::read_to_string(&trace).unwrap_or_default();
    let payload: Value = serde_json::from_slice(&std::fs::read(&seen).unwrap_or_else(|_| {
        panic!("no StopFailure reached the person's entry\ntrace:\n{traced}\nstdout:\n{stdout}")
    }))
    .unwrap();
    assert_eq!(payload["hook_event_name"], "StopFailure", "{payload}");
    let error = payload["error"].as_str().unwrap_or_default().to_string();
    assert!(!error.is_empty(), "{payload}");
    assert!(
        traced.contains("\"hook\":\"stop-failure\""),
        "the hook ran: {traced}"
    );
    assert!(
        !traced.contains("\"hook\":\"stop\","),
        "no Stop after the failure: {traced}"
    );
    let sid = payload["session_id"].as_str().unwrap();
    let state: Value = serde_json::from_slice(
        &std::fs::read(project.join(format!(".omc/state/sessions/{sid}/ralph-state.json")))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(state["active"], true, "{state}");
    assert_eq!(state["pause_kind"], "api_error", "{state}");
    assert!(
        state["paused_reason"]
            .as_str()
            .unwrap()
            .starts_with(&format!("API error: {error}")),
        "{state}"
    );
    if std::env::var_os("OMC_E2E_PRINT_FIXTURE").is_some() {
        println!("FIXTURE {}", serde_json::to_string(&payload).unwrap());
    }
}
