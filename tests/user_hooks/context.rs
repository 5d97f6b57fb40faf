//! What a hook's entry adds for the model (`additional_context`, AtomCode's template) and what
//! a script learns of the session beside the payload (`turn_number`, `tokens_used`, …).

use super::{Setup, q};
use crate::common::assert_has;
use serde_json::{Value, json};

#[test]
fn a_context_template_reaches_the_model_with_the_tool_and_its_input() {
    let s = Setup::new();
    s.user_hooks(
        "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Bash\"\n\
         additional_context = \"Tool: {{tool_name}} args: {{tool_args}}\"\n",
    );
    let out = s.bash("ls -la /srv");
    let ctx = out.context();
    assert!(ctx.contains("Tool: Bash"), "{}\n{}", out.stdout, out.stderr);
    assert_has(&ctx, "ls -la /srv");
    // The same as a script without a command.
    let t = Setup::new();
    t.user_hooks(
        "[[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\n\
         additional_context = \"Tool: {{tool_name}}\"\n",
    );
    assert!(t.bash("ls").context().contains("Tool: Bash"));
    // The matcher holds: another tool gets nothing.
    s.run(
        "pre-tool-use",
        "PreToolUse",
        json!({"tool_name": "Read", "tool_input": {"file_path": "/x"}}),
    )
    .expect_noop();
}

#[test]
fn a_template_beside_a_script_comes_with_the_scripts_own_answer() {
    let s = Setup::new();
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"pre-tool-use\"\nmatcher = \"Bash\"\ntype = \"script\"\n\
         command = {}\nadditional_context = \"checked {{{{tool_name}}}} at turn {{{{turn_number}}}}\"\n",
        q(r#"cat > /dev/null; echo '{"action":"modify","context":"from the script"}'"#)
    ));
    let out = s.bash("ls");
    let ctx = out.context();
    out.expect_context("checked Bash at turn");
    assert_has(&ctx, "from the script");
    // Not an unknown key: nothing said about a disabled entry.
    assert!(!out.stderr.contains("disabled"), "{}", out.stderr);
}

#[test]
fn a_script_gets_the_turn_the_tokens_the_edits_and_the_time() {
    let s = Setup::new();
    std::fs::write(
        s.root().join("transcript.jsonl"),
        concat!(
            r#"{"type":"user","message":{"content":"first"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":20,"cache_read_input_tokens":100}}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":20,"cache_read_input_tokens":100}}}"#,
            "\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"ok"}]}}"#,
            "\n",
            r#"{"type":"user","message":{"content":"second"}}"#,
            "\n",
            r#"{"type":"assistant","message":{"id":"m2","model":"x","usage":{"input_tokens":1,"output_tokens":2}}}"#,
            "\n",
        ),
    )
    .unwrap();
    // An edit this session, recorded by the memory capability.
    s.run(
        "post-tool-use",
        "PostToolUse",
        json!({"tool_name": "Edit", "tool_input": {"file_path": s.root().join("src/a.rs"),
               "old_string": "a", "new_string": "b"}, "tool_response": {}}),
    );
    s.user_hooks(&format!(
        "[[hooks]]\nevent = [\"pre-tool-use\", \"user-prompt-submit\"]\ntype = \"script\"\ncommand = {}\n",
        q("cat > \"in-$OMC_HOOK_EVENT.json\"")
    ));
    s.bash("ls");
    let read = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(s.root().join(name)).unwrap()).unwrap()
    };
    let seen = read("in-pre-tool-use.json");
    assert_eq!(seen["turn_number"], 2, "{seen}");
    assert_eq!(seen["tokens_used"], 138);
    assert_eq!(
        seen["edited_files"],
        json!([s.root().join("src/a.rs").to_string_lossy()])
    );
    assert_eq!(seen["truncated"], false);
    // Issue 46: the model (the transcript's latest) and its provider (none the table knows).
    assert_eq!(seen["model_name"], "x", "{seen}");
    assert_eq!(seen["provider_name"], Value::Null, "{seen}");
    let ts = seen["timestamp"].as_str().unwrap();
    assert!(
        ts.len() >= 20 && ts.ends_with('Z') && ts.as_bytes()[10] == b'T',
        "{ts}"
    );
    // The prompt being submitted counts as this turn.
    s.run(
        "user-prompt-submit",
        "UserPromptSubmit",
        json!({"prompt": "third"}),
    );
    assert_eq!(read("in-user-prompt-submit.json")["turn_number"], 3);
    // The payload's own `model` comes first, and names its provider.
    s.run(
        "user-prompt-submit",
        "UserPromptSubmit",
        json!({"prompt": "fourth", "model": "claude-sonnet-4-5"}),
    );
    let seen = read("in-user-prompt-submit.json");
    assert_eq!(seen["model_name"], "claude-sonnet-4-5", "{seen}");
    assert_eq!(seen["provider_name"], "anthropic", "{seen}");
    // No transcript: unknown, said as null.
    std::fs::remove_file(s.root().join("transcript.jsonl")).unwrap();
    s.bash("ls");
    let seen = read("in-pre-tool-use.json");
    assert_eq!(seen["turn_number"], Value::Null);
    assert_eq!(seen["tokens_used"], Value::Null);
}

#[test]
fn a_compacted_session_says_truncated() {
    let s = Setup::new();
    s.run("pre-compact", "PreCompact", json!({"trigger": "auto"}));
    s.user_hooks(&format!(
        "[[hooks]]\nevent = \"pre-tool-use\"\ntype = \"script\"\ncommand = {}\n",
        q("cat > in.json")
    ));
    s.bash("ls");
    let seen: Value =
        serde_json::from_slice(&std::fs::read(s.root().join("in.json")).unwrap()).unwrap();
    assert_eq!(seen["truncated"], true, "{seen}");
}
