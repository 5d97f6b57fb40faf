//! Trust: a project's hooks.toml never runs a command until the user trusts that exact file.

use super::{AGENT_MARKERS, SID, Setup, denied, q};
use crate::common::{self, BIN};
use crate::common::{assert_has, assert_lacks};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::process::{Command, Stdio};

fn marker_file(s: &Setup, name: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\ncommand = {}\n",
        q(&format!("touch {}", s.root().join(name).display()))
    )
}

#[test]
fn an_untrusted_project_file_never_runs_trusting_runs_it_editing_stops_it() {
    let s = Setup::new();
    let hooks = s.project_hooks(&marker_file(&s, "marker-1"));

    // Untrusted: no command runs, on any event, and the person is told once per session.
    let first = s.bash("ls");
    assert!(!s.root().join("marker-1").exists());
    let msg = first.system_message();
    assert!(
        msg.contains("is not trusted") && msg.contains("omc-hooks trust"),
        "{msg}"
    );
    let second = s.bash("ls");
    second.expect_noop();
    assert!(!s.root().join("marker-1").exists());
    let notice = s
        .project
        .read_json(&format!(
            ".omc/state/sessions/{}/user-hooks-notice.json",
            super::SID
        ))
        .unwrap();
    assert_valid("user-hooks-notice", &notice);

    // status and doctor say so.
    let (_, status, _) = s.cli(&["status"]);
    assert_has(&status, "NOT TRUSTED");
    let (code, doctor, _) = s.cli(&["doctor"]);
    assert_eq!(code, 1, "{doctor}");
    assert_has(&doctor, "is not trusted: its 1 hook entry do not run");

    // A script's `--yes` (no terminal) while this project's session had a hook moments ago is
    // the agent's shape, not a person's: refused (issue 43).
    let (code, _, err) = s.cli(&["trust", "--yes"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        "there is no terminal, and an agent's session is working in this project",
    );
    // Trusted by the person at a terminal: it runs.
    let (code, out) = s.at_terminal(&format!("'{BIN}' trust --yes"), "", &[]);
    assert_eq!(code, 0, "{out}");
    assert_has(&out, "entry 1 (line 1): pre-tool-use — runs: touch");
    let store = s.config.path().join("omc-hooks/trusted.json");
    let trusted: Value = serde_json::from_slice(&std::fs::read(&store).unwrap()).unwrap();
    assert_valid("trusted", &trusted);
    s.bash("ls").expect_noop();
    assert!(s.root().join("marker-1").exists());

    // Edited (even by one byte): untrusted again, announced again, nothing runs.
    std::fs::write(&hooks, marker_file(&s, "marker-2")).unwrap();
    let out = s.bash("ls");
    assert!(!s.root().join("marker-2").exists());
    let msg = out.system_message();
    assert_has(&msg, "has changed since you trusted it");
    let (_, status, _) = s.cli(&["status", "--json"]);
    let v: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["user_hooks"][0]["changed_since_trusted"], true, "{v}");

    // --list shows it changed; --revoke forgets it.
    let (_, list, _) = s.cli(&["trust", "--list"]);
    assert_has(&list, "CHANGED since, does not run");
    s.trust();
    s.bash("ls");
    assert!(s.root().join("marker-2").exists());
    let (code, out, _) = s.cli(&["trust", "--revoke"]);
    assert_eq!(code, 0);
    assert_has(&out, "no longer trusted");
    std::fs::remove_file(s.root().join("marker-2")).unwrap();
    s.bash("ls");
    assert!(!s.root().join("marker-2").exists());
}

