//! Finding every alias in a prompt in one forward pass, leftmost-longest and non-overlapping.
//!
//! Every ASCII alias is a word of its own, so it can only start where a word starts (after a
//! byte that is not a letter, digit or `_`): the scan looks at the first two letters of each
//! word, tries the few aliases that start with them (longest first), and skips the rest of the
//! word.
//! CJK aliases need no word boundary; they are tried at every character of their scripts.
//! Prose costs one pass over its bytes and a table lookup per word, and nothing has to be built
//! per process beyond sorting the alias table into buckets (an automaton took ~0.8 ms to build
//! and ~6 ns a byte to scan).

use super::lexicon::{ALIASES, Alias};
use std::sync::OnceLock;

/// An alias in a bucket: its index, and its first (up to) four bytes, lowercased, with the mask
/// of the bytes that count — a cheap first test before comparing the whole alias.
#[derive(Debug, Clone, Copy)]
struct Entry {
    index: u16,
    head: u32,
    mask: u32,
}

impl Entry {
    fn new(index: usize) -> Entry {
        let text = ALIASES[index].text.as_bytes();
        let n = text.len().min(4);
        let mut head = [0u8; 4];
        head[..n].copy_from_slice(&text[..n]);
        let mut mask = [0u8; 4];
        mask[..n].fill(0xFF);
        // (a Japanese form's space may be typed as a middle dot, and Korean's space byte falls
        // among the first four: the byte is left to the full comparison)
        if ALIASES[index].is_cjk() {
            for (m, h) in mask.iter_mut().zip(head.iter_mut()) {
                if *h == b' ' {
                    (*m, *h) = (0, 0);
                }
            }
        }
        Entry {
            index: index as u16,
            head: u32::from_le_bytes(head.map(|b| b.to_ascii_lowercase())),
            mask: u32::from_le_bytes(mask),
        }
    }
}

/// The aliases, bucketed by what they start with, longest first in each bucket.
struct Buckets {
    /// By lowercase first letter and second letter (or "not a letter"): see [`key`].
    ascii: Vec<Vec<Entry>>,
    /// Whether each of `ascii` has an entry: most words' buckets are empty, and this small table
    /// says so without touching the buckets.
    used: Vec<bool>,
    /// Aliases written in other scripts, by the first byte of their UTF-8 form.
    other: Vec<(u8, Vec<Entry>)>,
}

fn buckets() -> &'static Buckets {
    static B: OnceLock<Buckets> = OnceLock::new();
    B.get_or_init(|| {
        let mut ascii: Vec<Vec<Entry>> = vec![Vec::new(); 26 * 27];
        let mut other: Vec<(u8, Vec<Entry>)> = Vec::new();
        for (i, a) in ALIASES.iter().enumerate() {
            let first = a.text.as_bytes()[0];
            if first.is_ascii_alphabetic() {
                ascii[key(first, a.text.as_bytes().get(1).copied())].push(Entry::new(i));
            } else {
                match other.iter_mut().find(|(b, _)| *b == first) {
                    Some((_, v)) => v.push(Entry::new(i)),
                    None => other.push((first, vec![Entry::new(i)])),
                }
            }
        }
        let by_len = |v: &mut Vec<Entry>| {
            v.sort_by_key(|e| std::cmp::Reverse(ALIASES[usize::from(e.index)].text.len()));
        };
        ascii.iter_mut().for_each(by_len);
        other.iter_mut().for_each(|(_, v)| by_len(v));
        let used = ascii.iter().map(|v| !v.is_empty()).collect();
        Buckets { ascii, used, other }
    })
}

/// The bucket of a word starting with the ASCII letter `first`, then `second`.
fn key(first: u8, second: Option<u8>) -> usize {
    let f = usize::from(first.to_ascii_lowercase() - b'a');
    let s = match second {
        Some(c) if c.is_ascii_alphabetic() => usize::from(c.to_ascii_lowercase() - b'a'),
        _ => 26,
    };
    f * 27 + s
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The longest alias of `bucket` at `at` (ASCII case-insensitively).
#[inline]
fn longest(text: &[u8], at: usize, bucket: &[Entry]) -> Option<(u16, usize)> {
    if bucket.is_empty() {
        return None;
    }
    // the next four bytes, letters lowercased (`| 0x20` lowercases exactly the ASCII letters
    // among the bytes that can equal a lowercase letter; anything it lets through wrongly is
    // caught by the full comparison)
    let mut four = [0u8; 4];
    let n = (text.len() - at).min(4);
    four[..n].copy_from_slice(&text[at..at + n]);
    let four = u32::from_le_bytes(four) | 0x2020_2020;
    bucket.iter().find_map(|e| {
        if (four & e.mask) != (e.head | (0x2020_2020 & e.mask)) {
            return None;
        }
        let alias = &ALIASES[usize::from(e.index)];
        let pat = alias.text.as_bytes();
        let end = at + pat.len();
        if end <= text.len() && text[at..end].eq_ignore_ascii_case(pat) {
            return Some((e.index, end));
        }
        if japanese(alias.text) && pat.contains(&b' ') {
            return dotted(text, at, pat).map(|end| (e.index, end));
        }
        None
    })
}

/// A Japanese form (kana): the forms whose words a middle dot may join.
fn japanese(text: &str) -> bool {
    text.chars().any(|c| matches!(c as u32, 0x3040..=0x30FF))
}

/// The ways a Japanese form's space between its words may be typed besides a space: a middle dot
/// (`コード・レビュー`, `ディープ・サーチ`; full-width, half-width and Latin).
const MIDDLE_DOTS: &[&str] = &["・", "･", "·"];

/// A CJK form with a space (`コード レビュー`) typed with a middle dot instead at `at`: where it
/// ends.
fn dotted(text: &[u8], at: usize, pat: &[u8]) -> Option<usize> {
    let (mut i, mut k) = (at, 0);
    while k < pat.len() {
        if pat[k] == b' ' {
            let dot = MIDDLE_DOTS
                .iter()
                .find(|d| text[i..].starts_with(d.as_bytes()))?;
            i += dot.len();
        } else if text.get(i) == Some(&pat[k]) {
            i += 1;
        } else {
            return None;
        }
        k += 1;
    }
    Some(i)
}

/// One alias found: which, and where.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found {
    pub alias: &'static Alias,
    pub start: usize,
    pub end: usize,
}

