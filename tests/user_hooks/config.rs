//! hooks.toml as a file: doctor names the line of every mistake, a mistake disables only its
//! entry, and the JSON Schema agrees with the binary's own checks.

use super::{Setup, denied, q};
use crate::common::{assert_has, assert_lacks};
use crate::schema::{schema, violations};
use omc_hooks::config::hooks_toml::{Severity, parse_text};
use serde_json::{Value, json};

#[test]
fn doctor_names_the_line_and_a_bad_entry_disables_only_itself() {
    let s = Setup::new();
    s.user_hooks(&format!(
        "# team checks\n\
         [[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\ncomand = \"echo typo\"\n\n\
         [[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\ncommand = {}\n\n\
         [[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\ncommand = \"unterminated\n",
        q(r#"echo '{"action":"block","reason":"the good one"}'"#)
    ));
    // The good entry (the second) still runs, between a bad one and a broken one.
    let out = s.bash("ls");
    assert_eq!(denied(&out).as_deref(), Some("the good one"));
    // It is announced once, in the session.
    assert!(out.system_message().contains("2 hook entries disabled"));
    let (code, doctor, _) = s.cli(&["doctor"]);
    assert_eq!(code, 1, "{doctor}");
    assert_has(
        &doctor,
        "hooks.toml: line 5: entry 1: unknown key `comand`; entry disabled",
    );
    assert_has(&doctor, "hooks.toml: line 15: entry 3: TOML syntax");
    assert!(
        doctor.contains("user hooks:") && doctor.contains("1 entry (1 script)"),
        "{doctor}"
    );
}

#[test]
fn doctor_warns_about_literal_secrets_in_a_project_file_only() {
    let text = "[[hooks]]\nevent = \"stop\"\ntype = \"webhook\"\nurl = \"https://ci.example/h\"\n\
                [hooks.headers]\nAuthorization = \"Bearer abcdef0123456789abcdef\"\n";
    let s = Setup::new();
    s.project_hooks(text);
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert!(
        doctor.contains(
            "header Authorization holds a literal value — a literal secret in a project file"
        ),
        "{doctor}"
    );
    assert_lacks(&doctor, "abcdef0123456789abcdef");
    let s = Setup::new();
    s.user_hooks(text);
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert_lacks(&doctor, "literal secret");
}

#[test]
fn with_no_hooks_files_nothing_runs_and_doctor_says_none() {
    let s = Setup::new();
    s.bash("ls").expect_noop();
    let (_, doctor, _) = s.cli(&["doctor"]);
    assert_has(&doctor, "hooks     user: none (");
}

/// Writes a JSON entry as a `[[hooks]]` table (scalars, string lists, one level of tables).
fn toml_entry(entry: &Value) -> String {
    let scalar = |v: &Value| match v {
        Value::Array(a) => format!(
            "[{}]",
            a.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    };
    let obj = entry.as_object().unwrap();
    let mut s = String::from("[[hooks]]\n");
    for (k, v) in obj.iter().filter(|(_, v)| !v.is_object()) {
        s.push_str(&format!("{k} = {}\n", scalar(v)));
    }
    for (k, v) in obj.iter().filter(|(_, v)| v.is_object()) {
        s.push_str(&format!("[hooks.{k}]\n"));
        for (hk, hv) in v.as_object().unwrap() {
            s.push_str(&format!("{} = {}\n", q(hk), scalar(hv)));
        }
    }
    s
}

#[test]
fn the_schema_and_the_binary_agree_on_every_entry_of_the_corpus() {
    let valid = [
        json!({"event": "pre-tool-use", "type": "script", "command": "sh ci/guard.sh", "matcher": "Bash|Edit", "timeout_ms": 2000, "enabled": true, "name": "guard"}),
        json!({"event": ["stop", "subagent-*"], "type": "script", "command": "true"}),
        json!({"event": "*", "type": "webhook", "url": "https://x.example/h", "method": "PUT", "retries": 0, "headers": {"Authorization": "Bearer ${T}"}}),
        json!({"event": "post-tool-use", "type": "async_webhook", "url": "http://127.0.0.1:9000/batch", "batch_size": 50, "flush_interval_ms": 1000, "secret_env": "OMC_KEY", "redact": false}),
        json!({"event": "session-end", "type": "otlp"}),
        json!({"event": "stop", "type": "otlp", "endpoint": "http://localhost:4318", "max_spool_bytes": 65536}),
        json!({"event": "*", "type": "notify", "service": "slack", "url": "${SLACK_WEBHOOK_URL}", "on": ["run-end", "needs-input", "session-end"]}),
        json!({"type": "notify", "service": "discord", "url": "https://discord.example/api/webhooks/1/x", "name": "team", "timeout_ms": 3000}),
        json!({"type": "notify", "service": "telegram", "token_env": "TELEGRAM_BOT_TOKEN", "chat_id": -100123, "on": ["run-end"]}),
        json!({"type": "notify", "service": "telegram", "url": "http://127.0.0.1:9/", "token_env": "T", "chat_id": "@ops"}),
    ];
    let invalid = [
        json!({"event": "pre-tool-use", "type": "script"}),
        json!({"event": "pre-tool-use", "type": "script", "comand": "x", "command": "y"}),
        json!({"event": "nope", "type": "script", "command": "x"}),
        json!({"event": [], "type": "script", "command": "x"}),
        json!({"type": "script", "command": "x"}),
        json!({"event": "stop", "type": "exec", "command": "x"}),
        json!({"event": "stop", "type": "script", "command": "x", "timeout_ms": 0}),
        json!({"event": "stop", "type": "script", "command": "x", "timeout_ms": 60001}),
        json!({"event": "stop", "type": "script", "command": "x", "enabled": "yes"}),
        json!({"event": "stop", "type": "script", "command": "x", "url": "http://a/"}),
        json!({"event": "stop", "type": "webhook"}),
        json!({"event": "stop", "type": "webhook", "url": "http://a/", "method": "GET"}),
        json!({"event": "stop", "type": "webhook", "url": "http://a/", "retries": 11}),
        json!({"event": "stop", "type": "webhook", "url": "http://a/", "headers": {"A": 1}}),
        json!({"event": "stop", "type": "webhook", "url": "http://a/", "batch_size": 5}),
        json!({"event": "stop", "type": "async_webhook", "url": "http://a/", "batch_size": 0}),
        json!({"event": "stop", "type": "async_webhook", "url": "http://a/", "flush_interval_ms": 5}),
        json!({"event": "stop", "type": "async_webhook"}),
        json!({"event": "stop", "type": "otlp", "url": "http://a/"}),
        json!({"event": "stop", "type": "otlp", "redact": "yes"}),
        json!({"event": "stop", "type": "otlp", "timeout_ms": 50}),
        json!({"type": "notify", "service": "slack"}),
        json!({"type": "notify", "service": "teams", "url": "https://x.example/"}),
        json!({"type": "notify", "service": "slack", "url": "https://x.example/", "on": ["stop"]}),
        json!({"type": "notify", "service": "slack", "url": "https://x.example/", "on": []}),
        json!({"type": "notify", "service": "slack", "url": "https://x.example/", "chat_id": "1"}),
        json!({"type": "notify", "service": "slack", "url": "https://x.example/", "batch_size": 5}),
        json!({"type": "notify", "service": "telegram", "chat_id": 1}),
        json!({"type": "notify", "service": "telegram", "token_env": "T"}),
    ];
    let s = schema("hooks-toml");
    for (entry, want_valid) in valid
        .iter()
        .map(|e| (e, true))
        .chain(invalid.iter().map(|e| (e, false)))
    {
        let doc = json!({"hooks": [entry]});
        let schema_ok = violations(&s, &doc).is_empty();
        let text = toml_entry(entry);
        let (entries, problems) = parse_text(&text);
        let binary_ok =
            entries.len() == 1 && problems.iter().all(|p| p.severity != Severity::Error);
        assert_eq!(
            schema_ok,
            want_valid,
            "schema on {entry}: {:?}",
            violations(&s, &doc)
        );
        assert_eq!(
            binary_ok, want_valid,
            "binary on {entry}:\n{text}\n{problems:?}"
        );
        if want_valid {
            // What the binary hands on (to export) is the entry as written.
            assert_eq!(&entries[0].raw, entry);
        }
    }
}

/// Issue 46: AtomCode's own hooks file, converted by `import-atomcode`: printed without
/// `--write`, appended with it, and the converted script then runs on its hook.
#[test]
fn atomcodes_hooks_file_is_imported_into_the_users_hooks_toml() {
    let s = Setup::new();
    let home = s.config.path().to_path_buf();
    let dir = home.join(".atomcode/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("check.sh"),
        // AtomCode's text answer, read here for a script as AtomCode reads it.
        "cat > /dev/null; echo 'deny: no force push'\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("hooks.toml"),
        "[[hooks]]\nname = \"pre-check\"\ntrigger = \"pre_tool\"\nscript = \"check.sh\"\n\n\
         [[hooks]]\nname = \"sys\"\ntrigger = \"system_prompt\"\nscript = \"p.sh\"\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(crate::common::BIN)
            .args(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &home)
            .env_remove("CLAUDE_PROJECT_DIR")
            .current_dir(s.root())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = run(&["import-atomcode"]);
    assert_has(
        &said,
        "[[hooks]] \"pre-check\": converted to a script entry on pre-tool-use",
    );
    assert_has(&said, "[[hooks]] \"sys\": not converted");
    assert_has(&said, "not written");
    let target = home.join("omc-hooks/hooks.toml");
    assert!(!target.exists(), "nothing written without --write");
    let said = run(&["import-atomcode", "--write"]);
    assert_has(&said, "appended to");
    let out = s.bash("git push --force");
    assert_eq!(
        out.json()["hookSpecificOutput"]["permissionDecisionReason"],
        "no force push",
        "{}",
        out.stdout
    );
}
