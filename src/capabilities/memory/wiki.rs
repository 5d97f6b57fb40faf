//! `.omc/wiki/`: the project's wiki of Markdown pages (as OMC's wiki hooks keep it). At every
//! session start — after a compaction too, which is how it is kept through one — the model is
//! told the wiki is there: how many pages, and the first [`MAX_INDEX_LINES`] lines of its
//! `index.md` (else the page names). Only the folder's own `*.md` files count; nothing is
//! written.

use super::render;
use crate::state::{Scope, StateFile, Store};

/// `.omc/wiki/`.
pub const DIR: &str = "wiki";
/// The index's lines shown at most.
pub const MAX_INDEX_LINES: usize = 30;
/// A line of the index is cut to this many characters.
const MAX_LINE_CHARS: usize = 200;

const SECTION: &str = include_str!("../../../templates/memory/wiki.md");

/// The wiki's section of the session-start context, or `None` without pages.
pub fn section(store: &Store) -> Option<String> {
    let pages: Vec<String> = store
        .list(&Scope::Omc, Some(DIR))
        .into_iter()
        .filter(|n| n.ends_with(".md"))
        .collect();
    if pages.is_empty() {
        return None;
    }
    let index = pages
        .iter()
        .any(|p| p == "index.md")
        .then(|| store.read_text(&StateFile::nested(&Scope::Omc, DIR, "index.md")?))
        .flatten()
        .filter(|t| !t.trim().is_empty());
    let lines: Vec<String> = match index {
        Some(text) => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(MAX_INDEX_LINES)
            .map(|l| l.chars().take(MAX_LINE_CHARS).collect())
            .collect(),
        None => pages
            .iter()
            .take(MAX_INDEX_LINES)
            .map(|p| format!("- {p}"))
            .collect(),
    };
    Some(
        render(
            SECTION.trim_end(),
            &[
                ("count", &pages.len().to_string()),
                ("index", &lines.join("\n")),
            ],
        )
        .trim_end()
        .to_string(),
    )
}
