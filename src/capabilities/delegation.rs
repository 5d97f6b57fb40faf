//! The delegation reminder (contract §6), off unless `.omc/config.json` says
//! `"delegation": {"enforce": true}`: in a `team` or `autopilot` run the main agent
//! orchestrates, so when it writes a source file itself (Write, Edit, MultiEdit, NotebookEdit,
//! or the agent's own edit tools arriving under those names) it is reminded, once per file and
//! session, to hand the work to a subagent. A subagent's own writes (payloads that carry an
//! `agent_id`) are its job; state and instruction files — under `.omc/` or `.claude/`,
//! `CLAUDE.md`, `AGENTS.md` — are never flagged, nor is anything that is not source code.

use super::Ctx;
use crate::modes::state_file_name;
use crate::protocol::Answer;
use crate::state::files::ModeState;
use crate::state::{Change, StateFile};
use serde::{Deserialize, Serialize};

/// The files the session was reminded about.
pub const FILE: &str = "delegation-reminded.json";

/// The runs in which the main agent orchestrates.
const ORCHESTRATED: [&str; 2] = ["team", "autopilot"];
/// Source files, by extension (the set oh-my-claudecode's orchestrator warns on).
const SOURCE: [&str; 28] = [
    "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "pyw", "go", "rs", "java", "kt", "scala", "c",
    "cpp", "cc", "h", "hpp", "rb", "php", "svelte", "vue", "graphql", "gql", "sh", "bash", "zsh",
    "swift",
];
const MAX_REMEMBERED: usize = 200;
const REMINDER: &str = include_str!("../../templates/delegation/reminder.md");

#[derive(Debug, Default, Serialize, Deserialize)]
struct Reminded {
    #[serde(default)]
    schema_version: u32,
    #[serde(default)]
    files: Vec<String>,
}

/// PostToolUse of a write by the main agent in an orchestrated run.
pub fn on_post_tool_use(ctx: &Ctx<'_>) -> Answer {
    let input = ctx.input;
    if ctx
        .config
        .get("delegation/enforce")
        .and_then(|v| v.as_bool())
        != Some(true)
        || input.agent_id.is_some()
        || !input
            .tool_name
            .as_deref()
            .is_some_and(|t| ["Write", "Edit", "MultiEdit", "NotebookEdit"].contains(&t))
    {
        return Answer::default();
    }
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let Some(path) = ["file_path", "notebook_path", "path"]
        .iter()
        .find_map(|k| input.tool_input_str(k))
    else {
        return Answer::default();
    };
    let rel = relative(path, store.project());
    if !flagged(&rel) {
        return Answer::default();
    }
    let Some(mode) = ORCHESTRATED.iter().find(|m| {
        StateFile::new(&ctx.scope, &state_file_name(m))
            .and_then(|f| store.read::<ModeState>(&f))
            .is_some_and(|s| s.active && s.suspended_at.is_none())
    }) else {
        return Answer::default();
    };
    let Some(file) = StateFile::new(&ctx.scope, FILE) else {
        return Answer::default();
    };
    let first = store.update(&file, |r: Option<Reminded>| {
        let mut r = r.unwrap_or_default();
        if r.files.contains(&rel) {
            return (Change::Keep, false);
        }
        r.schema_version = crate::state::files::SCHEMA_VERSION;
        r.files.push(rel.clone());
        let over = r.files.len().saturating_sub(MAX_REMEMBERED);
        r.files.drain(..over);
        (Change::Write(r), true)
    });
    match first {
        Ok(true) => Answer::context(
            crate::modes::fill(REMINDER, &[("mode", mode), ("file", &rel)])
                .trim_end()
                .to_string(),
        ),
        Ok(false) => Answer::default(),
        Err(e) => {
            crate::diag!("delegation: cannot record the reminder: {e}; not reminding");
            Answer::default()
        }
    }
}

/// `path` relative to the project when inside it, else as given, with `/` separators.
fn relative(path: &str, project: &std::path::Path) -> String {
    let p = std::path::Path::new(path);
    p.strip_prefix(project)
        .unwrap_or(p)
        .to_string_lossy()
        .trim_start_matches("./")
        .to_string()
}

/// Whether writing `rel` is implementation work the orchestrator should hand off.
pub fn flagged(rel: &str) -> bool {
    let rel = rel.replace('\\', "/");
    let name = rel.rsplit('/').next().unwrap_or(&rel);
    let exempt = rel.starts_with(".omc/")
        || rel.starts_with(".claude/")
        || rel.contains("/.omc/")
        || rel.contains("/.claude/")
        || name == "CLAUDE.md"
        || name == "AGENTS.md";
    let source = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && SOURCE.contains(&ext.to_ascii_lowercase().as_str())
    });
    !exempt && source
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_files_are_flagged_and_state_and_instructions_never() {
        assert!(flagged("src/main.rs"));
        assert!(flagged("web/App.tsx"));
        assert!(!flagged(".omc/notepad.md"));
        assert!(!flagged(".claude/hooks/x.sh"));
        assert!(!flagged("/home/u/.claude/settings.sh"));
        assert!(!flagged("CLAUDE.md"));
        assert!(!flagged("docs/AGENTS.md"));
        assert!(!flagged("README.md"));
        assert!(!flagged("Cargo.toml"));
    }
}
