//! Huge strings of a payload shortened before it is parsed (issue 44, contract §6): a shell
//! call's 8 MiB of output costs, from here on, what a few hundred KiB do.
//!
//! Parsing a payload into a `serde_json::Value` unescapes and copies every string whole, and
//! every later step (progress marks, output checks, redaction of what is stored) would walk
//! it again. So one linear pass over the raw bytes, before parsing, cuts every JSON string
//! literal longer than [`BOUND`] bytes to its first and last [`KEEP`] bytes, at whole lines
//! where it can (never inside an escape sequence, a UTF-8 character or a surrogate pair), with
//! a line in between that says how many bytes were left out and gives a digest of them with
//! their ASCII digits left out ([`digest_without_digits`], the one progress marks use). The
//! result is still a JSON string, so:
//!
//! * the same output gives the same shortened text, and an output that differs anywhere in
//!   its middle (other than by digits: timings, counters, pids) gives another digest, so
//!   "new work or the same work" is judged as on the whole output;
//! * the ends, where summaries, exit codes and errors are, are kept as they were;
//! * anything that is not a well-formed string literal (a payload that is not JSON, cut off
//!   inside a string) is passed on unchanged, and the parser's own diagnostic follows.

use std::borrow::Cow;

/// A string literal longer than this (raw bytes between its quotes, escapes included) is
/// shortened: 256 KiB, twice what a progress mark looks at (its 64 KiB ends, cut at lines)
/// with room for escapes.
pub const BOUND: usize = 256 * 1024;

/// Raw bytes kept at each end of a shortened string (before moving to a line's end): more
/// than the 64 KiB of unescaped text a mark and an output check read at each end, for
/// ordinary text (an escape is 2 bytes for a `\n`, up to 6 for a `\u` one).
pub const KEEP: usize = 96 * 1024;

/// How far from a cut point a line break is looked for before cutting at a character.
const LINE_WINDOW: usize = 16 * 1024;

/// The top-level keys whose strings are shortened: where the agents put a tool's result or
/// error (Claude Code's `tool_response` and `error`, and the other agents' names for them, as
/// their adapters read them). Nothing else is: a prompt is judged for keywords whole, a tool's
/// input (an edit's content, a command) is marked whole.
pub const RESULT_KEYS: &[&str] = &[
    "tool_response",
    "toolResponse",
    "toolOutput",
    "tool_output",
    "tool_result",
    "error",
    "tool_error",
];

/// `bytes` with every string literal longer than [`BOUND`] under one of [`RESULT_KEYS`] of the
/// top-level object (at any depth below it) shortened (see the module doc); borrowed unchanged
/// when there is none, or when the bytes are not well-formed strings.
pub fn shorten(bytes: &[u8]) -> Cow<'_, [u8]> {
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    // Depth 1 is inside the top-level object; `result` says whether the top-level key being
    // read is one of RESULT_KEYS.
    let mut depth = 0usize;
    let mut result = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                let Some(end) = string_end(bytes, start) else {
                    return Cow::Borrowed(bytes);
                };
                let after = bytes[end + 1..].iter().find(|b| !b.is_ascii_whitespace());
                if depth == 1 && after == Some(&b':') {
                    result = RESULT_KEYS
                        .iter()
                        .any(|k| k.as_bytes() == &bytes[start..end]);
                } else if result
                    && depth >= 1
                    && end - start > BOUND
                    && let Some(cut) = cut_points(&bytes[start..end])
                {
                    cuts.push((start + cut.0, start + cut.1));
                }
                i = end + 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    if cuts.is_empty() {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len().min(cuts.len() * (2 * KEEP + 4 * LINE_WINDOW)));
    let mut at = 0;
    for (from, to) in cuts {
        out.extend_from_slice(&bytes[at..from]);
        out.extend_from_slice(marker(&bytes[from..to]).as_bytes());
        at = to;
    }
    out.extend_from_slice(&bytes[at..]);
    Cow::Owned(out)
}

/// The index of the closing quote of the string whose contents start at `start`, or `None`
/// when the bytes end first (or an escape is cut off).
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    loop {
        i += quote_or_backslash(&bytes[i..])?;
        if bytes[i] == b'"' {
            return Some(i);
        }
        // An escape: `\uXXXX` or a backslash and one byte (the hex digits and that byte are
        // never a quote the string ends at).
        i += if bytes.get(i + 1) == Some(&b'u') {
            6
        } else {
            2
        };
        if i > bytes.len() {
            return None;
        }
    }
}

