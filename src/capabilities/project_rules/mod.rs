//! Project rules in every agent (contract §9): when a tool reads or edits a file, the rules
//! that apply to its path are given to the model — Claude Code's own format,
//! `.claude/rules/*.md` (a `paths:` glob list in the front matter; none means every file), and
//! the `AGENTS.md` files of the file's directory and the ones above it up to the project.
//! Each rule is given once per session, by the hash of its content (a changed rule is given
//! again), and again after a compaction, which drops what the model was told.
//!
//! An agent that loads a kind of rule file by itself gets none of that kind from us
//! (`Agent::loads_claude_rules`, `Agent::loads_root_agents_md`, as each pinned client was
//! seen to do: the FINDINGS files, "Project rules").
//!
//! The file is seen on the post-tool event of a read or an edit (Claude Code's Read, Edit,
//! Write, MultiEdit; Gemini's and Qwen's `read_file`, `replace`/`edit`, `write_file`). Codex
//! 0.169.0 offers no edit tool: its model edits with `apply_patch` through the shell, which
//! fires PreToolUse (Bash) and no post-tool event (codex-FINDINGS.md §15), so the files a
//! patch names are read from the patch there, on agents that show pre-tool context.

mod find;

use super::Ctx;
use crate::protocol::Answer;
use crate::state::StateFile;
use std::path::{Path, PathBuf};

/// The session's record of the rules it was given.
pub const FILE: &str = "rules-given.json";

const RULE: &str = include_str!("../../../templates/project-rules/rule.md");

/// Tools that read or edit one file, named by `file_path` (or `path`, `absolute_path`).
const FILE_TOOLS: [&str; 5] = ["Read", "Edit", "Write", "MultiEdit", "NotebookEdit"];

/// PostToolUse: the rules for the file the tool read or wrote.
pub fn on_post_tool_use(ctx: &Ctx<'_>) -> Answer {
    let input = ctx.input;
    if !input
        .tool_name
        .as_deref()
        .is_some_and(|t| FILE_TOOLS.contains(&t))
    {
        return Answer::default();
    }
    let path = ["file_path", "path", "absolute_path", "notebook_path"]
        .iter()
        .find_map(|k| input.tool_input_str(k));
    match path {
        Some(p) => give(ctx, &[p.to_string()]),
        None => Answer::default(),
    }
}

/// PreToolUse: the files an `apply_patch` shell command will change (Codex edits that way).
pub fn on_pre_tool_use(ctx: &Ctx<'_>) -> Answer {
    let input = ctx.input;
    if input.tool_name.as_deref() != Some("Bash") || !input.agent.shows_pre_tool_context() {
        return Answer::default();
    }
    let Some(command) = input.tool_input_str("command") else {
        return Answer::default();
    };
    let files = patched_files(command);
    if files.is_empty() {
        return Answer::default();
    }
    give(ctx, &files)
}

/// PreCompact: what the model was told is summarised away; give the rules again.
pub fn forget(ctx: &Ctx<'_>) -> Answer {
    // Gemini CLI fires PreCompress before every model call, compaction or not.
    if ctx.input.compaction_uncertain {
        return Answer::default();
    }
    if let (Some(store), Some(file)) = (&ctx.store, StateFile::new(&ctx.scope, FILE))
        && store.path(&file).exists()
        && let Err(e) = store.remove(&file)
    {
        crate::diag!("project rules: cannot forget what was given: {e}");
    }
    Answer::default()
}

/// The files an `apply_patch` patch names (`*** Update File: p`, `*** Add File: p`,
/// `*** Move to: p`).
pub fn patched_files(command: &str) -> Vec<String> {
    if !command.trim_start().starts_with("apply_patch") {
        return Vec::new();
    }
    command
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            ["*** Update File: ", "*** Add File: ", "*** Move to: "]
                .iter()
                .find_map(|p| l.strip_prefix(p))
                .map(|p| p.trim().to_string())
        })
        .filter(|p| !p.is_empty())
        .collect()
}

fn give(ctx: &Ctx<'_>, paths: &[String]) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let project = store.project();
    let base = ctx
        .input
        .cwd
        .as_deref()
        .map_or_else(|| project.to_path_buf(), PathBuf::from);
    let agent = ctx.input.agent;
    let mut rules = Vec::new();
    for p in paths {
        let Some(rel) = inside(project, &base, p) else {
            continue;
        };
        for rule in find::rules_for(
            project,
            &rel,
            !agent.loads_claude_rules(),
            !agent.loads_root_agents_md(),
        ) {
            if !rules.iter().any(|r: &find::Rule| r.hash == rule.hash) {
                rules.push(rule);
            }
        }
    }
    if rules.is_empty() {
        return Answer::default();
    }
    let Some(file) = StateFile::new(&ctx.scope, FILE) else {
        return Answer::default();
    };
    // Remember first, under the lock, so parallel hooks give each rule once.
    let fresh = super::given::once(
        store,
        &file,
        &rules,
        |r| r.hash.clone(),
        usize::MAX,
        "project rules",
    );
    if fresh.is_empty() {
        return Answer::default();
    }
    let text: Vec<String> = fresh
        .iter()
        .map(|r| {
            crate::modes::fill(
                RULE,
                &[
                    ("source", &r.source),
                    ("applies", &r.applies),
                    ("body", r.body.trim()),
                ],
            )
            .trim_end()
            .to_string()
        })
        .collect();
    Answer::context(text.join("\n\n"))
}

/// `p` (absolute, or relative to `base`) relative to the project, if it lies inside it.
fn inside(project: &Path, base: &Path, p: &str) -> Option<String> {
    let path = Path::new(p);
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let rel = abs
        .strip_prefix(project)
        .ok()
        .map(Path::to_path_buf)
        .or_else(|| {
            let (a, b) = (
                std::fs::canonicalize(project).ok()?,
                canonical_parent(&abs)?,
            );
            b.strip_prefix(&a).ok().map(Path::to_path_buf)
        })?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The canonical path of a file that may not exist yet (its parent's, plus its name).
fn canonical_parent(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok().or_else(|| {
        Some(
            std::fs::canonicalize(p.parent()?)
                .ok()?
                .join(p.file_name()?),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_names_its_files() {
        let cmd = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/api/handler.py\n@@\n-x = 1\n+x = 2\n*** Add File: src/new.rs\n+fn f() {}\n*** End Patch\nEOF";
        assert_eq!(patched_files(cmd), vec!["src/api/handler.py", "src/new.rs"]);
        assert!(patched_files("cat src/api/handler.py").is_empty());
    }

    #[test]
    fn only_paths_inside_the_project_count() {
        let p = Path::new("/p");
        assert_eq!(inside(p, p, "src/a.rs").as_deref(), Some("src/a.rs"));
        assert_eq!(
            inside(p, Path::new("/p/src"), "a.rs").as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(inside(p, p, "/etc/passwd"), None);
        assert_eq!(inside(p, p, "../x/a.rs"), None);
    }
}
