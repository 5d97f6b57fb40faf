//! Trust: a project's hooks.toml never runs a command until the user trusts that exact file.

use super::{AGENT_MARKERS, Setup, denied, q};
use crate::common::BIN;
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::io::Write;
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
    let msg = first.json()["systemMessage"]
        .as_str()
        .unwrap_or("")
        .to_string();
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
    assert!(status.contains("NOT TRUSTED"), "{status}");
    let (code, doctor, _) = s.cli(&["doctor"]);
    assert_eq!(code, 1, "{doctor}");
    assert!(
        doctor.contains("is not trusted: its 1 hook entry do not run"),
        "{doctor}"
    );

    // Trusted: it runs.
    let (code, out, err) = s.cli(&["trust", "--yes"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("entry 1 (line 1): pre-tool-use — runs: touch"),
        "{out}"
    );
    let store = s.config.path().join("omc-hooks/trusted.json");
    let trusted: Value = serde_json::from_slice(&std::fs::read(&store).unwrap()).unwrap();
    assert_valid("trusted", &trusted);
    s.bash("ls").expect_noop();
    assert!(s.root().join("marker-1").exists());

    // Edited (even by one byte): untrusted again, announced again, nothing runs.
    std::fs::write(&hooks, marker_file(&s, "marker-2")).unwrap();
    let out = s.bash("ls");
    assert!(!s.root().join("marker-2").exists());
    let msg = out.json()["systemMessage"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(msg.contains("has changed since you trusted it"), "{msg}");
    let (_, status, _) = s.cli(&["status", "--json"]);
    let v: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v["user_hooks"][0]["changed_since_trusted"], true, "{v}");

    // --list shows it changed; --revoke forgets it.
    let (_, list, _) = s.cli(&["trust", "--list"]);
    assert!(list.contains("CHANGED since, does not run"), "{list}");
    s.trust();
    s.bash("ls");
    assert!(s.root().join("marker-2").exists());
    let (code, out, _) = s.cli(&["trust", "--revoke"]);
    assert_eq!(code, 0);
    assert!(out.contains("no longer trusted"), "{out}");
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
    assert!(omc_hooks::user_hooks::export_entries(&env, Some(&store)).is_empty());
    s.trust();
    let entries = omc_hooks::user_hooks::export_entries(&env, Some(&store));
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
    assert!(err.contains("symlink"), "{err}");
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert!(doctor.contains("cannot be read"), "{doctor}");
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

/// `omc-hooks trust` at a pseudo-terminal (util-linux `script`), `answer` typed at its prompt:
/// (exit code, everything it printed).
fn trust_at_terminal(s: &Setup, answer: &str, env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("'{BIN}' trust"), "/dev/null"])
        .current_dir(s.root())
        .env("XDG_CONFIG_HOME", s.config.path())
        .env("HOME", s.config.path())
        .env("USER", "alice")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    for var in AGENT_MARKERS {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("util-linux script");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(answer.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
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
    assert!(err.contains("no terminal to ask you at"), "{err}");
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
        assert!(err.contains(&format!("refused: {var} is set")), "{err}");
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
    assert!(
        out.contains("Trust this file, so that these hooks run? [y/N]"),
        "{out}"
    );
    assert!(out.contains("Not trusted; nothing recorded."), "{out}");
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
    assert!(
        doctor.contains(&format!(
            "was trusted by {} on {}, confirmed at a terminal, no agent among its parent processes",
            rec["trusted_by"].as_str().unwrap(),
            rec["trusted_at"].as_str().unwrap()
        )),
        "{doctor}"
    );
    let (_, list, _) = s.cli(&["trust", "--list"]);
    assert!(list.contains("by alice (uid "), "{list}");

    // --yes is a person's own script: recorded as such. Revoking needs no person.
    let (code, _, err) = s.cli_with(&["trust", "--yes"], &[("USER", "bob")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        trusted_json(&s).unwrap()["files"][0]["confirmed"],
        "--yes, no agent above"
    );
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert!(doctor.contains("was trusted by bob (uid "), "{doctor}");
    assert!(doctor.contains("confirmed with --yes"), "{doctor}");
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
    // The same command under a parent without them: a person, trusted, and said so.
    let (code, out) = trust_under_an_agent(&s, &[], "");
    assert_eq!(code, 0, "{out}");
    let (_, list, _) = s.cli(&["trust", "--list"]);
    assert!(
        list.contains("confirmed at a terminal, no agent among its parent processes"),
        "{list}"
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
    assert!(!manifest.contains("trust"), "{manifest}");
}
