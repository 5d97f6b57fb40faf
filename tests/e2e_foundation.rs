//! The foundation in the real Claude Code client (issue 3's standing scenarios): every hook
//! the manifest names fires and decodes the client's payload; a plugin with nothing to say
//! does not change what the model is sent; and a broken hook makes the check fail.

use crate::common::manifest_hooks;
use crate::e2e::{Run, Sandbox, Scenario, plugin_dir};
use serde_json::{Value, json};
use std::path::Path;

/// A project skill the scripted model invokes.
pub const SKILL: &str =
    "---\nname: demo\ndescription: A demo skill for the tests.\n---\n\nSay hello.\n";

/// The trace lines (`OMC_TRACE_FILE`) written by the hooks.
pub fn trace(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line is JSON"))
        .collect()
}

/// Every hook subcommand of the manifest ran at least once for `session`, decoded the
/// client's payload (its `hook_event_name` is the subcommand's event) and did not fail.
fn check_hooks_fired(lines: &[Value], session: &str) -> Result<(), String> {
    let mut problems = Vec::new();
    for (event, sub) in manifest_hooks() {
        // The client asks for a permission only in a mode that asks the person; these runs
        // skip permissions. e2e_user_hooks::a_permission_request_is_answered_by_the_users_entry
        // _and_only_by_it drives it in the default mode and checks its payload.
        if sub == "permission-request" {
            continue;
        }
        // Issue 46's events fire only on an API error (StopFailure, driven by
        // e2e_events::claude_code_an_api_error_fires_stop_failure_and_hands_the_run_back), on
        // a wait for the person (Notification) or on auto mode's refusal (PermissionDenied):
        // none in this turn (tests/e2e/FINDINGS.md §18).
        if matches!(
            sub.as_str(),
            "stop-failure" | "notification" | "permission-denied"
        ) {
            continue;
        }
        let mine: Vec<&Value> = lines.iter().filter(|l| l["hook"] == sub.as_str()).collect();
        if mine.is_empty() {
            problems.push(format!("{sub} never ran"));
            continue;
        }
        for l in mine {
            if l["event"] != event.as_str() {
                problems.push(format!("{sub} decoded event {} (want {event})", l["event"]));
            }
            if l["session_id"] != session {
                problems.push(format!("{sub} decoded session {}", l["session_id"]));
            }
            if !matches!(l["outcome"].as_str(), Some("answer" | "noop")) {
                problems.push(format!("{sub} outcome {}", l["outcome"]));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// One turn that makes the client fire every event but compaction, then `/compact`.
fn drive_every_event(sb: &Sandbox, plugin: &Path, trace_file: &Path) -> (Run, Run) {
    sb.write(".claude/skills/demo/SKILL.md", SKILL);
    let file = sb.project().join("notes.txt");
    let env = trace_file.to_string_lossy().into_owned();
    let first = sb.claude(
        plugin,
        "set the project up",
        Scenario::new()
            .reply_tool("Bash", json!({"command": "echo ok"}))
            .reply_tool("Bash", json!({"command": "echo failing >&2; exit 3"}))
            .reply_tool("Write", json!({"file_path": file, "content": "one\n"}))
            .reply_tool(
                "Edit",
                json!({"file_path": file, "old_string": "one", "new_string": "two"}),
            )
            .reply_tool("Skill", json!({"skill": "demo"}))
            .reply_tool(
                "Agent",
                json!({"description": "look around", "prompt": "List the files.",
                       "subagent_type": "general-purpose", "run_in_background": false}),
            )
            .subagent_text("nothing to report")
            .reply_text("all set")
            .env("OMC_TRACE_FILE", env.clone()),
        None,
    );
    first.assert_success();
    let second = sb.claude(
        plugin,
        "/compact",
        Scenario::new().env("OMC_TRACE_FILE", env),
        Some(&first.session_id),
    );
    second.assert_success();
    (first, second)
}

#[test]
fn every_manifest_hook_fires_and_decodes_the_real_payload() {
    let sb = Sandbox::new();
    let trace_file = sb.root().join("trace.jsonl");
    let (first, _) = drive_every_event(&sb, plugin_dir(), &trace_file);
    let lines = trace(&trace_file);
    if let Err(e) = check_hooks_fired(&lines, &first.session_id) {
        panic!("{e}\ntrace: {lines:#?}\n{}", first.diagnostics());
    }
}

#[test]
fn a_hook_that_sleeps_past_its_timeout_fails_the_check() {
    // The same manifest, but `user-prompt-submit` hangs until the client's timeout kills it.
    let sb = Sandbox::new();
    let real = Path::new(env!("CARGO_BIN_EXE_omc-hooks"));
    let wrapper = sb.root().join("broken-omc-hooks");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nif [ \"$1\" = user-prompt-submit ]; then sleep 30; fi\nexec '{}' \"$@\"\n",
            real.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("hooks.json"))
            .unwrap()
            .replace("\"timeout\": 10", "\"timeout\": 2");
    let plugin = crate::e2e::plugin::layout(&sb.root().join("broken-plugin"), &manifest, &wrapper);
    let trace_file = sb.root().join("trace.jsonl");
    let run = sb.claude(
        &plugin,
        "hello",
        Scenario::new()
            .reply_text("hi")
            .env("OMC_TRACE_FILE", trace_file.to_string_lossy()),
        None,
    );
    let err = check_hooks_fired(&trace(&trace_file), &run.session_id)
        .expect_err("a hook that never answers must fail the scenario");
    assert!(err.contains("user-prompt-submit never ran"), "{err}");
}

/// Masks what legitimately differs between two runs: sandbox paths, ids, dates.
fn normalise(text: &str, sandbox: &Path) -> String {
    let mut t = text.replace(&sandbox.to_string_lossy().into_owned(), "<sandbox>");
    // UUIDs (session ids, prompt ids).
    let mut out = String::with_capacity(t.len());
    let bytes: Vec<char> = t.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let rest: String = bytes[i..bytes.len().min(i + 36)].iter().collect();
        let is_uuid = rest.len() == 36
            && rest.chars().enumerate().all(|(k, c)| {
                if [8, 13, 18, 23].contains(&k) {
                    c == '-'
                } else {
                    c.is_ascii_hexdigit()
                }
            });
        if is_uuid {
            out.push_str("<uuid>");
            i += 36;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    t = out;
    t
}

#[test]
fn a_plugin_with_nothing_to_say_does_not_change_what_the_model_is_sent() {
    let run = |plugin: bool| {
        let sb = Sandbox::new();
        let mut sc = Scenario::new()
            .reply_tool("Bash", json!({"command": "echo hello"}))
            .reply_text("the command printed hello");
        if !plugin {
            sc = sc.without_plugin();
        }
        let r = sb.claude(
            plugin_dir(),
            "run echo hello and tell me what it printed",
            sc,
            None,
        );
        r.assert_success();
        let shown: Vec<String> = r
            .main_loop_requests()
            .iter()
            .map(|q| normalise(&q.user_text(), sb.root()))
            .collect();
        (shown, sb)
    };
    let (with, _a) = run(true);
    let (without, _b) = run(false);
    assert!(
        with.len() >= 2,
        "the tool call and the answer reached the model"
    );
    assert!(
        with[1].contains("hello"),
        "the tool result is in the second request"
    );
    assert_eq!(with.len(), without.len(), "same number of model requests");
    for (i, (a, b)) in with.iter().zip(&without).enumerate() {
        assert_eq!(a, b, "request {i} differs with the plugin loaded");
    }
}

#[test]
fn the_real_client_validates_the_plugin_with_nothing_to_refuse() {
    let sb = Sandbox::new();
    let out = std::process::Command::new(crate::e2e::client_bin())
        .args(["plugin", "validate", ".", "--profile", "directory"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("HOME", sb.home())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Validation passed"), "{text}");
    assert!(
        text.contains("These checks found nothing to report"),
        "the plugin-directory profile found something:\n{text}"
    );
}
