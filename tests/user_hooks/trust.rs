//! Trust: a project's hooks.toml never runs a command until the user trusts that exact file.

use super::{Setup, denied, q};
use crate::schema::assert_valid;
use serde_json::{Value, json};

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
    let (code, out, err) = s.cli(&["trust"]);
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
    let (code, _, err) = s.cli(&["trust"]);
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