#[test]
fn an_untrusted_project_file_cannot_block_or_send_either() {
    let s = Setup::new();
    s.project_hooks(
        "[[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\ncommand = \"echo '{\\\"action\\\":\\\"block\\\"}'\"\n",
    );
    assert_eq!(denied(&s.bash("ls")), None);
    // Nor hand sinks to export.
    s.project_hooks(
        "[[hooks]]\nevent = \"post-tool-use\"\ntype = \"async_webhook\"\nurl = \"http://127.0.0.1:9/b\"\n",
    );
    let env = env_for(&s);
    let store = omc_hooks::state::Store::new(
        omc_hooks::state::root::resolve(&env, s.root().to_str()).unwrap(),
        0,
    );
    assert!(
        omc_hooks::config::hooks_toml::export_entries(
            &omc_hooks::config::hooks_toml::load(&env, Some(&store)),
            &env
        )
        .is_empty()
    );
    s.trust();
    let entries = omc_hooks::config::hooks_toml::export_entries(
        &omc_hooks::config::hooks_toml::load(&env, Some(&store)),
        &env,
    );
    assert_eq!(
        entries,
        vec![
            json!({"event": "post-tool-use", "type": "async_webhook", "url": "http://127.0.0.1:9/b"})
        ]
    );
}

#[test]
fn a_symlinked_project_hooks_file_is_refused_even_when_its_target_is_trusted() {
    let s = Setup::new();
    // The user's own file is trusted by definition; a project file pointing at it is not
    // followed (a cloned repository could point anywhere).
    let elsewhere = s.config.path().join("elsewhere.toml");
    std::fs::write(&elsewhere, marker_file(&s, "via-link")).unwrap();
    std::fs::create_dir_all(s.project.omc()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, s.project.omc().join("hooks.toml")).unwrap();
    let out = s.bash("ls");
    assert!(!s.root().join("via-link").exists());
    assert!(out.stderr.contains("symlink"), "{}", out.stderr);
    let (code, _, err) = s.cli(&["trust", "--yes"]);
    assert_eq!(code, 1);
    assert_has(&err, "symlink");
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert_has(&doctor, "cannot be read");
    // A symlinked .omc is refused the same way.
    let s = Setup::new();
    let real = s.config.path().join("real-omc");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::write(real.join("hooks.toml"), marker_file(&s, "via-dir")).unwrap();
    std::os::unix::fs::symlink(&real, s.project.omc()).unwrap();
    s.bash("ls");
    assert!(!s.root().join("via-dir").exists());
}

#[test]
fn the_user_file_needs_no_trust_and_runs_before_the_project_file() {
    let s = Setup::new();
    let log = s.root().join("order.log");
    let entry = |who: &str| {
        format!(
            "[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = {}\n",
            q(&format!("echo {who} >> {}", log.display()))
        )
    };
    s.user_hooks(&entry("user"));
    s.project_hooks(&entry("project"));
    s.trust();
    s.run("stop", "Stop", json!({})).expect_noop();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "user\nproject\n");
}

fn env_for(s: &Setup) -> omc_hooks::env::Env {
    let mut extra = std::collections::HashMap::new();
    extra.insert(
        "XDG_CONFIG_HOME".to_string(),
        s.config.path().to_string_lossy().into_owned(),
    );
    omc_hooks::env::Env::from_lookup(|_| None, Some(s.root().to_path_buf()), extra)
}

/// `omc-hooks trust` typed at a person's pseudo-terminal, `answer` typed at its prompt:
/// (exit code, everything it printed).
fn trust_at_terminal(s: &Setup, answer: &str, env: &[(&str, &str)]) -> (i32, String) {
    s.at_terminal(&format!("'{BIN}' trust"), answer.trim_end(), env)
}

fn trusted_json(s: &Setup) -> Option<Value> {
    let bytes = std::fs::read(s.config.path().join("omc-hooks/trusted.json")).ok()?;
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_valid("trusted", &v);
    Some(v)
}

