//! Script hooks: block, modify, order, timeouts, crashes, what each event can do.

use super::{Setup, denied, diags, q};
use crate::common::{assert_has, assert_lacks};
use serde_json::json;

fn script(event: &str, matcher: &str, command: &str, extra: &str) -> String {
    format!(
        "[[hooks]]\nevent = {}\nmatcher = {}\ntype = \"script\"\ncommand = {}\n{extra}\n",
        q(event),
        q(matcher),
        q(command)
    )
}

#[test]
fn a_blocking_script_blocks_the_tool_call_with_its_reason() {
    let s = Setup::new();
    s.user_hooks(&script(
        "pre-tool-use",
        "Bash",
        r#"cat > /dev/null; echo '{"action":"block","reason":"no rm -rf here"}'"#,
        "",
    ));
    let out = s.bash("rm -rf /");
    assert_eq!(
        denied(&out).as_deref(),
        Some("no rm -rf here"),
        "{}",
        out.stdout
    );
    // OMC's name for its pre-tool script switches off our work in that hook, not the
    // person's own blocking rules (issue 43).
    let out = s.bash_with("rm -rf /", &[("OMC_SKIP_HOOKS", "pre-tool-enforcer")]);
    assert_eq!(
        denied(&out).as_deref(),
        Some("no rm -rf here"),
        "{}",
        out.stdout
    );
    // The matcher: another tool is not asked.
    let read = s.run(
        "pre-tool-use",
        "PreToolUse",
        json!({"tool_name": "Read", "tool_input": {"file_path": "/x"}}),
    );
    read.expect_noop();
}

#[test]
fn the_script_gets_the_event_on_stdin_and_in_its_environment_from_the_project_root() {
    let s = Setup::new();
    let sub = s.root().join("sub");
    std::fs::create_dir(&sub).unwrap();
    s.user_hooks(&script(
        "pre-tool-use",
        "*",
        "cat > stdin.json; printf '%s' \"$OMC_HOOK_CONTEXT\" > ctx.json; \
         echo \"$OMC_HOOK_EVENT|$OMC_TOOL_NAME|$OMC_SESSION_ID|$OMC_PROJECT_DIR|$(pwd)\" > env.txt",
        "",
    ));
    let out = s.run(
        "pre-tool-use",
        "PreToolUse",
        json!({"cwd": sub, "tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    out.expect_noop();
    let stdin: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.root().join("stdin.json")).unwrap()).unwrap();
    assert_eq!(stdin["event"], "pre-tool-use");
    assert_eq!(stdin["hook_event_name"], "PreToolUse");
    assert_eq!(stdin["tool_input"]["command"], "ls");
    assert_eq!(stdin["session_id"], super::SID);
    assert_eq!(stdin["project_dir"], s.root().to_string_lossy().as_ref());
    let ctx: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.root().join("ctx.json")).unwrap()).unwrap();
    assert_eq!(ctx, stdin);
    let env = std::fs::read_to_string(s.root().join("env.txt")).unwrap();
    let root = s.root().canonicalize().unwrap();
    assert_eq!(
        env.trim(),
        format!(
            "pre-tool-use|Bash|{}|{}|{}",
            super::SID,
            s.root().display(),
            root.display()
        )
    );
}

#[test]
fn modify_adds_context_and_rewrites_the_input_that_later_entries_see() {
    let s = Setup::new();
    let first = script(
        "pre-tool-use",
        "Bash",
        r#"cat > /dev/null; echo '{"action":"modify","tool_input":{"command":"ls -l"},"context":"rewritten to ls -l"}'"#,
        "",
    );
    // The second entry reports the command it was given.
    let second = script(
        "pre-tool-use",
        "Bash",
        r#"cmd=$(sed 's/.*"command":"\([^"]*\)".*/\1/'); echo "{\"action\":\"modify\",\"context\":\"saw: $cmd\"}""#,
        "",
    );
    s.user_hooks(&format!("{first}\n{second}"));
    let out = s.bash("ls");
    let v = out.json();
    let specific = &v["hookSpecificOutput"];
    assert_eq!(specific["updatedInput"], json!({"command": "ls -l"}), "{v}");
    assert!(specific.get("permissionDecision").is_none(), "{v}");
    assert_eq!(
        specific["additionalContext"],
        "rewritten to ls -l\n\nsaw: ls -l"
    );
    // Context on a post-tool-use event.
    let s = Setup::new();
    s.user_hooks(&script(
        "post-tool-use",
        "*",
        r#"echo '{"action":"modify","context":"lint: 2 warnings"}'"#,
        "",
    ));
    s.run(
        "post-tool-use",
        "PostToolUse",
        json!({"tool_name": "Edit", "tool_input": {}, "tool_response": {}}),
    )
    .expect_context("lint: 2 warnings");
}

#[test]
fn the_first_block_wins_and_later_entries_do_not_run() {
    let s = Setup::new();
    let a = script(
        "pre-tool-use",
        "*",
        r#"echo '{"action":"block","reason":"first"}'"#,
        "",
    );
    let b = script(
        "pre-tool-use",
        "*",
        r#"touch later-ran; echo '{"action":"block","reason":"second"}'"#,
        "",
    );
    s.user_hooks(&format!("{a}\n{b}"));
    assert_eq!(denied(&s.bash("x")).as_deref(), Some("first"));
    assert!(!s.root().join("later-ran").exists());
}

