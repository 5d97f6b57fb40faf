//! `.omc/notepad.md`: a Markdown file a person reads and edits, and the hooks append to.
//!
//! Sections are level-2 headings: `## Priority Context` (always shown at SessionStart),
//! `## Working Memory` (dated `### YYYY-MM-DD HH:MM UTC` entries appended before each
//! compaction and pruned: older than [`KEEP_DAYS`] days go, and at most [`KEEP_ENTRIES`] dated
//! entries stay) and `## MANUAL` (never touched). Only the body of Working Memory is ever
//! rewritten; every other byte of the file is kept exactly as the person left it. Entries whose
//! heading carries no date are a person's and are kept.

use crate::state::{Scope, StateFile, Store};
use chrono::NaiveDateTime;
use std::io;
use std::ops::Range;

/// `.omc/notepad.md`.
pub const FILE: &str = "notepad.md";
pub const KEEP_ENTRIES: usize = 30;
pub const KEEP_DAYS: i64 = 7;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// A new notepad.
const SKELETON: &str = include_str!("../../../templates/memory/notepad.md");

/// A level-2 section: its heading's name and the byte range of its body (after the heading
/// line, up to the next level-2 heading or the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub body: Range<usize>,
}

/// Byte offsets of the lines of `text` that start a heading of `level` (`##` / `###`),
/// outside fenced code blocks, with the heading's text.
fn headings(text: &str, level: usize) -> Vec<(usize, usize, String)> {
    let marker = format!("{} ", "#".repeat(level));
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        for f in ["```", "~~~"] {
            if trimmed.starts_with(f) {
                fence = match fence {
                    None => Some(f),
                    Some(open) if open == f => None,
                    other => other,
                };
            }
        }
        if fence.is_none() && line.starts_with(&marker) {
            let name = line[marker.len()..].trim().to_string();
            out.push((start, offset, name));
        }
    }
    out
}

/// The level-2 sections of a notepad, in order.
pub fn sections(text: &str) -> Vec<Section> {
    let hs = headings(text, 2);
    hs.iter()
        .enumerate()
        .map(|(i, (_, body_start, name))| Section {
            name: name.clone(),
            body: *body_start..hs.get(i + 1).map_or(text.len(), |h| h.0),
        })
        .collect()
}

fn find<'a>(secs: &'a [Section], name: &str) -> Option<&'a Section> {
    secs.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

/// The Priority Context, HTML comments removed and trimmed ("" when absent or empty).
pub fn priority_context(text: &str) -> String {
    let secs = sections(text);
    let Some(s) = find(&secs, "Priority Context") else {
        return String::new();
    };
    strip_comments(&text[s.body.clone()]).trim().to_string()
}

fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        match rest[i..].find("-->") {
            Some(j) => rest = &rest[i + j + 3..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The date of a `### YYYY-MM-DD HH:MM …` entry heading, in ms.
fn entry_date(heading: &str) -> Option<i64> {
    let head: String = heading.chars().take(16).collect();
    NaiveDateTime::parse_from_str(&head, "%Y-%m-%d %H:%M")
        .ok()
        .map(|d| d.and_utc().timestamp_millis())
}

/// `text` with a new Working Memory entry (`### <date>\n<body>`), pruned. Only the Working
/// Memory body changes; a missing section is inserted before `## MANUAL` (or at the end).
pub fn with_entry(text: &str, now_ms: i64, body: &str) -> String {
    let entry = format!("### {}\n{}", crate::time::human(now_ms), body.trim_end());
    let secs = sections(text);
    let Some(wm) = find(&secs, "Working Memory") else {
        let block = format!("## Working Memory\n\n{entry}\n\n");
        return match find(&secs, "MANUAL") {
            Some(manual) => {
                let at = heading_start(text, manual);
                format!("{}{block}{}", &text[..at], &text[at..])
            }
            None => {
                let sep = match text {
                    "" => "",
                    t if t.ends_with("\n\n") => "",
                    t if t.ends_with('\n') => "\n",
                    _ => "\n\n",
                };
                format!(
                    "{text}{sep}{}",
                    block.trim_end_matches('\n').to_string() + "\n"
                )
            }
        };
    };
    // Built in one string: the notepad is kept to 30 entries (~20 KB), and each copy of it
    // is fresh memory a hook pays for page by page.
    let mut out = String::with_capacity(text.len() + entry.len() + 8);
    out.push_str(&text[..wm.body.start]);
    let old = &text[wm.body.clone()];
    rewrite_working_memory(old, &entry, now_ms, wm.body.end < text.len(), &mut out);
    out.push_str(&text[wm.body.end..]);
    out
}

/// Where a section's heading line starts.
fn heading_start(text: &str, s: &Section) -> usize {
    text[..s.body.start]
        .trim_end_matches('\n')
        .rfind('\n')
        .map_or(0, |i| i + 1)
}

/// Appends to `out` the Working Memory section's new body: its entries with `entry` added,
/// pruned.
fn rewrite_working_memory(
    body: &str,
    entry: &str,
    now_ms: i64,
    more_follows: bool,
    out: &mut String,
) {
    let hs = headings(body, 3);
    let preamble = hs.first().map_or(body, |h| &body[..h.0]).trim();
    let mut entries: Vec<(Option<i64>, &str)> = hs
        .iter()
        .enumerate()
        .map(|(i, (start, _, name))| {
            let end = hs.get(i + 1).map_or(body.len(), |h| h.0);
            (entry_date(name), body[*start..end].trim_end())
        })
        .collect();
    entries.push((Some(now_ms), entry));
    // Prune: dated entries older than KEEP_DAYS, then the oldest dated beyond KEEP_ENTRIES.
    entries.retain(|(d, _)| d.is_none_or(|d| now_ms - d <= KEEP_DAYS * DAY_MS));
    let mut dated = entries.iter().filter(|(d, _)| d.is_some()).count();
    entries.retain(|(d, _)| {
        if d.is_some() && dated > KEEP_ENTRIES {
            dated -= 1;
            return false;
        }
        true
    });
    let parts = (!preamble.is_empty())
        .then_some(preamble)
        .into_iter()
        .chain(entries.into_iter().map(|(_, t)| t));
    out.push('\n');
    for (i, part) in parts.enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(part);
    }
    out.push_str(if more_follows { "\n\n" } else { "\n" });
}

fn file() -> Option<StateFile> {
    StateFile::new(&Scope::Omc, FILE)
}

/// Appends a dated entry to the notepad's Working Memory (creating the notepad if needed).
pub fn append(store: &Store, now_ms: i64, body: &str) -> io::Result<()> {
    let Some(f) = file() else { return Ok(()) };
    store
        .update_text(&f, |cur| {
            Some(with_entry(cur.unwrap_or(SKELETON), now_ms, body))
        })
        .map(|_| ())
}

/// A `<remember>` note and where it goes (`priority`: the Priority Context).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub priority: bool,
    pub text: String,
}

/// The Priority Context is not grown by notes past this many bytes (OMC asks for under 500
/// characters; the person's own text there is never cut).
pub const MAX_PRIORITY_BYTES: usize = 2_000;

/// `text` with `<remember>` notes added: priority ones as `- note` lines at the end of the
/// Priority Context (inserted first when missing), the others as one dated Working Memory
/// entry. A note already in its section is left out; a priority note that would grow the
/// section past [`MAX_PRIORITY_BYTES`] is left out too. `None` when nothing is added.
pub fn with_notes(text: &str, now_ms: i64, notes: &[Note]) -> Option<String> {
    merged(text, now_ms, notes).map(|(out, _)| out)
}