/// The index of the first `"` or `\\` in `s`, eight bytes a step: a byte equal to either is
/// found as a zero byte of the word XORed with it (the lowest flagged byte of
/// `(v - 0x01…) & !v & 0x80…` is always a true zero; flags above it may be borrows, and are not
/// looked at). A shell log has an escaped line break every few dozen bytes, so this is what
/// keeps the pass over a huge output cheap.
fn quote_or_backslash(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    let mut words = s.chunks_exact(8);
    let mut at = 0;
    for w in words.by_ref() {
        let v = u64::from_le_bytes(w.try_into().unwrap_or_default());
        let q = v ^ QUOTES;
        let b = v ^ BACKSLASHES;
        let hit = ((q.wrapping_sub(ONES) & !q) | (b.wrapping_sub(ONES) & !b)) & HIGH;
        if hit != 0 {
            return Some(at + (hit.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|p| at + p)
}

/// Where to cut the contents `s` of a long string: the end of the head and the start of the
/// tail, each at a line break (an escaped `\n`) near [`KEEP`] from its end where there is one,
/// else at a character boundary; `None` when no safe place is found (the string is kept).
fn cut_points(s: &[u8]) -> Option<(usize, usize)> {
    let head = after_line_before(s, KEEP).or_else(|| char_boundary_before(s, KEEP))?;
    let from = s.len() - KEEP;
    let tail = after_line_after(s, from).or_else(|| char_boundary_after(s, from))?;
    (head < tail).then_some((head, tail))
}

/// Whether the backslash at `i` starts an escape (an even number of backslashes before it).
fn escape_starts_at(s: &[u8], i: usize) -> bool {
    s[..i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0
}

/// Just after the last escaped line break that ends at or before `at`, within
/// [`LINE_WINDOW`].
fn after_line_before(s: &[u8], at: usize) -> Option<usize> {
    let low = at.saturating_sub(LINE_WINDOW);
    (low..at.saturating_sub(1))
        .rev()
        .find(|&i| s[i] == b'\\' && s[i + 1] == b'n' && escape_starts_at(s, i))
        .map(|i| i + 2)
}

/// Just after the first escaped line break that starts at or after `at`, within
/// [`LINE_WINDOW`].
fn after_line_after(s: &[u8], at: usize) -> Option<usize> {
    let high = (at + LINE_WINDOW).min(s.len().saturating_sub(1));
    (at..high)
        .find(|&i| s[i] == b'\\' && s[i + 1] == b'n' && escape_starts_at(s, i))
        .map(|i| i + 2)
}

/// Whether cutting before byte `i` splits nothing: `s[i]` starts a character (ASCII, a
/// UTF-8 lead byte, or an escape's backslash) and no escape is open across `i` (no backslash
/// among the six bytes before it: an escape is at most six bytes, and a `\uD83D` just before
/// would leave half a surrogate pair).
fn safe_cut(s: &[u8], i: usize) -> bool {
    i >= 6 && i < s.len() && !(0x80..0xC0).contains(&s[i]) && !s[i - 6..i].contains(&b'\\')
}

fn char_boundary_before(s: &[u8], at: usize) -> Option<usize> {
    (at.saturating_sub(LINE_WINDOW)..=at)
        .rev()
        .find(|&i| safe_cut(s, i))
}

fn char_boundary_after(s: &[u8], at: usize) -> Option<usize> {
    (at..(at + LINE_WINDOW).min(s.len())).find(|&i| safe_cut(s, i))
}

/// The line put where `middle` was: its length and its digest without digits, as the text of
/// a JSON string (letters only in the digest, so a digest of it leaves none of it out).
fn marker(middle: &[u8]) -> String {
    let digest = digest_without_digits(middle);
    let letters: String = (0..32)
        .map(|k| char::from(b'a' + ((digest >> (4 * k)) & 0xf) as u8))
        .collect();
    format!(
        "\\n[omc-hooks: {} bytes of this text left out here, digest {letters}]\\n",
        middle.len()
    )
}

/// A 128-bit digest of `bytes` with every ASCII digit left out, fast enough for a whole output
/// of many megabytes (not a cryptographic hash: it tells one output of a command from the
/// next). The bytes are taken eight at a time; a word without a digit (found with bit
/// arithmetic) is copied whole into a compacted buffer, others byte by byte without their
/// digits; the buffer is hashed as 64-bit words in four lanes.
pub fn digest_without_digits(bytes: &[u8]) -> u128 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut hasher = LaneHash::default();
    let mut buf = [0u8; 4096];
    let mut n = 0;
    let mut words = bytes.chunks_exact(8);
    for w in words.by_ref() {
        let x = u64::from_le_bytes(w.try_into().unwrap_or_default());
        let y = x & LOW7;
        // High bit of each byte: at least b'0', and at least b'9' + 1 (7-bit bytes only).
        let ge_0 = y.wrapping_add(0x5050_5050_5050_5050) & HIGH;
        let ge_colon = y.wrapping_add(0x4646_4646_4646_4646) & HIGH;
        let digits = ge_0 & !ge_colon & !(x & HIGH);
        if digits == 0 {
            buf[n..n + 8].copy_from_slice(w);
            n += 8;
        } else {
            // The digits taken out of the word one at a time, lowest first, the bytes above
            // each moving down a place (its flags with them); the word is then copied whole
            // and only its digit-free bytes counted.
            let (mut v, mut d, mut removed) = (x, digits, 0);
            while d != 0 {
                let low = (1u64 << (d.trailing_zeros() & !7)) - 1;
                v = (v & low) | ((v >> 8) & !low);
                d = (d & (d - 1)) >> 8;
                removed += 1;
            }
            buf[n..n + 8].copy_from_slice(&v.to_le_bytes());
            n += 8 - removed;
        }
        if n > buf.len() - 8 {
            // Whole quads of words, so which lane takes a word depends on the compacted
            // bytes alone, not on where the digits were.
            let whole = n / 32 * 32;
            hasher.write(&buf[..whole]);
            buf.copy_within(whole..n, 0);
            n -= whole;
        }
    }
    for &b in words.remainder() {
        if !b.is_ascii_digit() {
            buf[n] = b;
            n += 1;
        }
    }
    hasher.finish(&buf[..n])
}

/// Four lanes of multiply-and-rotate over 64-bit words, for [`digest_without_digits`].
pub struct LaneHash {
    lanes: [u64; 4],
    len: u64,
}

impl Default for LaneHash {
    fn default() -> LaneHash {
        LaneHash {
            lanes: [
                0x243f_6a88_85a3_08d3,
                0x1319_8a2e_0370_7344,
                0xa409_3822_299f_31d0,
                0x082e_fa98_ec4e_6c89,
            ],
            len: 0,
        }
    }
}

impl LaneHash {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;

    /// Whole quads of words only (`bytes.len()` a multiple of 32).
    pub fn write(&mut self, bytes: &[u8]) {
        for quad in bytes.chunks_exact(32) {
            for (lane, w) in self.lanes.iter_mut().zip(quad.chunks_exact(8)) {
                let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
                *lane = (*lane ^ w).wrapping_mul(Self::K).rotate_left(29);
            }
        }
        self.len += bytes.len() as u64;
    }

    pub fn finish(mut self, rest: &[u8]) -> u128 {
        for (i, chunk) in rest.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            let lane = &mut self.lanes[i % 4];
            *lane = (*lane ^ u64::from_le_bytes(word))
                .wrapping_mul(Self::K)
                .rotate_left(29);
        }
        let len = self.len + rest.len() as u64;
        let [a, b, c, d] = self.lanes.map(|l| (l ^ len).wrapping_mul(Self::K));
        (u128::from(a ^ c.rotate_left(17)) << 64) | u128::from(b ^ d.rotate_left(41))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// `{"tool_response": {"stdout": text}}` shortened and parsed back: the string it holds.
    fn through(text: &str) -> String {
        let raw = json!({"tool_response": {"stdout": text}}).to_string();
        let short = shorten(raw.as_bytes());
        let v: Value = serde_json::from_slice(&short).expect("still JSON");
        v["tool_response"]["stdout"].as_str().unwrap().to_string()
    }

    /// The head and the tail of a shortened text, each checked to be the original's own, and
    /// the marker's digest.
    fn parts(original: &str, short: &str) -> (usize, usize, String) {
        let at = short.find("\n[omc-hooks: ").expect("a marker");
        let head = &short[..at];
        let rest = &short[at..];
        let close = rest.find("]\n").unwrap();
        let tail = &rest[close + 2..];
        assert!(original.starts_with(head), "head is the original's start");
        assert!(original.ends_with(tail), "tail is the original's end");
        let digest = rest[..close].rsplit(' ').next().unwrap().to_string();
        (head.len(), tail.len(), digest)
    }

    /// The word-at-a-time scan finds the first quote or backslash wherever it is, whatever
    /// bytes (high ones, zeros, their neighbours `!`, `#`, `[`, `]`) come before it.
    #[test]
    fn the_scan_finds_the_first_quote_or_backslash() {
        let fill = [
            b'a',
            0,
            0x21,
            0x23,
            0x5b,
            0x5d,
            0xff,
            0x80,
            0x01,
            0x22 ^ 0x80,
        ];
        for len in 0..40 {
            for at in 0..=len {
                for &stop in b"\"\\" {
                    for k in 0..fill.len() {
                        let mut s: Vec<u8> = (0..len).map(|i| fill[(i + k) % fill.len()]).collect();
                        s.iter_mut().for_each(|b| {
                            if *b == b'"' || *b == b'\\' {
                                *b = b'a'
                            }
                        });
                        let want = (at < len).then(|| {
                            s[at] = stop;
                            at
                        });
                        assert_eq!(quote_or_backslash(&s), want, "{s:?}");
                    }
                }
            }
        }
    }

    /// Every pattern of digits in a word (and across two) leaves the bytes that are not
    /// digits, in order: the digest is that of the text without them.
    #[test]
    fn every_pattern_of_digits_in_a_word_is_taken_out() {
        for pattern in 0u32..(1 << 16) {
            let text: Vec<u8> = (0..16)
                .map(|i| {
                    if pattern >> i & 1 == 1 {
                        b'0' + (i as u8 % 10)
                    } else {
                        [b'a', b'/', b':', 0xc3, 0xa9, b' '][i % 6]
                    }
                })
                .collect();
            let without: Vec<u8> = text
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_digit())
                .collect();
            let whole = without.len() / 32 * 32;
            let mut h = LaneHash::default();
            h.write(&without[..whole]);
            assert_eq!(
                digest_without_digits(&text),
                h.finish(&without[whole..]),
                "{pattern:016b}"
            );
        }
    }

    #[test]
    fn a_payload_without_long_strings_is_passed_on_as_it_is() {
        let raw = json!({"a": "x".repeat(1000), "b": [1, 2, {"c": "d\"e\\f"}]}).to_string();
        assert!(matches!(shorten(raw.as_bytes()), Cow::Borrowed(_)));
    }

    #[test]
    fn a_string_exactly_at_the_bound_is_kept_and_one_byte_more_is_cut() {
        let at = "y".repeat(BOUND);
        assert_eq!(through(&at), at);
        let over = "y".repeat(BOUND + 1);
        let short = through(&over);
        assert!(short.len() < BOUND, "{}", short.len());
        let (head, tail, _) = parts(&over, &short);
        assert!(head >= KEEP - 6 && tail >= KEEP - 6, "{head} {tail}");
    }

    #[test]
    fn a_log_is_cut_at_whole_lines_near_its_ends() {
        let text: String = (0..40_000)
            .map(|i| format!("test case_{i} ... ok\n"))
            .collect();
        let short = through(&text);
        let (head, tail, _) = parts(&text, &short);
        assert!(short.len() < 3 * KEEP, "{}", short.len());
        // The head ends a line, and the tail starts one.
        assert!(text[..head].ends_with('\n') && text[text.len() - tail - 1..].starts_with('\n'));
        assert!(head > KEEP - LINE_WINDOW && tail > KEEP - LINE_WINDOW - 100);
    }

    /// No cut inside an escape, a UTF-8 character or a surrogate pair, whatever falls at the
    /// cut: each mix is shifted byte by byte across the cut point.
    #[test]
    fn escapes_multibyte_characters_and_surrogate_pairs_are_never_split() {
        let units = [
            "\"", "\\", "é", "€", "😀", "\u{1}", "a", "\t", "\u{7f}", "/",
        ];
        for shift in 0..12 {
            for (k, _) in units.iter().enumerate() {
                // A text of one line: no line break to cut at, so the cut is at a character.
                let mut text = "p".repeat(shift);
                let mut i = k;
                while text.len() < BOUND + 4096 {
                    text.push_str(units[i % units.len()]);
                    i = (i * 7 + 3) % 1_000_003;
                }
                let short = through(&text);
                parts(&text, &short);
            }
        }
        // Escapes as other writers put them: `\u` escapes, surrogate pairs, escaped quotes
        // and backslashes, between a little plain text.
        let raw_units = [
            "\\ud83d\\ude00",
            "\\u00e9",
            "\\\"",
            "\\\\",
            "ab",
            "é",
            "😀",
            "\\t",
            "\\/",
        ];
        for shift in 0..12 {
            let mut inner = "q".repeat(shift);
            let mut i = shift;
            while inner.len() < BOUND + 4096 {
                inner.push_str(raw_units[i % raw_units.len()]);
                i = (i * 7 + 3) % 1_000_003;
            }
            let raw = format!("{{\"error\": \"{inner}\"}}");
            let original: Value = serde_json::from_str(&raw).unwrap();
            let short: Value = serde_json::from_slice(&shorten(raw.as_bytes())).expect("JSON");
            parts(
                original["error"].as_str().unwrap(),
                short["error"].as_str().unwrap(),
            );
        }
    }

    /// A text of nothing but `\u` escapes and surrogate pairs as JSON writes them (`\ud83d\ude00`
    /// where a writer escapes non-ASCII): no place without a backslash before it, so it is kept.
    #[test]
    fn a_string_with_no_safe_place_to_cut_is_kept_whole() {
        let inner = "\\ud83d\\ude00".repeat(BOUND / 12 + 10);
        let raw = format!("{{\"tool_response\": \"{inner}\"}}");
        assert!(matches!(shorten(raw.as_bytes()), Cow::Borrowed(_)));
        let v: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(
            v["tool_response"].as_str().unwrap().chars().count(),
            BOUND / 12 + 10
        );
    }

    #[test]
    fn every_long_string_of_nested_objects_is_cut_and_the_rest_kept() {
        let long = "line of output\n".repeat(BOUND / 10);
        let v = json!({"tool_response": {"stdout": long, "stderr": "", "items": [long, {"k": long}]},
                       "session_id": "s1", "n": 3, "prompt": long,
                       "tool_input": {"content": long, "error": long}});
        let short = shorten(v.to_string().as_bytes()).into_owned();
        let back: Value = serde_json::from_slice(&short).unwrap();
        assert_eq!(back["session_id"], "s1");
        assert_eq!(back["n"], 3);
        assert_eq!(back["tool_response"]["stderr"], "");
        // Only under a result's key: a prompt and a tool's input are kept whole, even under a
        // nested key of the same name.
        assert_eq!(back["prompt"], long.as_str());
        assert_eq!(back["tool_input"]["content"], long.as_str());
        assert_eq!(back["tool_input"]["error"], long.as_str());
        for s in [
            &back["tool_response"]["stdout"],
            &back["tool_response"]["items"][0],
            &back["tool_response"]["items"][1]["k"],
        ] {
            parts(&long, s.as_str().unwrap());
        }
    }

    #[test]
    fn what_is_not_json_is_passed_on_unchanged() {
        let long = "z".repeat(BOUND * 2);
        for raw in [
            format!("{{\"tool_response\": \"{long}"),
            format!("{{\"tool_response\": \"{long}\\"),
            format!("{{\"tool_response\": \"{long}\\u00"),
            format!("not json \"{long}"),
        ] {
            assert!(
                matches!(shorten(raw.as_bytes()), Cow::Borrowed(_)),
                "{}",
                &raw[..12]
            );
        }
        // Shortened but still not JSON (a stray byte after the string): the parser's error is
        // about the payload as it came.
        let raw = format!("{{\"error\": \"{long}\" x}}");
        let e = crate::protocol::input::parse_object(raw.as_bytes()).unwrap_err();
        let direct = serde_json::from_str::<Value>(&raw).unwrap_err().to_string();
        assert!(format!("{e:?}").contains(&direct), "{e:?}");
    }

    /// The same text gives the same shortened text; a change in its middle, a new digest,
    /// unless the change is of digits only (timings, counters).
    #[test]
    fn the_digest_tells_a_new_middle_and_not_new_digits() {
        let text = |middle: &str| {
            let mut t = "head line\n".repeat(BOUND / 10);
            t.push_str(middle);
            t.push_str(&"tail line\n".repeat(BOUND / 10));
            t
        };
        let a = text("test parser ... ok (0.12s)\n");
        let (_, _, da) = parts(&a, &through(&a));
        assert_eq!(through(&a), through(&a));
        let digits = text("test parser ... ok (3.456s)\n");
        assert_eq!(parts(&digits, &through(&digits)).2, da);
        let other = text("test parser ... FAILED (0.12s)\n");
        assert_ne!(parts(&other, &through(&other)).2, da);
    }
}