#[test]
fn a_hanging_script_is_cut_at_its_timeout_with_what_it_started_and_the_call_is_allowed() {
    let s = Setup::new();
    let pidfile = s.root().join("sleeper.pid");
    s.user_hooks(&script(
        "pre-tool-use",
        "*",
        &format!(
            "sleep 30 & echo $! > {}; sleep 30; echo '{{\"action\":\"block\"}}'",
            pidfile.display()
        ),
        "timeout_ms = 300",
    ));
    let out = s.bash("ls");
    out.expect_noop();
    let d = diags(&out);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].contains("timed out after 300 ms; its process group was killed; allowed"),
        "{d:?}"
    );
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    assert!(
        !alive(pid.trim()),
        "the background sleeper outlived the hook"
    );
}

#[test]
fn crash_and_garbage_are_allowed_with_one_diagnostic_each() {
    for (command, needle) in [
        ("echo boom >&2; exit 7", "exited with status 7: boom"),
        ("echo not json", "answer is not JSON"),
        (r#"echo '{"action":"explode"}'"#, "unknown action"),
        ("kill -9 $$", "killed by signal 9"),
    ] {
        let s = Setup::new();
        s.user_hooks(&script("pre-tool-use", "*", command, ""));
        let out = s.bash("ls");
        out.expect_noop();
        let d = diags(&out);
        assert_eq!(d.len(), 1, "{command}: {d:?}");
        assert!(d[0].contains(needle) && d[0].ends_with("allowed"), "{d:?}");
    }
}

#[test]
fn the_budget_cuts_a_long_timeout_within_the_hooks_own_deadline() {
    // session-end's internal deadline is 900 ms: user hooks get 720 ms of it, whatever the entry
    // asks for, and the hook still answers (here: nothing) instead of being cut by the watchdog.
    let s = Setup::new();
    s.user_hooks(&script(
        "session-end",
        "*",
        "sleep 30",
        "timeout_ms = 60000",
    ));
    let out = s.run("session-end", "SessionEnd", json!({"reason": "other"}));
    let d = diags(&out);
    let line = d
        .iter()
        .find(|l| l.contains("timed out after"))
        .unwrap_or_else(|| panic!("{d:?}"));
    let ms: u64 = line
        .split("timed out after ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(ms <= 720, "{line}");
    assert!(!out.stderr.contains("internal deadline"), "{}", out.stderr);
}

#[test]
fn what_each_event_does_with_a_block() {
    let block = r#"echo '{"action":"block","reason":"not now"}'"#;
    // stop: the conversation continues with the reason.
    let s = Setup::new();
    s.user_hooks(&script("stop", "*", block, ""));
    s.run("stop", "Stop", json!({"stop_hook_active": false}))
        .expect_block("not now");
    // user-prompt-submit: the prompt is refused — and our keywords do not start a run for it.
    let s = Setup::new();
    s.user_hooks(&script("user-prompt-submit", "*", block, ""));
    let out = s.run(
        "user-prompt-submit",
        "UserPromptSubmit",
        json!({"prompt": "ralph fix the tests"}),
    );
    assert_eq!(
        out.json(),
        json!({"decision": "block", "reason": "not now"})
    );
    assert!(
        !s.project
            .session_dir(super::SID)
            .join("ralph-state.json")
            .exists()
    );
    // post-tool-use cannot block: the reason becomes context.
    let s = Setup::new();
    s.user_hooks(&script("post-tool-use", "*", block, ""));
    let out = s.run(
        "post-tool-use",
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {}, "tool_response": {}}),
    );
    assert!(out.json().get("decision").is_none());
    out.expect_context("not now");
    assert!(diags(&out).iter().any(|l| l.contains("cannot block")));
    // session-end cannot block either, nor show anything.
    let s = Setup::new();
    s.user_hooks(&script("session-end", "*", block, ""));
    s.run("session-end", "SessionEnd", json!({"reason": "other"}))
        .expect_noop();
}

#[test]
fn a_rewrite_is_only_for_pre_tool_use() {
    let s = Setup::new();
    s.user_hooks(&script(
        "post-tool-use",
        "*",
        r#"echo '{"action":"modify","tool_input":{"command":"x"}}'"#,
        "",
    ));
    let out = s.run(
        "post-tool-use",
        "PostToolUse",
        json!({"tool_name": "Bash", "tool_input": {}, "tool_response": {}}),
    );
    out.expect_noop();
    assert!(diags(&out).iter().any(|l| l.contains("only be rewritten")));
}

#[test]
fn a_disabled_entry_does_not_run() {
    let s = Setup::new();
    s.user_hooks(&script("pre-tool-use", "*", "touch ran", "enabled = false"));
    s.bash("ls").expect_noop();
    assert!(!s.root().join("ran").exists());
}