/// [`with_notes`], with the priority notes it added (so the person can be told of them).
fn merged(text: &str, now_ms: i64, notes: &[Note]) -> Option<(String, Vec<String>)> {
    let mut out = text.to_string();
    let mut changed = false;
    let mut added: Vec<String> = Vec::new();
    let priority: Vec<&str> = notes
        .iter()
        .filter(|n| n.priority)
        .map(|n| n.text.as_str())
        .collect();
    for note in priority {
        let secs = sections(&out);
        let line = format!("- {note}\n");
        match find(&secs, "Priority Context") {
            Some(pc) => {
                let body = &out[pc.body.clone()];
                if body.contains(note) {
                    continue;
                }
                if body.len() + line.len() > MAX_PRIORITY_BYTES {
                    crate::diag!(
                        "notepad: Priority Context is full ({MAX_PRIORITY_BYTES} bytes); a \
                         <remember priority> note was not added"
                    );
                    continue;
                }
                // After the section's last non-blank line.
                let kept = body.trim_end_matches(['\n', ' ', '\t']).len();
                let at = pc.body.start + kept;
                let lead = if kept == 0 { "" } else { "\n" };
                out.insert_str(at, &format!("{lead}- {note}"));
            }
            None => {
                let block = format!("## Priority Context\n\n{line}\n");
                let at = secs.first().map_or(out.len(), |s| heading_start(&out, s));
                let sep = if at == out.len() && !out.is_empty() && !out.ends_with("\n\n") {
                    if out.ends_with('\n') { "\n" } else { "\n\n" }
                } else {
                    ""
                };
                out.insert_str(at, &format!("{sep}{block}"));
            }
        }
        changed = true;
        added.push(note.to_string());
    }
    let working_body = find(&sections(&out), "Working Memory")
        .map(|s| out[s.body.clone()].to_string())
        .unwrap_or_default();
    let working: Vec<String> = notes
        .iter()
        .filter(|n| !n.priority && !working_body.contains(&n.text))
        .map(|n| format!("- {}", n.text))
        .collect();
    if !working.is_empty() {
        out = with_entry(&out, now_ms, &working.join("\n"));
        changed = true;
    }
    changed.then_some((out, added))
}

/// Adds `<remember>` notes to the notepad (creating it if needed; see [`with_notes`]), and
/// returns the priority notes it added to the Priority Context.
pub fn add_notes(store: &Store, now_ms: i64, notes: &[Note]) -> io::Result<Vec<String>> {
    let Some(f) = file() else {
        return Ok(Vec::new());
    };
    let mut added = Vec::new();
    store.update_text(&f, |cur| {
        merged(cur.unwrap_or(SKELETON), now_ms, notes).map(|(out, a)| {
            added = a;
            out
        })
    })?;
    Ok(added)
}

