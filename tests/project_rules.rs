//! Project rules (contract §9) through the binary: the rules for a file read or edited, given
//! once per session and again after a compaction, per agent — none of the kinds an agent loads
//! by itself.

use crate::common::assert_lacks;
use crate::common::{Hook, Project, payload};
use crate::schema::assert_valid;
use serde_json::{Value, json};

const SID: &str = "rules-1";

fn project() -> Project {
    let p = Project::new();
    let w = |rel: &str, s: &str| {
        let f = p.path().join(rel);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, s).unwrap();
    };
    w(
        ".claude/rules/api.md",
        "---\npaths:\n  - \"src/api/**\"\n---\nCall the v2 client only.\n",
    );
    w(
        ".claude/rules/web.md",
        "---\npaths: \"web/**\"\n---\nNo inline styles.\n",
    );
    w("AGENTS.md", "Run make check before committing.\n");
    w("src/api/AGENTS.md", "Every handler returns a Result.\n");
    w("src/api/handler.py", "x = 1\n");
    std::fs::create_dir_all(p.omc()).unwrap();
    p
}

/// The absolute path of the project's `src/api/handler.py`, which the path rule covers.
fn handler(p: &Project) -> String {
    p.path()
        .join("src/api/handler.py")
        .to_string_lossy()
        .into_owned()
}

/// Codex's shell call of `cmd`, before it runs: the context the hook adds.
fn codex_shell(p: &Project, cmd: &str) -> String {
    let input = json!({ "command": cmd });
    tool(p, "codex", "PreToolUse", "pre-tool-use", "Bash", input)
}