#[test]
fn trust_needs_a_person_not_a_model() {
    let s = Setup::new();
    s.project_hooks(&marker_file(&s, "marker"));
    // No terminal and no --yes (a model's command, a hook, `trust </dev/null`): refused.
    let (code, out, err) = s.cli(&["trust"]);
    assert_eq!(code, 1, "{out}{err}");
    assert_has(&err, "no terminal to ask you at");
    assert!(
        trusted_json(&s).is_none(),
        "trust recorded without a person"
    );
    // Whatever the agent, its model running it is refused, --yes or not.
    for (var, value) in [
        ("CLAUDECODE", "1"),
        ("CLAUDE_CODE_SESSION_ID", "0c7e…"),
        ("CODEX_THREAD_ID", "019a-thread"),
        ("CODEX_SESSION_ID", "019a-thread"),
        ("GEMINI_CLI", "1"),
        ("QWEN_CODE", "1"),
        ("QWEN_CODE_SESSION_ID", "q-1"),
        ("COPILOT_CLI", "1"),
        ("COPILOT_AGENT_SESSION_ID", "1c815d5e"),
        ("CODEBUDDY", "1"),
        ("CODEBUDDY_SESSION_ID", "b61c6959"),
        ("FACTORY_DISABLE_SETTINGS_PERSISTENCE", "true"),
        ("CURSOR_AGENT", "1"),
        ("KILO", "1"),
        ("OPENCODE", "1"),
        ("PI_CODING_AGENT", "true"),
        ("AI_AGENT", "claude-code"),
    ] {
        let (code, _, err) = s.cli_with(&["trust", "--yes"], &[(var, value)]);
        assert_eq!(code, 1, "{var}: {err}");
        assert_has(&err, &format!("refused: {var} is set"));
        assert!(trusted_json(&s).is_none(), "{var}: trust recorded");
    }
    // Even at a terminal (Gemini CLI and Codex give the model's commands a pseudo-terminal).
    let (code, out) = trust_at_terminal(&s, "y\n", &[("GEMINI_CLI", "1")]);
    assert_eq!(code, 1, "{out}");
    assert!(
        trusted_json(&s).is_none(),
        "trust recorded at a model's terminal"
    );
    s.bash("ls");
    assert!(!s.root().join("marker").exists());

    // A person at a terminal: no is no, yes is yes.
    let (code, out) = trust_at_terminal(&s, "n\n", &[]);
    assert_eq!(code, 1, "{out}");
    assert_has(&out, "Trust this file, so that these hooks run? [y/N]");
    assert_has(&out, "Not trusted; nothing recorded.");
    assert!(trusted_json(&s).is_none());
    let (code, out) = trust_at_terminal(&s, "y\n", &[]);
    assert_eq!(code, 0, "{out}");
    let t = trusted_json(&s).unwrap();
    let rec = &t["files"][0];
    assert_eq!(rec["confirmed"], "terminal, no agent above", "{t}");
    assert!(
        rec["trusted_by"]
            .as_str()
            .unwrap()
            .starts_with("alice (uid "),
        "{t}"
    );
    s.bash("ls");
    assert!(s.root().join("marker").exists());

    // doctor and --list say who trusted it, when and how.
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert_has(
        &doctor,
        &format!(
            "was trusted by {} on {}, confirmed at a terminal, no agent among its parent processes",
            rec["trusted_by"].as_str().unwrap(),
            rec["trusted_at"].as_str().unwrap()
        ),
    );
    let (_, list, _) = s.cli(&["trust", "--list"]);
    assert_has(&list, "by alice (uid ");

    // --yes is a person's own script: recorded as such, once no agent's session has had a
    // hook in this project for a while (the clock moved 20 minutes on). Revoking needs no
    // person.
    let later = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        + 20 * 60 * 1000)
        .to_string();
    let (code, _, err) = s.cli_with(&["trust", "--yes"], &[("USER", "bob")]);
    assert_eq!(code, 1, "an agent's session had a hook moments ago: {err}");
    let (code, _, err) = s.cli_with(
        &["trust", "--yes"],
        &[("USER", "bob"), ("OMC_NOW_MS", later.as_str())],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        trusted_json(&s).unwrap()["files"][0]["confirmed"],
        "--yes, no agent above"
    );
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert_has(&doctor, "was trusted by bob (uid ");
    assert_has(&doctor, "confirmed with --yes");
    let (code, _, err) = s.cli_with(&["trust", "--revoke"], &[("CLAUDECODE", "1")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        trusted_json(&s).unwrap()["files"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// `script -qec "omc-hooks trust"` started by a shell that carries an agent's variables, with
/// those variables removed (`env -u`) for `script` and `trust` alone, as a model under Claude
/// Code could run it; `answer` typed at the prompt.
fn trust_under_an_agent(s: &Setup, parent_env: &[(&str, &str)], extra: &str) -> (i32, String) {
    let unset: String = AGENT_MARKERS.iter().map(|v| format!(" -u {v}")).collect();
    let line = format!(
        "printf 'y\\n' | env{unset} script -qec \"'{BIN}' trust{extra}\" /dev/null; exit $?"
    );
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &line])
        .current_dir(s.root())
        .env("XDG_CONFIG_HOME", s.config.path())
        .env("HOME", s.config.path())
        .env("USER", "alice")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::null());
    for var in AGENT_MARKERS {
        cmd.env_remove(var);
    }
    for (k, v) in parent_env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("sh and util-linux script");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn trust_refuses_under_an_agent_even_with_its_variables_removed() {
    let s = Setup::new();
    s.project_hooks(&marker_file(&s, "marker"));
    for parent in [
        &[
            ("CLAUDECODE", "1"),
            ("CLAUDE_CODE_SESSION_ID", "0c7e-1"),
            ("AI_AGENT", "claude-code"),
        ][..],
        &[("CODEX_THREAD_ID", "019a-thread")],
        &[("GEMINI_CLI", "1")],
        &[("QWEN_CODE", "1")],
    ] {
        for extra in ["", " --yes"] {
            let (code, out) = trust_under_an_agent(&s, parent, extra);
            assert_eq!(code, 1, "{parent:?}{extra}: {out}");
            assert!(
                out.contains("refused: ") && out.contains("above this command"),
                "{parent:?}{extra}: {out}"
            );
            assert!(
                trusted_json(&s).is_none(),
                "{parent:?}{extra}: trust recorded under an agent: {out}"
            );
        }
    }
    s.bash("ls");
    assert!(!s.root().join("marker").exists(), "the project's hook ran");
    // The same command under a parent without them still makes a terminal for `trust` alone
    // (`script -c`): no person's shell leads it, refused (issue 43).
    let (code, out) = trust_under_an_agent(&s, &[], "");
    assert_eq!(code, 1, "{out}");
    // `script` runs the command through `$SHELL -c`: a shell that execs it leaves `trust` leading
    // the session, one that forks leaves `sh -c` leading it. Either way no person's shell does.
    assert!(
        out.contains("leads its own terminal session")
            || out.contains("session is led by a command line"),
        "{out}"
    );
    // A person at their own terminal: trusted, and said so.
    let (code, out) = trust_at_terminal(&s, "y", &[]);
    assert_eq!(code, 0, "{out}");
    let (_, list, _) = s.cli(&["trust", "--list"]);
    assert_has(
        &list,
        "confirmed at a terminal, no agent among its parent processes",
    );
    s.bash("ls");
    assert!(s.root().join("marker").exists());
}

#[test]
fn nothing_the_model_reads_or_the_hooks_run_gives_trust() {
    // `--yes` is for a person's script: no hook command, no text the model is shown and no
    // slash command carries it (or any trust command that could record trust).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("hooks.json")];
    for dir in ["templates", "commands", "extensions", ".codex-plugin"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                } else {
                    files.push(e.path());
                }
            }
        }
    }
    assert!(files.len() > 20, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        assert!(
            !text.contains("trust --yes") && !text.contains("trust -y"),
            "{} tells the model (or a hook) to give trust",
            f.display()
        );
    }
    let manifest = omc_hooks::hooks::MANIFEST;
    assert_lacks(manifest, "trust");
}