/// The Priority Context's lines, each trimmed and without a list mark (`- `), empty ones left
/// out: what every session start puts before the model, for `status`.
pub fn priority_lines(text: &str) -> Vec<String> {
    priority_context(text)
        .lines()
        .map(|l| {
            let l = l.trim();
            l.strip_prefix("- ")
                .or_else(|| l.strip_prefix("* "))
                .unwrap_or(l)
                .trim()
                .to_string()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// The notepad's text, if there is one.
pub fn read(store: &Store) -> Option<String> {
    store.read_text(&file()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_796_305_500_000; // 2026-12-03 13:45 UTC

    #[test]
    fn sections_skip_fenced_headings() {
        let t = "# N\n## A\nx\n```\n## not\n```\n## B\ny\n";
        let s = sections(t);
        assert_eq!(s.len(), 2);
        assert_eq!(&t[s[0].body.clone()], "x\n```\n## not\n```\n");
        assert_eq!(&t[s[1].body.clone()], "y\n");
    }

    #[test]
    fn priority_context_drops_comments() {
        let t = "## Priority Context\n<!-- hint -->\nUse pnpm.\n\n## Working Memory\n";
        assert_eq!(priority_context(t), "Use pnpm.");
        assert_eq!(priority_context("nothing"), "");
    }

    #[test]
    fn new_entry_keeps_everything_else_byte_for_byte() {
        let t = "# Notepad\n\n## Priority Context\nkeep  me \n\n## Working Memory\n\n### 2026-12-01 10:00 UTC\nold\n\n## MANUAL\n  hand-written\n\twith tabs\n";
        let out = with_entry(t, NOW, "new thing");
        assert!(
            out.starts_with("# Notepad\n\n## Priority Context\nkeep  me \n\n## Working Memory\n")
        );
        assert!(out.ends_with("## MANUAL\n  hand-written\n\twith tabs\n"));
        assert!(out.contains(
            "### 2026-12-01 10:00 UTC\nold\n\n### 2026-12-03 13:45 UTC\nnew thing\n\n## MANUAL"
        ));
    }

    #[test]
    fn prunes_old_and_surplus_dated_entries_but_keeps_undated() {
        let mut t = String::from("## Working Memory\nintro\n### my own notes\nmine\n");
        t.push_str("### 2026-11-20 09:00 UTC\nancient\n");
        for i in 0..KEEP_ENTRIES {
            t.push_str(&format!("### 2026-12-01 10:{i:02} UTC\ne{i}\n"));
        }
        let out = with_entry(&t, NOW, "fresh");
        assert!(!out.contains("ancient"));
        assert!(!out.contains("\ne0\n"), "oldest surplus entry dropped");
        assert!(out.contains("\ne1\n") && out.contains("fresh"));
        assert!(out.contains("intro") && out.contains("### my own notes\nmine"));
    }

    #[test]
    fn missing_working_memory_goes_before_manual() {
        let t = "## Priority Context\np\n\n## MANUAL\nm\n";
        let out = with_entry(t, NOW, "e");
        assert_eq!(
            out,
            "## Priority Context\np\n\n## Working Memory\n\n### 2026-12-03 13:45 UTC\ne\n\n## MANUAL\nm\n"
        );
        assert_eq!(
            with_entry("just text", NOW, "e"),
            "just text\n\n## Working Memory\n\n### 2026-12-03 13:45 UTC\ne\n"
        );
    }

    #[test]
    fn notes_go_to_their_sections_once() {
        let n = |p: bool, t: &str| Note {
            priority: p,
            text: t.into(),
        };
        let notes = [n(true, "Deploys need VPN"), n(false, "cache in /var/c")];
        let out = with_notes(SKELETON, NOW, &notes).unwrap();
        assert_eq!(priority_context(&out), "- Deploys need VPN");
        assert!(out.contains("### 2026-12-03 13:45 UTC\n- cache in /var/c\n"));
        assert!(
            out.ends_with("## MANUAL\n<!-- Yours: omc-hooks never changes this section. -->\n")
        );
        // Again: nothing new.
        assert_eq!(with_notes(&out, NOW + 60_000, &notes), None);
        // A second priority note follows the first; a notepad without the section gets one.
        let more = with_notes(&out, NOW, &[n(true, "Use pnpm")]).unwrap();
        assert_eq!(priority_context(&more), "- Deploys need VPN\n- Use pnpm");
        assert_eq!(
            with_notes("## MANUAL\nm\n", NOW, &[n(true, "p")]).unwrap(),
            "## Priority Context\n\n- p\n\n## MANUAL\nm\n"
        );
        // A full Priority Context takes no more.
        let full = format!("## Priority Context\n{}\n", "x".repeat(MAX_PRIORITY_BYTES));
        assert_eq!(with_notes(&full, NOW, &[n(true, "p")]), None);
    }

    #[test]
    fn skeleton_has_the_three_sections() {
        let names: Vec<_> = sections(SKELETON).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["Priority Context", "Working Memory", "MANUAL"]);
    }
}
