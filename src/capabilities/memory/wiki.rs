//! `.omc/wiki/`: the project's wiki of Markdown pages (as OMC's wiki hooks keep it). At every
//! session start — after a compaction too, which is how it is kept through one — the model is
//! told the wiki is there: how many pages (subfolders' pages counted), the first
//! [`MAX_INDEX_LINES`] lines of its `index.md` (else the page names), and the pages in
//! subfolders by name, so a page the index does not list is not invisible. Pages are listed
//! through the state module (no symlink followed); nothing is written.
//!
//! The seed also gives the pages relevant to the session's prompt; a SessionStart has no
//! prompt yet, so that part is not done here (the model reads a named page when the work
//! touches it).

use super::render;
use crate::state::{Scope, StateFile, Store};

/// `.omc/wiki/`.
pub const DIR: &str = "wiki";
/// The index's lines shown at most.
pub const MAX_INDEX_LINES: usize = 30;
/// A line of the index is cut to this many characters.
const MAX_LINE_CHARS: usize = 200;
/// Subfolders are listed this deep.
const MAX_DEPTH: usize = 4;
/// At most this many pages are counted (a wiki larger than this is said to have "500+").
const MAX_PAGES: usize = 500;
/// At most this many pages of subfolders are named beside the index.
const MAX_NAMED: usize = 30;

const SECTION: &str = include_str!("../../../templates/memory/wiki.md");

/// The wiki's section of the session-start context, or `None` without pages.
pub fn section(store: &Store) -> Option<String> {
    let pages = store.person_tree(DIR, ".md", MAX_DEPTH, MAX_PAGES);
    if pages.is_empty() {
        return None;
    }
    let index = pages
        .iter()
        .any(|p| p == "index.md")
        .then(|| store.read_text(&StateFile::nested(&Scope::Omc, DIR, "index.md")?))
        .flatten()
        .filter(|t| !t.trim().is_empty());
    let mut lines: Vec<String> = match &index {
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
    // Beside an index, the pages in subfolders it does not name (within what was shown).
    if index.is_some() {
        let shown = lines.join("\n");
        let nested: Vec<&str> = pages
            .iter()
            .filter(|p| p.contains('/') && !shown.contains(p.as_str()))
            .map(String::as_str)
            .collect();
        if !nested.is_empty() {
            let more = nested.len().saturating_sub(MAX_NAMED);
            let mut named = nested[..nested.len().min(MAX_NAMED)].join(", ");
            if more > 0 {
                named.push_str(&format!(" and {more} more"));
            }
            lines.push(format!("Pages in subfolders: {named}"));
        }
    } else if pages.len() > MAX_INDEX_LINES {
        lines.push(format!("… and {} more", pages.len() - MAX_INDEX_LINES));
    }
    let count = if pages.len() >= MAX_PAGES {
        format!("{MAX_PAGES}+")
    } else {
        pages.len().to_string()
    };
    Some(
        render(
            SECTION.trim_end(),
            &[("count", &count), ("index", &lines.join("\n"))],
        )
        .trim_end()
        .to_string(),
    )
}
