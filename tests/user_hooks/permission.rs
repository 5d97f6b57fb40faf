//! Permission requests (`permission-request`): only the person's own entries answer them.

use super::{Setup, q};
use serde_json::{Value, json};

fn entry(matcher: &str, command: &str, extra: &str) -> String {
    format!(
        "[[hooks]]\nevent = \"permission-request\"\nmatcher = {}\ntype = \"script\"\ncommand = {}\n{extra}\n",
        q(matcher),
        q(command)
    )
}

fn ask(s: &Setup, tool: &str, input: Value) -> crate::common::Outcome {
    s.run(
        "permission-request",
        "PermissionRequest",
        json!({"tool_name": tool, "tool_input": input,
               "permission_suggestions": [{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],
                                           "behavior":"allow","destination":"localSettings"}]}),
    )
}

#[test]
fn an_entry_that_allows_answers_allow_for_its_tool_only() {
    let s = Setup::new();
    s.user_hooks(&entry(
        "Bash",
        r#"cat > in.json; echo '{"action":"allow"}'"#,
        "",
    ));
    let out = ask(&s, "Bash", json!({"command": "ls -la"}));
    assert_eq!(
        out.json(),
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
                                     "decision":{"behavior":"allow"}}}),
        "{}",
        out.stderr
    );
    // The script saw the suggestions the client offered.
    let seen: Value =
        serde_json::from_slice(&std::fs::read(s.root().join("in.json")).unwrap()).unwrap();
    assert_eq!(seen["event"], "permission-request");
    assert_eq!(
        seen["permission_suggestions"][0]["rules"][0]["ruleContent"],
        "ls:*"
    );
    // Another tool: the entry is not asked, and nothing answers.
    ask(&s, "Write", json!({"file_path": "/x", "content": ""})).expect_noop();
}

#[test]
fn a_block_denies_with_its_reason_and_interrupts_when_the_entry_says_so() {
    let s = Setup::new();
    s.user_hooks(&entry(
        "Bash",
        r#"cat > /dev/null; echo '{"action":"block","reason":"not on prod"}'"#,
        "interrupt = true",
    ));
    let out = ask(&s, "Bash", json!({"command": "rm -rf /srv"}));
    assert_eq!(
        out.json()["hookSpecificOutput"]["decision"],
        json!({"behavior":"deny","message":"not on prod","interrupt":true})
    );
    let s = Setup::new();
    s.user_hooks(&entry(
        "Bash",
        r#"cat > /dev/null; echo '{"action":"block","reason":"no"}'"#,
        "",
    ));
    let out = ask(&s, "Bash", json!({"command": "rm -rf /srv"}));
    assert_eq!(
        out.json()["hookSpecificOutput"]["decision"],
        json!({"behavior":"deny","message":"no"})
    );
}

/// Issue 46: "always allow" from an entry's answer. A script answering `updated_permissions`
/// (here, echoing the client's own suggestion) has them passed to Claude Code as
/// `updatedPermissions` with the allow; a list that is not one is a broken answer (no opinion).
#[test]
fn an_allow_with_updated_permissions_passes_them_to_claude_code() {
    let s = Setup::new();
    s.user_hooks(&entry(
        "Bash",
        r#"cat > /dev/null; echo '{"action":"allow","updated_permissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],"behavior":"allow","destination":"localSettings"}]}'"#,
        "",
    ));
    let out = ask(&s, "Bash", json!({"command": "ls -la"}));
    assert_eq!(
        out.json(),
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
               "decision":{"behavior":"allow","updatedPermissions":[
                   {"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],
                    "behavior":"allow","destination":"localSettings"}]}}}),
        "{}",
        out.stderr
    );
    let s = Setup::new();
    s.user_hooks(&entry(
        "Bash",
        r#"cat > /dev/null; echo '{"action":"allow","updatedPermissions":"always"}'"#,
        "",
    ));
    ask(&s, "Bash", json!({"command": "ls"})).expect_noop();
    // A script written for Claude Code's own PermissionRequest hook, answering in its shape.
    let s = Setup::new();
    s.user_hooks(&entry(
        "Bash",
        r#"cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}]}}}'"#,
        "",
    ));
    assert_eq!(
        ask(&s, "Bash", json!({"command": "ls"})).json()["hookSpecificOutput"]["decision"],
        json!({"behavior":"allow","updatedPermissions":[
            {"type":"setMode","mode":"acceptEdits","destination":"session"}]})
    );
    // AtomCode's text `ok` is read for other events, never as an approval here.
    let s = Setup::new();
    s.user_hooks(&entry("Bash", "cat > /dev/null; echo ok", ""));
    ask(&s, "Bash", json!({"command": "ls"})).expect_noop();
}

#[test]
fn a_modify_allows_with_the_new_input() {
    let s = Setup::new();
    s.user_hooks(&entry(
        "*",
        r#"cat > /dev/null; echo '{"action":"modify","tool_input":{"command":"ls"}}'"#,
        "",
    ));
    let out = ask(&s, "Bash", json!({"command": "ls -la"}));
    assert_eq!(
        out.json()["hookSpecificOutput"]["decision"],
        json!({"behavior":"allow","updatedInput":{"command":"ls"}})
    );
}

#[test]
fn nothing_answers_without_an_entry_that_names_the_event() {
    let s = Setup::new();
    // No hooks.toml at all: the person is asked.
    ask(&s, "Bash", json!({"command": "git status"})).expect_noop();
    // A catch-all entry for every event, and a script that prints nothing: no approval.
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"*\"\ntype = \"script\"\ncommand = {}\n\n{}",
        q(r#"cat > /dev/null; echo '{"action":"allow"}'"#),
        entry("Bash", "cat > /dev/null", "")
    ));
    ask(&s, "Bash", json!({"command": "git status"})).expect_noop();
}

#[test]
fn codex_gets_allow_or_deny_without_the_fields_it_refuses() {
    let s = Setup::new();
    s.user_hooks(&entry(
        "Bash",
        r#"cat > /dev/null; echo '{"action":"block","reason":"no"}'"#,
        "interrupt = true",
    ));
    let mut p = crate::common::payload("PermissionRequest", super::SID, s.root());
    p["turn_id"] = json!("t1");
    p["model"] = json!("m");
    p["tool_name"] = json!("Bash");
    p["tool_input"] = json!({"command": "rm -rf /srv"});
    let out = s.hook("permission-request").agent("codex").payload(p).run();
    out.expect_valid();
    assert_eq!(
        out.json(),
        json!({"hookSpecificOutput":{"hookEventName":"PermissionRequest",
                                     "decision":{"behavior":"deny","message":"no"}}})
    );
}