/// The aliases of `text`, in order. Knowing there is none, detection can skip the rest of its
/// work.
pub(crate) struct Scan<'a> {
    text: &'a [u8],
    at: usize,
}

/// Every alias in `text`, in order (see [`Scan`]).
pub(crate) fn find_iter(text: &str) -> Scan<'_> {
    Scan {
        text: text.as_bytes(),
        at: 0,
    }
}

impl Iterator for Scan<'_> {
    type Item = Found;

    fn next(&mut self) -> Option<Found> {
        let b = buckets();
        let bytes = self.text;
        let mut i = self.at;
        while i < bytes.len() {
            let c = bytes[i];
            let hit = if c.is_ascii_alphabetic() {
                let at_word_start = i == 0 || !word_byte(bytes[i - 1]);
                let bucket = key(c, bytes.get(i + 1).copied());
                let hit = (at_word_start && b.used[bucket])
                    .then(|| longest(bytes, i, &b.ascii[bucket]))
                    .flatten();
                if hit.is_none() {
                    // no alias starts inside a word
                    i += 1;
                    while i < bytes.len() && word_byte(bytes[i]) {
                        i += 1;
                    }
                    continue;
                }
                hit
            } else if c >= 0xC0 {
                let bucket = b.other.iter().find(|(f, _)| *f == c);
                bucket.and_then(|(_, bucket)| longest(bytes, i, bucket))
            } else {
                None
            };
            if let Some((k, end)) = hit {
                self.at = end;
                return Some(Found {
                    alias: &ALIASES[usize::from(k)],
                    start: i,
                    end,
                });
            }
            i += 1;
        }
        self.at = bytes.len();
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(t: &str) -> Vec<&str> {
        find_iter(t).map(|f| &t[f.start..f.end]).collect()
    }

    #[test]
    fn words_leftmost_longest_any_case() {
        assert_eq!(found("Ralph fix; /RALPLAN x"), vec!["Ralph", "RALPLAN"]);
        assert_eq!(
            found("i want an app, i want a cli"),
            vec!["i want an", "i want a"]
        );
        assert_eq!(
            found("search the codebase and search the code"),
            vec!["search the codebase", "search the code"]
        );
        // not inside words; after punctuation and CJK, yes
        assert_eq!(found("xralph my_ralph pulw"), Vec::<&str>::new());
        assert_eq!(
            found("ralph_count ralph-state 用ralph修复"),
            vec!["ralph", "ralph", "ralph"]
        );
    }

    #[test]
    fn stop_verbs_are_words_of_their_own() {
        assert_eq!(found("please Stop. ralph"), vec!["Stop", "ralph"]);
        // only where a word starts (the boundary check then rejects `stopwatch`)
        assert_eq!(found("stopwatch, unstop, nonstop"), vec!["stop"]);
    }

    #[test]
    fn cjk_aliases_need_no_boundary() {
        assert_eq!(found("랄프로 고쳐줘, ラルフで"), vec!["랄프", "ラルフ"]);
        assert_eq!(found("用拉尔夫计划设计"), vec!["拉尔夫计划"]);
    }

    #[test]
    fn a_japanese_form_with_a_space_is_found_with_a_middle_dot() {
        let t = "コード・レビューをして、ディープ･サーチで、딥 인터뷰";
        let f: Vec<_> = find_iter(t)
            .map(|f| (&t[f.start..f.end], f.alias.text))
            .collect();
        assert_eq!(
            f,
            vec![
                ("コード・レビュー", "コード レビュー"),
                ("ディープ･サーチ", "ディープ サーチ"),
                ("딥 인터뷰", "딥 인터뷰")
            ]
        );
        // (§5 lists the middle dot for Japanese forms only)
        assert!(find_iter("코드·리뷰 해줘").next().is_none());
    }

    #[test]
    fn every_alias_is_found_alone() {
        for a in ALIASES {
            let f: Vec<_> = find_iter(a.text).collect();
            assert_eq!(f.len(), 1, "{}", a.text);
            assert_eq!(f[0].alias.text, a.text);
        }
    }
}