/// Whether a process exists and is not a zombie (waits a little for SIGKILL to land).
pub fn alive(pid: &str) -> bool {
    for _ in 0..50 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return false,
            Ok(s)
                if s.rsplit(')')
                    .next()
                    .is_some_and(|r| r.trim_start().starts_with('Z')) =>
            {
                return false;
            }
            Ok(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
    true
}

/// Issue 35: a stop script that always blocks is relayed at most the no-progress cap in a row
/// (8), again after new work, and not at all after a cancel until the next prompt.
#[test]
fn an_always_blocking_stop_script_cannot_hold_the_session() {
    let block = r#"cat > /dev/null; echo '{"action":"block","reason":"keep going"}'"#;
    let s = Setup::new();
    s.user_hooks(&script("stop", "*", block, ""));
    let stop = |active: bool| s.run("stop", "Stop", json!({"stop_hook_active": active}));
    let relayed = |out: &crate::common::Outcome| {
        !out.stdout.trim().is_empty() && out.json()["decision"] == "block"
    };
    let in_a_row = |first: bool| {
        let mut n = 0;
        for i in 0..20 {
            let out = stop(!(first && i == 0));
            if !relayed(&out) {
                assert_has(&out.system_message(), "not passed on");
                break;
            }
            n += 1;
        }
        n
    };
    assert_eq!(
        in_a_row(true),
        8,
        "relayed at most 8 times without progress"
    );
    // New work starts the count again; a repeat of it does not.
    let bash = |cmd: &str, out: &str| {
        s.run(
            "post-tool-use",
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": cmd},
                   "tool_response": {"stdout": out, "stderr": ""}}),
        )
    };
    bash("cargo test", "1 failed");
    assert_eq!(in_a_row(false), 8);
    bash("cargo test", "1 failed");
    assert_eq!(in_a_row(false), 0, "a repeat is no progress");
    // A cancel ends the relay until the person's next prompt.
    bash("cargo build", "ok");
    s.run(
        "user-prompt-submit",
        "UserPromptSubmit",
        json!({"prompt": "cancelomc"}),
    );
    assert!(!relayed(&stop(false)), "cancelled");
    s.run(
        "user-prompt-submit",
        "UserPromptSubmit",
        json!({"prompt": "try again"}),
    );
    assert!(relayed(&stop(false)), "the next prompt relays it again");
}

/// Issue 37: a script runs through the shell its entry names (`shell = "bash"`), the system's
/// otherwise; a shell name not in the table disables the entry.
#[test]
fn a_script_runs_through_the_shell_its_entry_names() {
    // `[[ … ]]` is bash's, not POSIX sh's: only under bash does the script answer.
    let bashism = r#"cat > /dev/null; [[ -n "$BASH_VERSION" ]] && echo '{"action":"block","reason":"ran in bash"}'"#;
    let s = Setup::new();
    s.user_hooks(&script("pre-tool-use", "Bash", bashism, "shell = \"bash\""));
    assert_eq!(denied(&s.bash("ls")).as_deref(), Some("ran in bash"));
    let s = Setup::new();
    s.user_hooks(&script("pre-tool-use", "Bash", bashism, ""));
    s.bash("ls").expect_noop();
    let s = Setup::new();
    s.user_hooks(&script("pre-tool-use", "Bash", bashism, "shell = \"fish\""));
    let out = s.bash("ls");
    assert_eq!(denied(&out), None, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("`shell` is \\\"fish\\\"; use one of sh, bash"),
        "the person is told: {}",
        out.stdout
    );
}

/// Issue 43: an entry whose shell this machine lacks (a guard written for Windows' `pwsh`)
/// names that shell when it cannot start — not `/bin/sh` — and `doctor` lists it as a problem.
#[test]
fn a_missing_shell_is_named_and_doctor_lists_it() {
    let s = Setup::new();
    let empty = tempfile::tempdir().unwrap();
    let path = format!("{}:/usr/bin:/bin", empty.path().display());
    for shell in ["pwsh", "zsh"] {
        if std::process::Command::new("sh")
            .args(["-c", &format!("PATH={path} command -v {shell}")])
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap()
            .success()
        {
            continue; // installed here: nothing to show
        }
        s.user_hooks(&script(
            "pre-tool-use",
            "Bash",
            "echo '{\"action\":\"block\",\"reason\":\"guard\"}'",
            &format!("shell = \"{shell}\""),
        ));
        let mut p = crate::common::payload("PreToolUse", super::SID, s.root());
        p["tool_name"] = json!("Bash");
        p["tool_input"] = json!({"command": "ls"});
        let out = s.hook("pre-tool-use").env("PATH", &path).payload(p).run();
        let said = diags(&out).join("\n");
        assert_has(
            &said,
            &format!("cannot start the entry's shell `{shell}`: it is not installed here"),
        );
        assert_lacks(&said, "/bin/sh");
        let (code, doctor, _) = s.cli_with(&["doctor"], &[("PATH", path.as_str())]);
        assert_eq!(code, 1, "{doctor}");
        assert_has(
            &doctor,
            &format!("its shell `{shell}` is not installed here"),
        );
    }
}
