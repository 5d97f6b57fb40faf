//! Deliverables (contract §6, subagents): when a subagent stops, the files its task said it
//! would produce — paths its prompt names as outputs ("write the report to `docs/audit.md`",
//! "Output: `out/data.json`") — are checked to exist and be non-empty, and the parent is told
//! which are missing.
//!
//! The task is the first user message of the subagent's own transcript
//! (`agent_transcript_path` of SubagentStop, Claude Code's; tests/e2e/FINDINGS.md §5). Context
//! answered on SubagentStop would go to the subagent that is stopping, so the finding waits in
//! `deliverables.json` and is told to the parent on its next event that shows it context: the
//! Agent tool's PostToolUse (a subagent run in the foreground) or the prompt that brings the
//! background subagent's result (`<task-notification>`). An agent whose payload names no
//! subagent transcript is not checked.

use super::Ctx;
use crate::protocol::Answer;
use crate::state::{Change, StateFile};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The session's pending findings.
pub const FILE: &str = "deliverables.json";

/// How much of the subagent's transcript is read to find its task.
const HEAD_BYTES: u64 = 256 * 1024;
/// How long SubagentStop waits for the task to be in the transcript, and how often it looks
/// (the hook's deadline is 2.5 s; a task already written costs no wait).
const TASK_WAIT: std::time::Duration = std::time::Duration::from_millis(500);
const TASK_POLL: std::time::Duration = std::time::Duration::from_millis(25);
/// The most output paths taken from one task.
const MAX_PATHS: usize = 20;
/// The most findings kept waiting for the parent.
const MAX_PENDING: usize = 20;

const MISSING: &str = include_str!("../../templates/deliverables/missing.md");

/// `deliverables.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Pending {
    #[serde(default)]
    schema_version: u32,
    #[serde(default)]
    findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Finding {
    agent_type: String,
    /// Paths as the task named them.
    missing: Vec<String>,
    expected: usize,
}

/// Words that, before a path in the same sentence, make it something to produce.
const VERBS: [&str; 14] = [
    "write", "writes", "save", "create", "produce", "generate", "output", "export", "store",
    "emit", "put", "deliver", "dump", "record",
];
/// Words that, after a verb, introduce an input instead (`create a summary of src/a.rs`).
const INPUT_WORDS: [&str; 7] = ["from", "of", "in", "read", "reading", "using", "based"];

/// SubagentStop: checks the task's outputs and keeps what is missing for the parent.
pub fn on_subagent_stop(ctx: &Ctx<'_>) -> Answer {
    let (Some(store), Some(transcript)) = (&ctx.store, ctx.input.agent_transcript_path.as_deref())
    else {
        return Answer::default();
    };
    let Some(task) = task_of(transcript) else {
        return Answer::default();
    };
    let outputs = output_paths(&task);
    if outputs.is_empty() {
        return Answer::default();
    }
    let base = ctx
        .input
        .cwd
        .as_deref()
        .map_or_else(|| store.project().to_path_buf(), PathBuf::from);
    let missing: Vec<String> = outputs
        .iter()
        .filter(|p| !delivered(store.project(), &base, p))
        .cloned()
        .collect();
    if missing.is_empty() {
        return Answer::default();
    }
    let finding = Finding {
        agent_type: ctx
            .input
            .agent_type
            .clone()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "subagent".into()),
        missing,
        expected: outputs.len(),
    };
    if let Some(file) = StateFile::new(&ctx.scope, FILE) {
        let r = store.update(&file, |p: Option<Pending>| {
            let mut p = p.unwrap_or_default();
            p.schema_version = crate::state::files::SCHEMA_VERSION;
            p.findings.push(finding);
            let over = p.findings.len().saturating_sub(MAX_PENDING);
            p.findings.drain(..over);
            (Change::Write(p), ())
        });
        if let Err(e) = r {
            crate::diag!("deliverables: cannot keep the finding for the parent: {e}");
        }
    }
    Answer::default()
}

/// The subagent's task: the first user message of its transcript. Claude Code 2.1.328 may
/// fire SubagentStop before that line is in the file (seen in about one run in three of
/// `e2e_lifecycle::claude_code_the_parent_is_told_…`), so an absent task is looked for again,
/// every [`TASK_POLL`], for at most [`TASK_WAIT`].
fn task_of(transcript: &str) -> Option<String> {
    let started = std::time::Instant::now();
    loop {
        let task = crate::state::transcript::head(transcript, HEAD_BYTES)
            .and_then(|h| crate::state::transcript::first_user_text(&h));
        if task.is_some() || started.elapsed() >= TASK_WAIT {
            return task;
        }
        std::thread::sleep(TASK_POLL);
    }
}