fn tool(p: &Project, agent: &str, event: &str, sub: &str, tool: &str, input: Value) -> String {
    let mut v = payload(event, SID, p.path());
    v["tool_name"] = json!(tool);
    v["tool_input"] = input;
    v["tool_response"] = json!({"llmContent": "ok", "returnDisplay": "ok"});
    let out = Hook::new(sub).agent(agent).cwd(p.path()).payload(v).run();
    out.expect_valid();
    if out.stdout.trim().is_empty() {
        return String::new();
    }
    let j = out.json();
    j["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn gemini_gets_the_path_rule_and_the_agents_files_once_and_again_after_a_compaction() {
    let p = project();
    let file = handler(&p);
    let read = || {
        tool(
            &p,
            "gemini",
            "AfterTool",
            "post-tool-use",
            "read_file",
            json!({"file_path": file}),
        )
    };
    let first = read();
    assert_eq!(
        first,
        "[PROJECT RULE: .claude/rules/api.md, for paths matching src/api/**]\nCall the v2 client only.\n\n\
         [PROJECT RULE: AGENTS.md, for every file]\nRun make check before committing.\n\n\
         [PROJECT RULE: src/api/AGENTS.md, for files under src/api/]\nEvery handler returns a Result."
    );
    assert_eq!(read(), "", "given once per session");
    let given: Value = serde_json::from_slice(
        &std::fs::read(p.session_dir(SID).join("rules-given.json")).unwrap(),
    )
    .unwrap();
    assert_valid("rules-given", &given);
    assert_eq!(given["given"].as_array().unwrap().len(), 3);
    // A file under no rule's paths: only what applies everywhere, already given.
    let other = p.path().join("README.md").to_string_lossy().into_owned();
    assert_eq!(
        tool(
            &p,
            "gemini",
            "AfterTool",
            "post-tool-use",
            "write_file",
            json!({"file_path": other, "content": "x"})
        ),
        ""
    );
    // Gemini's every-turn PreCompress is no compaction; a real one is.
    let mut pc = payload("PreCompress", SID, p.path());
    pc["trigger"] = json!("auto");
    Hook::new("pre-compact")
        .agent("gemini")
        .cwd(p.path())
        .payload(pc)
        .run()
        .expect_valid();
    assert_eq!(read(), "", "an every-turn PreCompress forgets nothing");
    let mut pc = payload("PreCompact", SID, p.path());
    pc["trigger"] = json!("manual");
    Hook::new("pre-compact")
        .cwd(p.path())
        .payload(pc)
        .run()
        .expect_valid();
    assert_eq!(
        read(),
        first,
        "after a compaction the rules are given again"
    );
}

#[test]
fn claude_code_gets_only_what_it_does_not_load_itself() {
    let p = project();
    let file = handler(&p);
    let got = tool(
        &p,
        "claude",
        "PostToolUse",
        "post-tool-use",
        "Edit",
        json!({"file_path": file, "old_string": "x", "new_string": "y"}),
    );
    assert_eq!(
        got,
        "[PROJECT RULE: src/api/AGENTS.md, for files under src/api/]\nEvery handler returns a Result."
    );
}

#[test]
fn a_codex_apply_patch_gets_the_rules_before_it_runs() {
    let p = project();
    let cmd = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/api/handler.py\n@@\n-x = 1\n+x = 2\n*** End Patch\nEOF";
    let got = codex_shell(&p, cmd);
    assert_eq!(
        got,
        "[PROJECT RULE: .claude/rules/api.md, for paths matching src/api/**]\nCall the v2 client only.\n\n\
         [PROJECT RULE: src/api/AGENTS.md, for files under src/api/]\nEvery handler returns a Result."
    );
    // A file outside the project names no rule.
    let out = tool(
        &p,
        "codex",
        "PreToolUse",
        "pre-tool-use",
        "Bash",
        json!({"command": "apply_patch <<'EOF'\n*** Update File: /etc/hosts\nEOF"}),
    );
    assert_eq!(out, "");
}

/// A hostile repository: `docs/AGENTS.md`, `.claude/rules` (or `.claude`) committed as links
/// to files outside the project, and a FIFO `src/AGENTS.md`. Nothing of the targets reaches
/// any agent's answer, the FIFO does not hold the hook, and the project's own rules still do.
#[test]
fn rule_files_that_resolve_outside_the_project_give_nothing() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("environ");
    std::fs::write(&secret, "ANTHROPIC_API_KEY=OUTSIDE-MARKER-4711\n").unwrap();
    let rules = outside.path().join("rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(rules.join("all.md"), "OUTSIDE-MARKER-4712 every file\n").unwrap();
    let dot_claude = outside.path().join("dot-claude");
    std::fs::create_dir_all(dot_claude.join("rules")).unwrap();
    std::fs::write(dot_claude.join("rules/all.md"), "OUTSIDE-MARKER-4713\n").unwrap();

    for claude_link in [false, true] {
        let p = project();
        std::fs::create_dir_all(p.path().join("docs")).unwrap();
        std::fs::write(p.path().join("docs/guide.md"), "x\n").unwrap();
        symlink(&secret, p.path().join("docs/AGENTS.md")).unwrap();
        std::fs::write(p.path().join("src/api/AGENTS.md"), "Inside rule.\n").unwrap();
        if claude_link {
            std::fs::remove_dir_all(p.path().join(".claude")).unwrap();
            symlink(&dot_claude, p.path().join(".claude")).unwrap();
        } else {
            std::fs::remove_dir_all(p.path().join(".claude/rules")).unwrap();
            symlink(&rules, p.path().join(".claude/rules")).unwrap();
        }
        let made = std::process::Command::new("mkfifo")
            .arg(p.path().join("src/AGENTS.md"))
            .status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let abs = |rel: &str| p.path().join(rel).to_string_lossy().into_owned();
        let mut answers = Vec::new();
        for rel in ["docs/guide.md", "src/api/handler.py"] {
            answers.push(tool(
                &p,
                "claude",
                "PostToolUse",
                "post-tool-use",
                "Read",
                json!({"file_path": abs(rel)}),
            ));
            answers.push(tool(
                &p,
                "gemini",
                "AfterTool",
                "post-tool-use",
                "read_file",
                json!({"file_path": abs(rel)}),
            ));
            let cmd = format!("apply_patch <<'EOF'\n*** Update File: {rel}\n@@\n-x\n+y\nEOF");
            answers.push(codex_shell(&p, &cmd));
        }
        let all = answers.join("\n");
        assert_lacks(&all, "OUTSIDE-MARKER");
        assert!(
            all.contains("Inside rule."),
            "the project's own rules still come: {all}"
        );
        for f in p.files().into_iter().filter(|f| f.starts_with(".omc")) {
            let text = std::fs::read(p.path().join(&f)).unwrap_or_default();
            let text = String::from_utf8_lossy(&text);
            assert!(!text.contains("OUTSIDE-MARKER"), "{f}: {text}");
        }
    }
}
