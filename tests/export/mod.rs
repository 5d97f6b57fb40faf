//! Export: spooling by hooks, delivery by the detached flusher, against real loopback HTTP
//! servers started by the tests (`server.rs`) and, for OTLP, a receiver that decodes with the
//! official protobuf definitions (`otlp.rs`).

mod configured;
mod delivery;
mod loss;
mod notify;
mod otlp;
pub mod server;

use crate::common::BIN;
use crate::common::command_in;
use omc_hooks::env::Env;
use omc_hooks::export::ExportEvent;
use omc_hooks::state::{Root, Store};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Generous: the machine is shared and slow; no test asserts a duration.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The hook-time environment table a test enqueues with: the export switches in `pairs`, the
/// flusher binary, and a short linger so flushers end soon after a test.
pub fn env_of(pairs: &[(&str, &str)]) -> Env {
    let mut extra: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    extra.insert(omc_hooks::env::EXE_VAR.into(), BIN.into());
    extra
        .entry("OMC_EXPORT_LINGER_MS".into())
        .or_insert_with(|| "300".into());
    Env::from_lookup(|_| None, None, extra)
}

pub fn store(project: &Path) -> Store {
    Store::new(
        Root {
            project: project.to_path_buf(),
            omc: project.join(".omc"),
        },
        0,
    )
}

/// A post-tool-use event with a distinct payload.
pub fn event(i: usize, session: &str) -> ExportEvent {
    let input = omc_hooks::protocol::HookInput::decode(
        json!({
            "hook_event_name": "PostToolUse", "session_id": session, "tool_name": "Bash",
            "tool_input": {"command": format!("echo {i}")}, "tool_response": {"stdout": format!("{i}\n")}
        })
        .to_string()
        .as_bytes(),
    )
    .unwrap();
    ExportEvent::new(
        "post-tool-use",
        "claude",
        &input,
        1_796_305_500_000 + i as i64,
    )
}

/// Polls `cond` until it holds; panics with `what` after [`PATIENCE`].
#[track_caller]
pub fn wait_until(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The pid in the project's flusher lock file, if that process is alive.
pub fn flusher_pid(project: &Path) -> Option<u32> {
    omc_hooks::export::progress::flusher_pid(&store(project))
}

/// SIGKILLs the project's running flusher; returns its pid.
pub fn kill_flusher(project: &Path) -> Option<u32> {
    let pid = flusher_pid(project)?;
    let p = rustix::process::Pid::from_raw(pid as i32)?;
    rustix::process::kill_process(p, rustix::process::Signal::KILL).ok()?;
    // Wait for it to be gone (it is not our child: init reaps it).
    wait_until("the killed flusher to disappear", || {
        rustix::process::test_kill_process(p).is_err()
    });
    Some(pid)
}

/// The `--json` status of the project.
pub fn status_json(project: &Path) -> Value {
    let out = command_in(project)
        .args(["status", "--json"])
        .output()
        .unwrap();
    crate::common::assert_exit_ok(&out);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The records currently in outbox files of `project` whose name ends with `.jsonl` and that
/// are spools or segments (not drop logs).
pub fn spooled_records(project: &Path) -> Vec<Value> {
    let dir = project.join(".omc/export");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".jsonl") || name.contains(".dropped") {
            continue;
        }
        for line in std::fs::read_to_string(e.path()).unwrap().lines() {
            if !line.trim().is_empty() {
                out.push(serde_json::from_str(line).expect("a spool line is JSON"));
            }
        }
    }
    out
}

/// Every file under `.omc/`, as bytes, concatenated (to look for leaked secrets).
pub fn all_state_bytes(project: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    let mut stack = vec![project.join(".omc")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(b) = std::fs::read(&p) {
                out.extend_from_slice(&b);
            }
        }
    }
    out
}

pub fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// The event ids in webhook batch requests, in order of arrival (duplicates kept).
pub fn webhook_ids(reqs: &[server::Request]) -> Vec<String> {
    reqs.iter()
        .flat_map(|r| {
            r.json()["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["id"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Takes the project's flusher lock as a flusher would (so that no flusher can run while it
/// is held), recording this process's pid.
pub fn hold_lock(project: &Path) -> omc_hooks::state::outbox::FlusherLock {
    let info = json!({"pid": std::process::id(), "started_at": "2026-12-02T00:00:00.000Z"});
    store(project)
        .flusher_try_lock(info.to_string().as_bytes())
        .unwrap()
        .expect("the flusher lock is free")
}

/// The `X-Omc-Signature` a batch `body` signed with `key` carries: `sha256=<hex HMAC>`.
pub fn signature(key: &str, body: &[u8]) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    let mut mac = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key.as_bytes()).unwrap();
    mac.update(body);
    let hex: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256={hex}")
}