/// The parent's next PostToolUse (its own, not a subagent's) or prompt: what is missing.
pub fn tell_parent(ctx: &Ctx<'_>) -> Answer {
    if ctx.input.agent_id.is_some() {
        return Answer::default();
    }
    let (Some(store), Some(file)) = (&ctx.store, StateFile::new(&ctx.scope, FILE)) else {
        return Answer::default();
    };
    if !store.path(&file).exists() {
        return Answer::default();
    }
    let taken = store.update(&file, |p: Option<Pending>| match p {
        Some(p) if !p.findings.is_empty() => (Change::Remove, p.findings),
        _ => (Change::Keep, Vec::new()),
    });
    let findings = match taken {
        Ok(f) => f,
        Err(e) => {
            crate::diag!("deliverables: cannot read the findings: {e}");
            return Answer::default();
        }
    };
    if findings.is_empty() {
        return Answer::default();
    }
    let text: Vec<String> = findings
        .iter()
        .map(|f| {
            let list: Vec<String> = f.missing.iter().map(|p| format!("`{p}`")).collect();
            crate::modes::fill(
                MISSING,
                &[
                    ("agent", &f.agent_type),
                    ("missing", &list.join(", ")),
                    ("count", &f.missing.len().to_string()),
                    ("expected", &f.expected.to_string()),
                ],
            )
            .trim_end()
            .to_string()
        })
        .collect();
    Answer::context(text.join("\n"))
}

/// Whether `p` (relative to `base`, or absolute inside the project) is a non-empty file. A
/// path outside the project, or with `..`, counts as delivered: it is not ours to judge.
fn delivered(project: &Path, base: &Path, p: &str) -> bool {
    let path = Path::new(p);
    if path
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return true;
    }
    let abs = if path.is_absolute() {
        if !path.starts_with(project) {
            return true;
        }
        path.to_path_buf()
    } else {
        base.join(path)
    };
    std::fs::metadata(abs).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// The paths a task names as its outputs: in a sentence with a verb of producing before it
/// (and no input word between), or on a line labelled `Output(s):` / `Deliverable(s):` /
/// `Write to:` / `Save to:`.
pub fn output_paths(task: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in task.lines() {
        let lower = line.trim().to_ascii_lowercase();
        let labelled = [
            "output:",
            "outputs:",
            "deliverable:",
            "deliverables:",
            "write to:",
            "save to:",
            "output file:",
            "output files:",
        ]
        .iter()
        .any(|l| lower.trim_start_matches(['-', '*', ' ']).starts_with(l));
        for sentence in split_sentences(line) {
            let words: Vec<&str> = sentence.split_whitespace().collect();
            let mut armed = labelled;
            for w in &words {
                let bare = w
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_ascii_lowercase();
                if VERBS.contains(&bare.as_str()) {
                    armed = true;
                    continue;
                }
                if INPUT_WORDS.contains(&bare.as_str()) && !labelled {
                    armed = false;
                    continue;
                }
                if armed
                    && let Some(p) = as_path(w)
                    && !out.contains(&p)
                {
                    out.push(p);
                }
            }
        }
    }
    out.truncate(MAX_PATHS);
    out
}

/// Sentences of a line: split at `. ` / `; ` / `! ` / `? ` (a dot inside a file name is not a
/// sentence end).
fn split_sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = line.as_bytes();
    for i in 0..b.len() {
        if matches!(b[i], b'.' | b';' | b'!' | b'?') && b.get(i + 1).is_none_or(|c| *c == b' ') {
            out.push(&line[start..i]);
            start = i + 1;
        }
    }
    out.push(&line[start..]);
    out
}

/// A word that names a file: backticked or bare, with a `/` or an extension, not a URL, not a
/// glob.
fn as_path(word: &str) -> Option<String> {
    let w = word.trim_matches(|c: char| {
        matches!(
            c,
            '`' | '"' | '\'' | '(' | ')' | ',' | ':' | '*' | '[' | ']' | '<' | '>'
        )
    });
    let w = w.trim_end_matches(['.', ',', ';', ':']);
    if w.len() < 3
        || w.contains("://")
        || w.contains(['*', '?', '{', '$', '='])
        || w.starts_with('-')
    {
        return None;
    }
    let name = w.rsplit('/').next().unwrap_or(w);
    let ext = name.rsplit_once('.');
    let has_ext = ext.is_some_and(|(stem, e)| {
        !stem.is_empty()
            && (1..=8).contains(&e.len())
            && e.chars().all(|c| c.is_ascii_alphanumeric())
            && e.chars().any(|c| c.is_ascii_alphabetic())
    });
    (has_ext
        && w.chars()
            .all(|c| c.is_alphanumeric() || "/._-~".contains(c)))
    .then(|| w.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_told_from_inputs() {
        assert_eq!(
            output_paths("Read src/lib.rs and write the summary to `docs/summary.md`."),
            vec!["docs/summary.md"]
        );
        assert_eq!(
            output_paths("Create a report of src/main.rs in reports/main.txt"),
            Vec::<String>::new(),
            "\"of\" and \"in\" introduce inputs"
        );
        assert_eq!(
            output_paths(
                "Audit the API.\nOutputs: out/findings.json, out/summary.md\nDo not edit src/api.rs."
            ),
            vec!["out/findings.json", "out/summary.md"]
        );
        assert_eq!(
            output_paths(
                "Save the results as results.csv; see https://x.io/a.html for the format."
            ),
            vec!["results.csv"]
        );
        assert!(output_paths("Look at Cargo.toml and tell me the version.").is_empty());
        assert!(output_paths("Write tests for src/*.rs").is_empty());
    }
}
