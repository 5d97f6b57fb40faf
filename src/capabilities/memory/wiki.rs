//! `.omc/wiki/`: the project's wiki of Markdown pages (as OMC's wiki hooks keep it). At every
//! session start — after a compaction too, which is how it is kept through one — the model is
//! told the wiki is there: how many pages (subfolders' pages counted), the first
//! [`MAX_INDEX_LINES`] lines of its `index.md` (else the page names), and the pages in
//! subfolders by name, so a page the index does not list is not invisible. Pages are listed
//! through the state module (no symlink followed); nothing is written.
//!
//! The seed also gives the pages relevant to the session's prompt. A SessionStart has no
//! prompt yet, so that is done at the session's **first** prompt ([`on_prompt`]): the pages
//! whose names the person's own words say (a word of four letters or more of the page's path,
//! `arch/db/storage.md` → `arch`, `storage`), at most [`MAX_PAGES_PER_PROMPT`], each cut at
//! [`MAX_PAGE_CHARS`]. "First" is counted from the client's transcript, as a script's
//! `turn_number` is; without a readable transcript no page is given (the index still names
//! them all).

use super::render;
use crate::capabilities::Ctx;
use crate::capabilities::keywords::sanitize;
use crate::protocol::Answer;
use crate::protocol::output::truncate_chars;
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

/// Pages given with the first prompt at most.
pub const MAX_PAGES_PER_PROMPT: usize = 2;
/// A page given with the first prompt is cut to this many characters.
pub const MAX_PAGE_CHARS: usize = 2_000;

const SECTION: &str = include_str!("../../../templates/memory/wiki.md");
const PAGE: &str = include_str!("../../../templates/memory/wiki-page.md");

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

/// UserPromptSubmit: on the session's first prompt, the wiki pages its words name.
pub fn on_prompt(ctx: &Ctx<'_>) -> Answer {
    let (Some(store), Some(prompt)) = (&ctx.store, ctx.input.prompt.as_deref()) else {
        return Answer::default();
    };
    // The wiki first (a missing folder costs one look-up): the transcript is read only for a
    // project that has pages.
    let pages = store.person_tree(DIR, ".md", MAX_DEPTH, MAX_PAGES);
    if pages.is_empty() || !first_prompt(ctx, prompt) {
        return Answer::default();
    }
    let own = sanitize::sanitize(prompt).text.to_lowercase();
    let said: Vec<&str> = own
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .collect();
    let mut hits: Vec<(usize, &String)> = pages
        .iter()
        .filter(|p| p.as_str() != "index.md")
        .map(|p| (named(p).filter(|w| said.contains(&w.as_str())).count(), p))
        .filter(|(n, _)| *n > 0)
        .collect();
    hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let texts: Vec<String> = hits
        .iter()
        .take(MAX_PAGES_PER_PROMPT)
        .filter_map(|(_, p)| {
            let text = store.read_text(&StateFile::deep(&Scope::Omc, DIR, p)?)?;
            let body = truncate_chars(text.trim(), MAX_PAGE_CHARS);
            Some(
                render(PAGE.trim_end(), &[("path", p), ("body", &body)])
                    .trim_end()
                    .to_string(),
            )
        })
        .collect();
    if texts.is_empty() {
        Answer::default()
    } else {
        // The pages are anyone's text: redacted and without escapes (issue 43).
        Answer::context(crate::terminal::shown(&texts.join("\n\n")))
    }
}

/// The words of a page's path that name it: four letters or more, lower-cased, the `.md` left
/// out (`arch/db/storage.md` → `arch`, `storage`).
fn named(path: &str) -> impl Iterator<Item = String> + '_ {
    path.trim_end_matches(".md")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
}

/// Whether this is the session's first prompt, by the client's transcript (the prompt being
/// submitted counted, whether or not the client wrote it there yet). A transcript the client
/// has not written yet (no file at its path) holds no prompt; no transcript path, no answer.
fn first_prompt(ctx: &Ctx<'_>, prompt: &str) -> bool {
    let Some(path) = ctx.input.transcript_path.as_deref() else {
        return false;
    };
    let Some(t) = crate::state::usage::read_whole(path) else {
        return !std::path::Path::new(path).exists();
    };
    let (mut n, last) = crate::state::usage::prompts_in(&t);
    if last.as_deref().map(str::trim) != Some(prompt.trim()) {
        n += 1;
    }
    n == 1
}
