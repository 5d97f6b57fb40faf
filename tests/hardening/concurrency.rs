//! Many hook processes of several sessions at once on one project: parallel tool calls,
//! parallel subagents, all sessions' lifecycles interleaved. No lost update, no torn file, no
//! session's files mentioning another session.
//!
//! The hook-driven test asserts invariants that hold whatever the capabilities write, plus two
//! lost-update checks that bite as soon as the file they read exists (the tool-failure record's
//! `retry_count`, the subagent record). The store-driven test makes the same kind of load
//! through `Store::update` directly, so the locking is exercised today.

use super::kit::{self, CLEAN};
use crate::common::Outcome;
use omc_hooks::state::{Change, Scope, StateFile, Store};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Session ids, none a substring of another (nor of a scratch path).
const SIDS: [&str; 4] = [
    "conc-alpha-7d1e",
    "conc-bravo-40c2",
    "conc-charlie-9f3a",
    "conc-delta-b655",
];

/// One wave: every (subcommand, payload) started at once, then all awaited and checked.
fn wave(p: &Path, name: &str, jobs: Vec<(String, String, Value)>) -> usize {
    let dir = p.to_string_lossy().into_owned();
    let started = Instant::now();
    let children: Vec<_> = jobs
        .iter()
        .map(|(_, sub, v)| {
            let bytes = serde_json::to_vec(v).unwrap();
            kit::spawn_hook(sub, &bytes, p, &[("CLAUDE_PROJECT_DIR", &dir)])
        })
        .collect();
    let outcomes: Vec<Outcome> = children
        .into_iter()
        .map(|c| kit::finish(c, started))
        .collect();
    for ((event, sub, _), out) in jobs.iter().zip(&outcomes) {
        kit::assert_wire(event, sub, out);
        assert!(
            !out.stderr.contains("panicked"),
            "{name}/{sub}: {}",
            out.stderr
        );
    }
    kit::check_tree(p, &[], CLEAN);
    kit::assert_no_cross_session_leak(p, &SIDS);
    jobs.len()
}

fn jobs_for(event: &str, sub: &str, p: &Path, per_session: usize) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for sid in SIDS {
        for k in 0..per_session {
            out.push((event.into(), sub.into(), kit::realistic(event, sid, p, k)));
        }
    }
    out
}

fn sub_of(event: &str) -> String {
    kit::hooks()
        .into_iter()
        .find(|(e, _)| e == event)
        .map(|(_, s)| s)
        .unwrap_or_else(|| panic!("the manifest maps {event}"))
}

#[test]
fn many_hooks_of_several_sessions_at_once_lose_nothing_and_leak_nothing() {
    let s = kit::scale();
    let (tools, failures, agents) = (3 * s, 6 * s, 5 * s);
    let p = kit::project();
    let sub = |e: &str| sub_of(e);
    let mut processes = 0;

    processes += wave(
        p.path(),
        "start",
        jobs_for("SessionStart", &sub("SessionStart"), p.path(), 1),
    );
    // One prompt per session, all sessions at once; a persistent mode in each.
    let prompts: Vec<_> = SIDS
        .iter()
        .enumerate()
        .map(|(i, sid)| {
            let mut v = kit::realistic("UserPromptSubmit", sid, p.path(), 0);
            v["prompt"] = json!(
                [
                    "ralph fix the failing tests",
                    "ulw refactor the parser",
                    "autopilot build the cli",
                    "ralph make ci green"
                ][i]
            );
            ("UserPromptSubmit".to_string(), sub("UserPromptSubmit"), v)
        })
        .collect();
    processes += wave(p.path(), "prompt", prompts);

    // Parallel tool calls: skills starting, tools succeeding (never Bash), Bash failing.
    let mut calls = jobs_for("PreToolUse", &sub("PreToolUse"), p.path(), tools);
    calls.extend(jobs_for(
        "PostToolUse",
        &sub("PostToolUse"),
        p.path(),
        tools,
    ));
    calls.extend(jobs_for(
        "PostToolUseFailure",
        &sub("PostToolUseFailure"),
        p.path(),
        failures,
    ));
    processes += wave(p.path(), "tools", calls);
    let mut lost_update_checks = 0;
    for sid in SIDS {
        if let Some(rec) = p.read_json(&format!(".omc/state/sessions/{sid}/last-tool-error.json")) {
            // Every failure was Bash, at the same pinned instant: each one counts.
            assert_eq!(
                rec["retry_count"], failures,
                "{sid}: {failures} concurrent failures, record {rec}"
            );
            lost_update_checks += 1;
        }
    }

    // Parallel subagents: all start, then all stop.
    processes += wave(
        p.path(),
        "subagents",
        jobs_for("SubagentStart", &sub("SubagentStart"), p.path(), agents),
    );
    for sid in SIDS {
        if let Some(rec) = p.read_json(&format!(".omc/state/sessions/{sid}/subagents.json")) {
            let text = rec.to_string();
            for k in 0..agents {
                let id = format!("agent{k:04}");
                assert!(text.contains(&id), "{sid}: subagent {id} lost from {rec}");
            }
            lost_update_checks += 1;
        }
    }
    processes += wave(
        p.path(),
        "subagents-stop",
        jobs_for("SubagentStop", &sub("SubagentStop"), p.path(), agents),
    );
    processes += wave(
        p.path(),
        "compact",
        jobs_for("PreCompact", &sub("PreCompact"), p.path(), 1),
    );
    processes += wave(
        p.path(),
        "stop",
        jobs_for("Stop", &sub("Stop"), p.path(), 2),
    );
    processes += wave(
        p.path(),
        "end",
        jobs_for("SessionEnd", &sub("SessionEnd"), p.path(), 1),
    );

    let tree = kit::check_tree(p.path(), &[], CLEAN);
    eprintln!(
        "concurrency/hooks: {processes} processes in 9 waves over {} sessions; {} files, {} JSON; {lost_update_checks} lost-update checks applied",
        SIDS.len(),
        tree.files.len(),
        tree.json_files
    );
}

