//! Whether a match is a word of its own, checked on the prompt as typed: `ralph` in
//! `ralph_count`, `ralph-state.json`, `src/ralph/` or `ralph's` is not; `/ralph`, `$ralph` and
//! `omc:ralph` carry an explicit prefix.

use super::lexicon::Alias;
use super::vocab::TASK_VERBS;

const PREFIXES: &[&str] = &[
    "/oh-my-claudecode:",
    "oh-my-claudecode:",
    "/oh-my-codex:",
    "oh-my-codex:",
    "/omc:",
    "omc:",
    "force:",
    "/",
    "$",
    "!",
];

pub(crate) fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Checks the characters around an ASCII match in the raw prompt. `Ok(Some(p))`: an explicit
/// prefix starts at `p`; `Ok(None)`: a clean word; `Err(rule)`: not a word of its own.
pub(crate) fn boundary(
    raw: &str,
    start: usize,
    end: usize,
    alias: &Alias,
) -> Result<Option<usize>, &'static str> {
    let after = &raw[end..];
    if alias.not_before.iter().any(|w| after.starts_with(w)) {
        return Err("other-meaning");
    }
    if alias.is_cjk() {
        return Ok(prefix_at(raw, start));
    }
    let bytes = raw.as_bytes();
    let next = bytes.get(end).copied();
    let next2 = bytes.get(end + 1).copied();
    match next {
        Some(c) if word_byte(c) => return Err("inside-word"),
        Some(b'-' | b'.') if next2.is_some_and(|c| c.is_ascii_alphanumeric()) => {
            return Err("identifier");
        }
        Some(b'/' | b'\\') => return Err("path"),
        Some(b'(' | b'@' | b'=' | b'[' | b'{' | b'<') => return Err("identifier"),
        Some(b':')
            if next2.is_some_and(|c| c == b':' || c.is_ascii_alphanumeric())
                && !task_after_colon(&after[1..]) =>
        {
            return Err("identifier");
        }
        Some(b'\'') if next2.is_some_and(|c| c.is_ascii_alphabetic()) => {
            return Err("possessive");
        }
        _ => {}
    }
    if after.starts_with('’')
        && after['’'.len_utf8()..].starts_with(|c: char| c.is_ascii_alphabetic())
    {
        return Err("possessive");
    }
    if let Some(p) = prefix_at(raw, start) {
        return Ok(Some(p));
    }
    let prev = start.checked_sub(1).map(|i| bytes[i]);
    match prev {
        Some(c) if word_byte(c) => Err("inside-word"),
        Some(
            b'-' | b'.' | b'@' | b'#' | b'\\' | b'=' | b'%' | b'&' | b'^' | b'~' | b'$' | b'!'
            | b':',
        ) => Err("identifier"),
        Some(b'/') => Err("path"),
        _ => Ok(None),
    }
}

/// A colon typed without its space before a task verb and a space: `ralph:fix the dates` is the
/// directive, not an identifier (`ralph:latest`, `ralph::run`, `ralph:42`).
fn task_after_colon(after: &str) -> bool {
    let n = after.bytes().take_while(u8::is_ascii_alphabetic).count();
    after[n..].starts_with(' ') && TASK_VERBS.contains(&after[..n].to_ascii_lowercase().as_str())
}

/// An explicit prefix (`/`, `$`, `!`, `omc:`, …) directly before `start`, itself at the start
/// of a token.
fn prefix_at(raw: &str, start: usize) -> Option<usize> {
    let head = &raw[..start];
    for p in PREFIXES {
        if head.len() >= p.len()
            && head.is_char_boundary(head.len() - p.len())
            && head[head.len() - p.len()..].eq_ignore_ascii_case(p)
        {
            let ps = head.len() - p.len();
            let before = head[..ps].chars().next_back();
            let token_start = before.is_none_or(|c| {
                c.is_whitespace() || "([{\"'“‘「『«*_".contains(c) || !c.is_ascii()
            });
            if token_start {
                return Some(ps);
            }
        }
    }
    None
}
