//! OTLP/HTTP logs: every batch the flusher sends is decoded by a receiver built on the
//! official OpenTelemetry protobuf definitions (`otlp_receiver.py`, PyPI
//! `opentelemetry-proto`, pinned in `otlp-venv.sh`), whose JSON parser rejects unknown
//! fields and malformed values.

use super::*;
use crate::common::{Hook, Project, payload};
use omc_hooks::export::{enqueue, sources};
use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// The receiver process, killed on drop.
struct Receiver {
    child: Child,
    port: u16,
    results: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Receiver {
    fn start() -> Receiver {
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/export");
        let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("otlp-venv");
        let out = Command::new("bash")
            .arg(here.join("otlp-venv.sh"))
            .arg(&venv)
            .output()
            .expect("run otlp-venv.sh");
        assert!(
            out.status.success(),
            "cannot set up the OTLP receiver's Python environment (needs python3 and PyPI): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let python = String::from_utf8(out.stdout).unwrap().trim().to_string();
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results.jsonl");
        let mut child = Command::new(python)
            .arg(here.join("otlp_receiver.py"))
            .arg(&results)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the receiver prints its port");
        Receiver {
            child,
            port,
            results,
            _dir: dir,
        }
    }

    /// The complete lines written so far: a line the receiver is still writing (no newline
    /// yet) is read on the next call.
    fn results(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.results).unwrap_or_default();
        let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        complete
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    }

    fn records(&self) -> Vec<Value> {
        self.results()
            .iter()
            .flat_map(|r| r["records"].as_array().cloned().unwrap_or_default())
            .collect()
    }
}

#[test]
fn every_otlp_batch_is_accepted_by_the_official_definitions() {
    let rx = Receiver::start();
    let p = Project::new();
    let endpoint = format!("http://127.0.0.1:{}", rx.port);
    let env_pairs = [
        ("OMC_EXPORT_OTLP", endpoint.as_str()),
        ("OMC_EXPORT_BATCH_SIZE", "5"),
        ("OMC_EXPORT_FLUSH_INTERVAL_MS", "100"),
        ("OMC_EXPORT_LINGER_MS", "300"),
    ];
    let sid = "sess-otlp";
    let run = |sub: &str, event: &str, extra: Value| {
        let mut v = payload(event, sid, p.path());
        for (k, val) in extra.as_object().unwrap() {
            v[k] = val.clone();
        }
        let mut h = Hook::new(sub).cwd(p.path()).payload(v);
        for (k, val) in &env_pairs {
            h = h.env(k, val);
        }
        h.run().expect_valid();
    };
    // A session through the real hooks: a ralph run, a failing and a passing tool, a stop.
    let session = [
        (
            "session-start",
            "SessionStart",
            json!({"source": "startup"}),
        ),
        (
            "user-prompt-submit",
            "UserPromptSubmit",
            json!({"prompt": "ralph fix the failing tests"}),
        ),
        (
            "post-tool-use-failure",
            "PostToolUseFailure",
            json!({"tool_name": "Bash", "tool_input": {"command": "cargo test"}, "error": "exit 101", "tool_use_id": "t1"}),
        ),
        (
            "post-tool-use",
            "PostToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": "/x.rs", "old_string": "a", "new_string": "b"}, "tool_response": {}, "tool_use_id": "t2"}),
        ),
        (
            "stop",
            "Stop",
            json!({"last_assistant_message": "working on it"}),
        ),
        (
            "subagent-start",
            "SubagentStart",
            json!({"agent_id": "a1", "agent_type": "Explore"}),
        ),
        (
            "subagent-stop",
            "SubagentStop",
            json!({"agent_id": "a1", "agent_type": "Explore"}),
        ),
        ("pre-compact", "PreCompact", json!({"trigger": "auto"})),
        ("session-end", "SessionEnd", json!({"reason": "other"})),
    ];
    for (sub, event, extra) in session {
        run(sub, event, extra);
    }
    let through_hooks = 9;
    // And more through the library, for several full batches.
    let env = env_of(&env_pairs);
    let (sinks, _) = sources::from_env(|k| env.var(k).map(str::to_string));
    let s = store(p.path());
    for i in 0..120 {
        enqueue(&s, &env, &event(i, "sess-lib"), &sinks);
    }
    let total = through_hooks + 120;
    wait_until("every record at the receiver", || {
        let ids: HashSet<String> = rx
            .records()
            .iter()
            .map(|r| {
                r["attributes"]["omc.event.id"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        ids.len() >= total
    });
    let results = rx.results();
    assert!(results.len() >= 2, "several batches: {}", results.len());
    for r in &results {
        assert_eq!(
            r["ok"], true,
            "a batch the official definitions reject: {r}"
        );
    }
    let records = rx.records();
    for r in &records {
        assert_eq!(r["resource"]["service.name"], "omc-hooks");
        assert_eq!(r["resource"]["service.version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(r["scope"], "omc-hooks");
        assert!(r["event_name"].as_str().unwrap().starts_with("omc.hook."));
        assert_eq!(r["attributes"]["omc.agent"], "claude");
        let body: Value = serde_json::from_str(r["body"].as_str().unwrap()).unwrap();
        assert!(body.is_object());
    }
    let mine: Vec<&Value> = records
        .iter()
        .filter(|r| r["attributes"]["session.id"] == sid)
        .collect();
    let by_event = |e: &str| {
        *mine
            .iter()
            .find(|r| r["attributes"]["omc.event"] == e)
            .unwrap_or_else(|| panic!("no {e} record"))
    };
    let failure = by_event("post-tool-use-failure");
    assert_eq!(failure["attributes"]["omc.tool"], "Bash");
    assert_eq!(failure["attributes"]["omc.failure_count"], 1);
    assert_eq!(failure["severity_number"], 13);
    assert_eq!(failure["attributes"]["omc.mode"], "ralph");
    assert_eq!(failure["attributes"]["omc.iteration"], 1);
    assert_eq!(by_event("post-tool-use")["attributes"]["omc.tool"], "Edit");
    assert_eq!(
        by_event("user-prompt-submit")["attributes"]["omc.mode"],
        "ralph"
    );
    assert!(
        by_event("session-start")["attributes"]
            .get("omc.mode")
            .is_none()
    );
    assert_eq!(
        by_event("session-start")["time_unix_nano"].as_u64(),
        Some(1_796_305_500_000 * 1_000_000),
        "the hook's (pinned) time"
    );
}

use std::collections::HashSet;