/// Waits (bounded) until `path` holds text, for a command that was detached from the test.
fn wait_for_text(path: &std::path::Path) -> String {
    for _ in 0..200 {
        if let Ok(t) = std::fs::read_to_string(path)
            && t.contains("omc-hooks trust")
        {
            return t;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Issue 43: the three detaching forms the audit used, run by a shell that carries Claude
/// Code's variables (as the model's commands do), leave the project untrusted and its hook
/// unrun — `trust` itself refuses each (the tool call is refused before it runs as well: see
/// the next test). A person at a second terminal, while that agent's session works in the
/// project, still trusts.
#[test]
fn detached_forms_of_trust_leave_the_project_untrusted() {
    for tool in ["setsid", "script", "tmux"] {
        assert!(
            Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(Stdio::null())
                .status()
                .unwrap()
                .success(),
            "{tool} is needed (.ci/run installs tmux)"
        );
    }
    let s = Setup::new();
    s.project_hooks(&marker_file(&s, "marker"));
    let tmp = tempfile::tempdir().unwrap();
    let out = |n: &str| tmp.path().join(n);
    let agent_shell = |line: &str| {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", line])
            .current_dir(s.root())
            .env("XDG_CONFIG_HOME", s.config.path())
            .env("HOME", s.config.path())
            .env("TERM", "xterm")
            .env("TMUX_TMPDIR", tmp.path())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("TMUX")
            .env("CLAUDECODE", "1")
            .env("CLAUDE_CODE_SESSION_ID", "0c7e-43")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for var in AGENT_MARKERS {
            if !matches!(*var, "CLAUDECODE" | "CLAUDE_CODE_SESSION_ID") {
                cmd.env_remove(var);
            }
        }
        cmd.status().unwrap();
    };
    let unset = "env -u CLAUDECODE -u CLAUDE_CODE_SESSION_ID";
    // 1. Detached from the agent's tree, no terminal, --yes.
    agent_shell(&format!(
        "({unset} setsid -f '{BIN}' trust --yes >'{}' 2>&1 &)",
        out("1").display()
    ));
    let said = wait_for_text(&out("1"));
    // Refused either as detached or, when it looks while `setsid` is exiting, because that
    // parent's environment cannot be read (both seen under load); 1b pins the detached rule.
    assert_has(&said, "omc-hooks trust: refused: ");
    // 1b. The same with a `setsid` that waits for it (itself detached from the agent's tree):
    // the parent stays, so no look at it tells (and neither can the parent of `setsid -f` on
    // a busy machine, while it has not exited yet); the session `trust` leads without a
    // terminal does.
    agent_shell(&format!(
        "{unset} setsid -f sh -c \"setsid -f -w '{BIN}' trust --yes >'{}' 2>&1\"",
        out("1b").display()
    ));
    let said = wait_for_text(&out("1b"));
    assert_has(&said, "refused: this command was detached");
    assert_has(&said, "it leads a session of its own with no terminal");
    // 2. A terminal made by a detached `script`, `y` piped in.
    agent_shell(&format!(
        "echo y | {unset} setsid -f script -qc \"'{BIN}' trust 2>'{}'\" /dev/null",
        out("2").display()
    ));
    let said = wait_for_text(&out("2"));
    assert_has(&said, "omc-hooks trust: refused: ");
    // 3. A tmux server started without the variables, then `y` typed into it.
    agent_shell(&format!(
        "{unset} tmux -L t43 new-session -d \"'{BIN}' trust 2>'{}'; sleep 5\"; sleep 0.3; \
         tmux -L t43 send-keys y Enter",
        out("3").display()
    ));
    let said = wait_for_text(&out("3"));
    agent_shell("tmux -L t43 kill-server");
    assert_has(&said, "omc-hooks trust: refused: ");
    assert!(trusted_json(&s).is_none(), "a detached form recorded trust");
    s.bash("ls");
    assert!(!s.root().join("marker").exists(), "the project's hook ran");

    // A person's environment scrubbed away (`env -i`-like) at a terminal: refused.
    let (code, said) = s.at_terminal(&format!("env -u HOME -u TERM '{BIN}' trust"), "y", &[]);
    assert_eq!(code, 1, "{said}");
    assert_has(&said, "its environment has no HOME and TERM");
    // The agent's session had a hook moments ago (the `ls` above); the person, at their own
    // terminal, still trusts.
    let (code, said) = s.at_terminal(&format!("'{BIN}' trust"), "y", &[]);
    assert_eq!(code, 0, "{said}");
    s.bash("ls");
    assert!(s.root().join("marker").exists());
}

/// Issue 43, first layer: the pre-tool hook refuses a tool call that would run `trust`, in
/// any shell form, on the agents with a pre-tool event (their shell tools read as `Bash`), and
/// says why; a command that only mentions the word, or lists trust, goes through.
#[test]
fn the_pre_tool_hook_refuses_a_call_that_would_run_trust() {
    let s = Setup::new();
    let forms = [
        format!("'{BIN}' trust --yes"),
        "(env -u CLAUDECODE -u CLAUDE_CODE_SESSION_ID setsid -f omc-hooks trust --yes &)".into(),
        "echo y | setsid -f script -qc 'omc-hooks trust' /dev/null".into(),
        "tmux -L x new-session -d 'omc-hooks trust' && tmux -L x send-keys y Enter".into(),
        "nohup npx omc-hooks trust --yes &".into(),
        "bash -c \"$(command -v omc-hooks) trust --yes\"".into(),
    ];
    let payloads = |command: &str| {
        vec![
            (
                "claude",
                json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": command}, "tool_use_id": "t1"}),
            ),
            (
                "codex",
                json!({"hook_event_name": "PreToolUse", "turn_id": "turn-1", "tool_name": "Bash",
                       "tool_input": {"command": command}, "tool_use_id": "c1",
                       "model": "mock-model", "permission_mode": "bypassPermissions"}),
            ),
            (
                "gemini",
                json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                       "tool_input": {"command": command},
                       "timestamp": "2026-12-03T08:38:50.314Z"}),
            ),
        ]
    };
    for form in &forms {
        for (agent, extra) in payloads(form) {
            let mut p = common::payload("PreToolUse", SID, s.root());
            for (k, v) in extra.as_object().unwrap() {
                p[k] = v.clone();
            }
            let out = s.hook("pre-tool-use").agent(agent).payload(p).run();
            out.expect_valid();
            assert!(
                out.stdout.contains("it would run `omc-hooks trust`"),
                "{agent}: {form}: {}",
                out.stdout
            );
        }
    }
    for harmless in [
        "grep -rn trust docs/",
        "omc-hooks trust --list",
        "omc-hooks status",
    ] {
        assert_eq!(denied(&s.bash(harmless)), None, "{harmless}");
    }
    // OMC's name for its own pre-tool script switches our guards off, not this one (a cloned
    // repository's settings can set it).
    let out = s.bash_with(
        "omc-hooks trust --yes",
        &[("OMC_SKIP_HOOKS", "pre-tool-enforcer")],
    );
    assert!(denied(&out).is_some(), "{}", out.stdout);
}

/// Issue 43, third layer: the first session start after the project's hooks were trusted
/// tells the person when, by whom, how it was confirmed and what will run — once.
#[test]
fn the_next_session_start_tells_the_person_the_hooks_were_trusted() {
    let s = Setup::new();
    s.project_hooks(&marker_file(&s, "marker"));
    let start = |sid: &str| {
        let mut p = common::payload("SessionStart", sid, s.root());
        p["source"] = json!("startup");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis()
            .to_string();
        let out = s
            .hook("session-start")
            .env("OMC_NOW_MS", &now)
            .payload(p)
            .run();
        out.expect_valid();
        out.system_message()
    };
    let said = start("before-trust");
    assert_lacks(&said, "was trusted since");
    let (code, out) = trust_at_terminal(&s, "y", &[]);
    assert_eq!(code, 0, "{out}");
    let said = start("after-trust");
    assert_has(
        &said,
        "hooks.toml was trusted since this project's last session (by alice (uid ",
    );
    assert_has(&said, "confirmed at a terminal");
    assert_has(&said, "pre-tool-use runs `touch ");
    assert_has(&said, "omc-hooks trust --revoke");
    // Said once: the next session starts after the trust.
    let said = start("later");
    assert_lacks(&said, "was trusted since");
}
