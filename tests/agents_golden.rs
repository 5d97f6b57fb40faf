//! Golden payloads for every agent (`tests/golden/agents/<agent>/*.json`): each case is one
//! payload as the agent sends it (observed from the pinned client, or documented where no
//! client can run here — the case's `source` says which), the hooks to run first (`setup`),
//! and what must come out: the exact top-level keys of the answer, values and substrings at
//! JSON pointers, keys that must be absent, state files that must (not) exist and values in
//! them, and what the trace (`OMC_TRACE_FILE`) records of the decoding. Adding a case is adding a file.
//!
//! Every case runs the real binary as installed for the agent (`omc-hooks --agent NAME
//! <hook>`), in a fresh project with the clock pinned, and every state file it leaves must be
//! valid against its schema.

use crate::common::{Hook, Outcome, Project};
use crate::hardening::kit;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn cases() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/agents");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                let name = p.strip_prefix(&root).unwrap().display().to_string();
                let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                out.push((name, v));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Replaces `{{project}}` in every string of `v`.
fn substitute(v: &Value, project: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("{{project}}", project)),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, project)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), substitute(x, project)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn run(p: &Project, agent: &str, hook: &str, payload: &Value, trace: Option<&Path>) -> Outcome {
    let mut h = Hook::new(hook)
        .agent(agent)
        .payload(substitute(payload, &p.path().to_string_lossy()))
        .cwd(p.path());
    if let Some(t) = trace {
        h = h.env("OMC_TRACE_FILE", &t.to_string_lossy());
    }
    h.run()
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("case lacks a string '{key}'"))
}

