//! Writers killed with SIGKILL at random moments (`Child::kill` is SIGKILL on unix): every
//! state file stays valid JSON — the old content or the new, never a torn mix — no file is
//! quarantined (a torn write would be, and so hidden), and the next writer carries on: the lock
//! a dead process held is free, and its update count continues.
//!
//! Killed writers may leave a `.tmp-*` file beside the state (the rename never happened); those
//! are counted and reported, and must never be read as state.

use super::kit::{self, Expect, HANG, Rng};
use omc_hooks::state::files::ModeState;
use omc_hooks::state::{Change, Scope, StateFile};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KILLED: Expect = Expect {
    allow_temp: true,
    ..kit::CLEAN
};

const KILLED_STORE: Expect = Expect {
    allow_temp: true,
    ..kit::STORE
};

#[derive(Serialize, Deserialize, Default)]
struct Victim {
    n: u64,
    /// Makes each write big enough (tens of KB) that a kill often lands mid-write.
    pad: String,
}

fn victim_file() -> StateFile {
    StateFile::new(&Scope::for_session(Some("crash-session")), "victim.json").unwrap()
}

/// Run only as a child of `store_writers_killed_at_random_leave_valid_json`: announces itself on
/// stdout, then bumps the victim forever (or `OMC_HARD_ROUNDS` times).
#[test]
#[ignore = "child process of a crash test"]
fn child_store_writer() {
    let Ok(dir) = std::env::var("OMC_HARD_DIR") else {
        return;
    };
    let rounds: Option<u64> = std::env::var("OMC_HARD_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok());
    let st = kit::store_at(Path::new(&dir));
    let f = victim_file();
    println!("ready");
    let mut done = 0;
    while rounds.is_none_or(|r| done < r) {
        st.update(&f, |v: Option<Victim>| {
            let n = v.map_or(1, |v| v.n + 1);
            let pad = "x".repeat(24_000 + (n as usize % 4_000));
            (Change::Write(Victim { n, pad }), ())
        })
        .expect("update");
        done += 1;
    }
}

fn raw_victim(p: &Path) -> Option<u64> {
    let path = p.join(".omc/state/sessions/crash-session/victim.json");
    let bytes = std::fs::read(&path).ok()?;
    let v: Victim = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "torn victim.json ({e}), {} bytes: {:?}…",
            bytes.len(),
            String::from_utf8_lossy(&bytes[..bytes.len().min(120)])
        )
    });
    Some(v.n)
}

fn child(p: &Path, rounds: Option<u64>) -> std::process::Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "hardening::crash::child_store_writer",
        "--ignored",
        "--test-threads=1",
        "--nocapture",
    ])
    .env("OMC_HARD_DIR", p)
    .stdout(Stdio::piped())
    .stderr(Stdio::null());
    if let Some(r) = rounds {
        cmd.env("OMC_HARD_ROUNDS", r.to_string());
    }
    cmd.spawn().unwrap()
}

#[test]
fn store_writers_killed_at_random_leave_valid_json() {
    let kills = 40 * kit::scale();
    let mut rng = Rng::new("crash/store");
    let p = kit::project();
    let mut last = 0;
    let mut advanced = 0;
    for _ in 0..kills {
        let mut c = child(p.path(), None);
        // Wait until the child is in its loop, then let it run 0–5 ms.
        let mut out = BufReader::new(c.stdout.take().unwrap());
        let mut line = String::new();
        while !line.contains("ready") {
            line.clear();
            let n = out.read_line(&mut line).unwrap();
            assert!(n > 0, "the child ended before it was ready");
        }
        std::thread::sleep(Duration::from_micros(rng.below(5_000)));
        c.kill().unwrap();
        c.wait().unwrap();
        let n = raw_victim(p.path()).unwrap_or(0);
        assert!(n >= last, "the counter went back from {last} to {n}");
        if n > last {
            advanced += 1;
        }
        last = n;
        kit::check_tree(p.path(), &[], KILLED_STORE);
    }
    // The next writer carries on from what the last dead one left.
    let mut c = child(p.path(), Some(25));
    let started = Instant::now();
    assert!(c.wait().unwrap().success());
    assert!(
        started.elapsed() < HANG,
        "a dead writer's lock held the next one"
    );
    assert_eq!(raw_victim(p.path()), Some(last + 25));
    let tree = kit::check_tree(p.path(), &[], KILLED_STORE);
    eprintln!(
        "crash/store: {kills} writers killed, {advanced} kills after progress, {last} updates survived, {} temp files left",
        tree.temp_files.len()
    );
}

#[test]
fn hook_processes_killed_at_random_leave_valid_state_and_the_next_hook_carries_on() {
    let kills = 120 * kit::scale();
    let mut rng = Rng::new("crash/hooks");
    let p = kit::project();
    let dir = p.path().to_string_lossy().into_owned();
    let env = [("CLAUDE_PROJECT_DIR", dir.as_str())];
    let sids = ["crash-one-1a", "crash-two-2b", "crash-three-3c"];
    // Seed what the hooks act on: an active run in every session, so state-writing hooks have
    // a file to rewrite when they are killed.
    let st = kit::store_at(p.path());
    for sid in sids {
        let f = StateFile::new(&Scope::for_session(Some(sid)), "ralph-state.json").unwrap();
        st.write(
            &f,
            &ModeState::start(
                "ralph",
                Some(sid),
                &dir,
                "fix the tests",
                "2026-12-02T13:45:00.000Z",
                100,
            ),
        )
        .unwrap();
    }
    let hooks = kit::hooks();
    let (mut killed, mut finished) = (0, 0);
    for i in 0..kills {
        let (event, sub) = rng.pick(&hooks).clone();
        let sid = *rng.pick(&sids);
        let k = rng.below(64) as usize;
        let bytes = serde_json::to_vec(&kit::realistic(&event, sid, p.path(), k)).unwrap();
        let mut c = kit::spawn_hook(&sub, &bytes, p.path(), &env);
        std::thread::sleep(Duration::from_micros(rng.below(4_000)));
        if c.try_wait().unwrap().is_some() {
            finished += 1;
        } else {
            c.kill().unwrap();
            killed += 1;
        }
        c.wait().unwrap();
        if i % 10 == 9 {
            kit::check_tree(p.path(), &[], KILLED);
        }
    }
    // Every hook of every session still works, promptly, on what the dead ones left.
    for sid in sids {
        for (k, (event, sub)) in hooks.iter().enumerate() {
            let bytes = serde_json::to_vec(&kit::realistic(event, sid, p.path(), k)).unwrap();
            let out = kit::run_hook(sub, &bytes, p.path(), &env);
            kit::assert_wire(event, sub, &out);
            assert!(!out.stderr.contains("timed out"), "{sub}: {}", out.stderr);
        }
    }
    let tree = kit::check_tree(p.path(), &[], KILLED);
    kit::assert_no_cross_session_leak(p.path(), &sids);
    eprintln!(
        "crash/hooks: {kills} hook processes, {killed} killed, {finished} finished first; {} files, {} temp files left",
        tree.files.len(),
        tree.temp_files.len()
    );
}