/// Appends `{sid, pid, i}` to a ledger under the lock.
fn append(st: &Store, file: &StateFile, sid: &str, i: u32) {
    st.update(file, |v: Option<Value>| {
        let mut v = v.unwrap_or_else(|| json!({"entries": []}));
        v["entries"]
            .as_array_mut()
            .expect("entries")
            .push(json!({"sid": sid, "pid": std::process::id(), "i": i}));
        (Change::Write(v), ())
    })
    .expect("update");
}

/// Run only as a child of `store_updates_from_several_sessions_at_once_lose_nothing`.
#[test]
#[ignore = "child process of a concurrency test"]
fn child_session_writer() {
    let (Ok(dir), Ok(sid), Ok(rounds)) = (
        std::env::var("OMC_HARD_DIR"),
        std::env::var("OMC_HARD_SID"),
        std::env::var("OMC_HARD_ROUNDS"),
    ) else {
        return;
    };
    let st = kit::store_at(Path::new(&dir));
    let own = StateFile::new(&Scope::for_session(Some(&sid)), "ledger.json").unwrap();
    let shared = StateFile::new(&Scope::Omc, "shared-ledger.json").unwrap();
    for i in 0..rounds.parse::<u32>().unwrap() {
        append(&st, &own, &sid, i);
        append(&st, &shared, &sid, i);
    }
}

#[test]
fn store_updates_from_several_sessions_at_once_lose_nothing() {
    const PER_SESSION: usize = 3;
    let rounds = 25 * kit::scale();
    let p = kit::project();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = SIDS
        .iter()
        .flat_map(|sid| std::iter::repeat_n(*sid, PER_SESSION))
        .map(|sid| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "hardening::concurrency::child_session_writer",
                    "--ignored",
                    "--test-threads=1",
                ])
                .env("OMC_HARD_DIR", p.path())
                .env("OMC_HARD_SID", sid)
                .env("OMC_HARD_ROUNDS", rounds.to_string())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let count = |v: &Value, sid: &str| {
        v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["sid"] == sid)
            .count()
    };
    for sid in SIDS {
        let own = p
            .read_json(&format!(".omc/state/sessions/{sid}/ledger.json"))
            .expect("ledger");
        let entries = own["entries"].as_array().unwrap();
        assert_eq!(entries.len(), PER_SESSION * rounds, "{sid}: lost updates");
        assert_eq!(count(&own, sid), entries.len(), "{sid}: foreign entries");
        let mut keys: Vec<_> = entries
            .iter()
            .map(|e| (e["pid"].to_string(), e["i"].to_string()))
            .collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), entries.len(), "{sid}: duplicated entries");
    }
    let shared = p
        .read_json(".omc/shared-ledger.json")
        .expect("shared ledger");
    assert_eq!(
        shared["entries"].as_array().unwrap().len(),
        SIDS.len() * PER_SESSION * rounds,
        "shared ledger lost updates"
    );
    for sid in SIDS {
        assert_eq!(
            count(&shared, sid),
            PER_SESSION * rounds,
            "{sid} in the shared ledger"
        );
    }
    kit::check_tree(p.path(), &[], kit::STORE);
    kit::assert_no_cross_session_leak(p.path(), &SIDS);
    eprintln!(
        "concurrency/store: {} processes × {rounds} rounds × 2 files, {} updates, none lost",
        SIDS.len() * PER_SESSION,
        2 * SIDS.len() * PER_SESSION * rounds
    );
}