/// Runs one case; every broken expectation is one line of the error.
fn check(case: &Value) -> Result<(), String> {
    let p = Project::new();
    let traces = tempfile::tempdir().unwrap();
    let trace: PathBuf = traces.path().join("trace.jsonl");
    // A project that already keeps state (`.omc/` exists), as opposed to a fresh one.
    if case["omc_dir"] == Value::Bool(true) {
        std::fs::create_dir_all(p.omc()).unwrap();
    }
    for step in case["setup"].as_array().into_iter().flatten() {
        let out = run(
            &p,
            str_of(step, "agent"),
            str_of(step, "hook"),
            &step["payload"],
            None,
        );
        if out.code != Some(0) {
            return Err(format!("setup step exited {:?}: {}", out.code, out.stderr));
        }
    }
    let out = run(
        &p,
        str_of(case, "agent"),
        str_of(case, "hook"),
        &case["payload"],
        Some(&trace),
    );
    let mut errors = Vec::new();
    if out.code != Some(0) {
        errors.push(format!("exit code {:?}", out.code));
    }
    let body = out.stdout.trim_end_matches('\n');
    if body.contains('\n') || (!out.stdout.is_empty() && !out.stdout.ends_with('\n')) {
        errors.push(format!("stdout is not one line: {:?}", out.stdout));
    }
    let answer: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(body).map_err(|e| format!("stdout is not JSON ({e}): {body}"))?
    };
    let expect = &case["expect"];
    if expect["noop"] == Value::Bool(true) && !answer.is_null() {
        errors.push(format!("expected no output, got {answer}"));
    }
    let keys_of = |v: &Value| -> Vec<String> {
        let mut k: Vec<String> = v
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    };
    let mut key_checks: Vec<(String, &Value)> = Vec::new();
    if let Some(k) = expect.get("keys") {
        key_checks.push((String::new(), k));
    }
    for (ptr, k) in expect["keys_at"].as_object().into_iter().flatten() {
        key_checks.push((ptr.clone(), k));
    }
    for (ptr, want) in key_checks {
        let mut want: Vec<String> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        want.sort();
        let got = keys_of(answer.pointer(&ptr).unwrap_or(&Value::Null));
        if got != want {
            errors.push(format!(
                "keys at '{ptr}': {got:?}, expected {want:?} (answer {answer})"
            ));
        }
    }
    for (ptr, want) in expect["equals"].as_object().into_iter().flatten() {
        if answer.pointer(ptr) != Some(want) {
            errors.push(format!("{ptr}: {:?}, expected {want}", answer.pointer(ptr)));
        }
    }
    for (ptr, needle) in expect["contains"].as_object().into_iter().flatten() {
        let needle = needle.as_str().unwrap();
        match answer.pointer(ptr).and_then(Value::as_str) {
            Some(s) if s.contains(needle) => {}
            other => errors.push(format!("{ptr} lacks {needle:?}: {other:?}")),
        }
    }
    for ptr in expect["absent"].as_array().into_iter().flatten() {
        let ptr = ptr.as_str().unwrap();
        if answer.pointer(ptr).is_some() {
            errors.push(format!("{ptr} should be absent: {answer}"));
        }
    }
    for f in expect["files"].as_array().into_iter().flatten() {
        let f = f.as_str().unwrap();
        if !p.omc().join(f).is_file() {
            errors.push(format!(".omc/{f} was not written"));
        }
    }
    for f in expect["no_files"].as_array().into_iter().flatten() {
        let f = f.as_str().unwrap();
        if p.path().join(f).exists() {
            errors.push(format!("{f} should not exist"));
        }
    }
    for (f, checks) in expect["equals_file"].as_object().into_iter().flatten() {
        let v: Value = std::fs::read(p.omc().join(f))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        for (ptr, want) in checks.as_object().unwrap() {
            if v.pointer(ptr) != Some(want) {
                errors.push(format!(
                    ".omc/{f} {ptr}: {:?}, expected {want}",
                    v.pointer(ptr)
                ));
            }
        }
    }
    for d in expect["dirs"].as_array().into_iter().flatten() {
        let d = d.as_str().unwrap();
        if !p.omc().join(d).is_dir() {
            errors.push(format!(".omc/{d} was not made"));
        }
    }
    for f in expect["no_files"].as_array().into_iter().flatten() {
        let f = f.as_str().unwrap();
        if p.omc().join(f).exists() {
            errors.push(format!(".omc/{f} should not exist"));
        }
    }
    if let Some(want) = expect["trace"].as_object() {
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        let line: Value = text
            .lines()
            .last()
            .and_then(|l| serde_json::from_str(l).ok())
            .unwrap_or(Value::Null);
        let declared = str_of(case, "agent");
        if line["agent"] != declared {
            errors.push(format!(
                "trace agent {}, expected {declared}",
                line["agent"]
            ));
        }
        for (k, v) in want {
            if &line[k] != v {
                errors.push(format!("trace {k}: {}, expected {v} ({line})", line[k]));
            }
        }
    }
    // Every state file left behind is described by a schema and valid against it.
    if let Err(e) = std::panic::catch_unwind(|| kit::check_tree(p.path(), &[], kit::CLEAN)) {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        errors.push(format!("state tree: {msg}"));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n    stderr: {}",
            errors.join("\n    "),
            out.stderr.trim()
        ))
    }
}

#[test]
fn every_golden_agent_case() {
    let cases = cases();
    let mut agents: Vec<&str> = cases.iter().map(|(_, c)| str_of(c, "agent")).collect();
    agents.sort_unstable();
    agents.dedup();
    for want in [
        "claude",
        "codex",
        "gemini",
        "qwen",
        "cursor",
        "kimi",
        "factory",
        "codebuddy",
        "qoder",
        "cline",
        "auggie",
    ] {
        assert!(agents.contains(&want), "no golden case for {want}");
    }
    let mut failed = Vec::new();
    for (name, case) in &cases {
        assert!(
            case["description"].is_string() && case["source"].is_string(),
            "{name}: every case says what it shows and where the payload comes from"
        );
        if let Err(e) = check(case) {
            failed.push(format!("{name}:\n    {e}"));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} golden cases failed:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n")
    );
}
