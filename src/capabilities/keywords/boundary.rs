//! Whether a match is a word of its own, checked on the prompt as typed: `ralph` in
//! `ralph_count`, `ralph-state.json`, `src/ralph/` or `ralph's` is not; `/ralph`, `$ralph` and
//! `omc:ralph` carry an explicit prefix. Decorations around a word ([`undecorate`]) do not keep
//! it from being one.

use super::lexicon::Alias;
use super::vocab::TASK_VERBS;
use std::borrow::Cow;

/// Marks of emphasis that wrap a word or phrase as a whole and would otherwise join it (`_` is a
/// word byte: `_ultrathink_`, `__ralph__`); `**ralph**` is a word of its own as typed.
const EMPHASIS: &[u8] = b"_";

/// Punctuation said as a word in a dictated prompt, and the mark it stands for (`ralph comma fix
/// the login redirect period`): after a word that is not an article (`add a comma` is about a
/// comma), `period` only ending its line.
const SPOKEN_MARKS: &[(&str, u8)] = &[("comma", b','), ("colon", b':'), ("period", b'.')];

/// The prompt with its decorations blanked or read (same length, each mark a space): emphasis
/// around a word (`_ultrathink_: …`, `__ralph__ fix …`), an agent addressed before the request
/// (`@codex ulw the lint errors`, an `@name` opening a token), a hashtag (`fix the flaky tests
/// #ralph`), and dictated punctuation ([`SPOKEN_MARKS`]; `slash cancel` opening a line is
/// `/cancel`). What remains is read as typed.
pub(crate) fn undecorate(prompt: &str) -> Cow<'_, str> {
    let b = prompt.as_bytes();
    let spoken = |c: &u8| matches!(c, b'c' | b'C' | b'p' | b'P' | b's' | b'S');
    if !b
        .iter()
        .any(|c| EMPHASIS.contains(c) || *c == b'@' || *c == b'#' || spoken(c))
    {
        return Cow::Borrowed(prompt);
    }
    let mut out = b.to_vec();
    let token_start = |i: usize| i == 0 || !(word_byte(b[i - 1]) || EMPHASIS.contains(&b[i - 1]));
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'#' && token_start(i) && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            out[i] = b' ';
            i += 1;
            continue;
        }
        if spoken(&c) && token_start(i) {
            let n = b[i..]
                .iter()
                .take_while(|x| x.is_ascii_alphabetic())
                .count();
            // (only a word of five or six letters can be one: no copy of every other word)
            let word = if (5..=6).contains(&n) {
                prompt[i..i + n].to_ascii_lowercase()
            } else {
                String::new()
            };
            let rest = &b[i + n..];
            if word == "slash"
                && (i == 0 || b[i - 1] == b'\n')
                && rest.first() == Some(&b' ')
                && rest.get(1).is_some_and(u8::is_ascii_alphabetic)
            {
                out[i..=i + n].fill(b' ');
                out[i + n] = b'/';
            } else if let Some((_, mark)) = SPOKEN_MARKS.iter().find(|(w, _)| *w == word)
                && i >= 2
                && b[i - 1] == b' '
                && b[i - 2].is_ascii_alphanumeric()
            {
                let before = prompt[..i - 1].rsplit(' ').next().unwrap_or("");
                let article = matches!(
                    before.to_ascii_lowercase().as_str(),
                    "a" | "an" | "the" | "this" | "that" | "one" | "each" | "every" | "no"
                );
                let ends_line = rest.first().is_none_or(|x| *x == b'\n' || *x == b'\r');
                if !article
                    && (*mark != b'.' || ends_line)
                    && rest.first().is_none_or(|x| !word_byte(*x))
                {
                    out[i - 1] = *mark;
                    out[i..i + n].fill(b' ');
                }
            }
            i += n.max(1);
            continue;
        }
        if c == b'@' && token_start(i) {
            // `@codex`, `@claude-code`: the addressee, up to the end of its token
            let n = b[i + 1..]
                .iter()
                .take_while(|c| word_byte(**c) || **c == b'-')
                .count();
            if n > 0 {
                out[i..=i + n].fill(b' ');
            }
            i += n + 1;
            continue;
        }
        if EMPHASIS.contains(&c) && token_start(i) {
            // a run of one mark, a letter right after it, and the same run closing on the same
            // line, right after a letter and before a non-word byte: `_ultrathink_:`, not
            // `_private_field` nor `snake_case`
            let run = b[i..].iter().take_while(|x| **x == c).count();
            let open_end = i + run;
            if b.get(open_end).is_some_and(u8::is_ascii_alphabetic) {
                let line_end = b[open_end..]
                    .iter()
                    .position(|x| *x == b'\n')
                    .map_or(b.len(), |k| open_end + k);
                let close = (open_end..line_end).find(|&k| {
                    b[k..].starts_with(&b[i..open_end])
                        && b[k - 1].is_ascii_alphanumeric()
                        && b.get(k + run).is_none_or(|n| !word_byte(*n) && *n != c)
                });
                if let Some(k) = close
                    && !b[open_end..k].contains(&c)
                {
                    out[i..open_end].fill(b' ');
                    out[k..k + run].fill(b' ');
                    i = k + run;
                    continue;
                }
            }
            i += run;
            continue;
        }
        i += 1;
    }
    // (only ASCII bytes were replaced by ASCII spaces)
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| prompt.to_string()))
}

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

#[cfg(test)]
mod tests {
    use super::undecorate;

    #[test]
    fn decorations_are_blanked_and_identifiers_kept() {
        assert_eq!(undecorate("_ultrathink_: is it"), " ultrathink : is it");
        assert_eq!(undecorate("__ralph__: fix"), "  ralph  : fix");
        assert_eq!(undecorate("@codex ulw the lint"), "       ulw the lint");
        assert_eq!(
            undecorate("hey @claude-code, ralph"),
            "hey             , ralph"
        );
        assert_eq!(undecorate("fix the tests #ralph"), "fix the tests  ralph");
        assert_eq!(
            undecorate("ralph comma fix it period"),
            "ralph,      fix it.      "
        );
        assert_eq!(undecorate("slash cancel"), "     /cancel");
        for kept in [
            "snake_case_name",
            "_private_field x",
            "mail bob@example.com",
            "**ralph**",
            "add a comma after ralph",
            "the period ends",
            "issue #412",
        ] {
            assert_eq!(undecorate(kept), kept);
        }
    }
}
