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

/// Bytes of a string being shortened while it is read that are kept past [`KEEP`] from the
/// end read so far: where the tail's cut is looked for, and the six bytes before it.
const WINDOW: usize = KEEP + 64;

/// How much gathers past [`WINDOW`] before it goes to the digest: a window's worth is moved
/// down each time, so seldom is cheap.
const DRAIN: usize = 512 * 1024;

/// [`shorten`] done while the payload is read ([`crate::protocol::stdin::read_capped`]), so
/// the megabytes of a huge result never sit in memory at once: a string that `shorten` would
/// cut keeps its head in the output from the moment its length passes [`BOUND`] (its cut is
/// decided by its first [`KEEP`] bytes), then only its last [`WINDOW`] bytes (and up to
/// [`DRAIN`] more), the bytes between going to the digest as they pass. At its closing quote
/// the tail is cut in those last bytes, where `shorten` cuts it. `shorten` of the result is the result, and is
/// `shorten` of the whole payload when the payload is JSON (what is not JSON may have its
/// strings cut where `shorten` would have left it as it came: it is not parsed either way).
///
/// Which strings: as `shorten`, the strings under a top-level key of [`RESULT_KEYS`], the
/// keys being the strings where the top-level object expects one (where `shorten` looks for
/// the `:` after them, which comes after the string is read). A string this cannot decide
/// about while reading it (a top-level key, a string with no place to cut its head) is kept
/// whole, for `shorten` to decide.
#[derive(Default)]
pub struct Streaming {
    out: Vec<u8>,
    depth: usize,
    /// The top-level container is an object, and the next top-level string is a key.
    top_object: bool,
    expect_key: bool,
    /// The last top-level key is one of RESULT_KEYS.
    result: bool,
    string: Option<Str>,
}

/// A string literal being read.
struct Str {
    /// Where its contents start in `out`.
    start: usize,
    /// Its contents read so far, in bytes.
    len: usize,
    /// The next byte is escaped (an odd run of backslashes ends what was read).
    escaped: bool,
    /// `shorten` would cut it if it is long enough.
    candidate: bool,
    /// Its head cut and its last bytes, once it is known to be cut.
    cut: Option<Cut>,
}

struct Cut {
    head: usize,
    /// The string's bytes from `at` to what has been read.
    window: Vec<u8>,
    at: usize,
    digest: DigestWithoutDigits,
}

impl Streaming {
    /// Shortens the next bytes of the payload.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            bytes = if self.string.is_some() {
                self.in_string(bytes)
            } else {
                self.outside(bytes)
            };
        }
    }

    /// The payload as shortened so far, and at its end.
    pub fn finish(mut self) -> Vec<u8> {
        if let Some(string) = self.string.take()
            && let Some(cut) = string.cut
        {
            // Cut off inside a string being shortened: not JSON; what was kept of it.
            self.out.extend_from_slice(&cut.window);
        }
        self.out
    }

    /// Bytes outside strings: copied, the structure followed, up to a string's opening quote.
    fn outside<'a>(&mut self, bytes: &'a [u8]) -> &'a [u8] {
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'"' => {
                    self.out.extend_from_slice(&bytes[..=i]);
                    let key = self.depth == 1 && self.top_object && self.expect_key;
                    self.string = Some(Str {
                        start: self.out.len(),
                        len: 0,
                        escaped: false,
                        candidate: self.result && self.depth >= 1 && !key,
                        cut: None,
                    });
                    return &bytes[i + 1..];
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    if self.depth == 1 {
                        self.top_object = b == b'{';
                        self.expect_key = true;
                    }
                }
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                b',' if self.depth == 1 => self.expect_key = true,
                b':' if self.depth == 1 => self.expect_key = false,
                _ => {}
            }
        }
        self.out.extend_from_slice(bytes);
        &[]
    }

    /// Bytes of a string's contents, up to and with its closing quote, appended at once.
    fn in_string<'a>(&mut self, bytes: &'a [u8]) -> &'a [u8] {
        let Some(string) = self.string.as_mut() else {
            return bytes;
        };
        match closing_quote(bytes, &mut string.escaped) {
            Some(q) => {
                self.contents(&bytes[..q]);
                self.close();
                &bytes[q + 1..]
            }
            None => {
                self.contents(bytes);
                &[]
            }
        }
    }

    /// Appends bytes of the string's contents: to the output, or once it is known to be cut,
    /// to its window, whose oldest bytes go to the digest.
    fn contents(&mut self, bytes: &[u8]) {
        let Some(string) = self.string.as_mut() else {
            return;
        };
        string.len += bytes.len();
        match &mut string.cut {
            None => {
                self.out.extend_from_slice(bytes);
                if string.candidate && string.len > BOUND {
                    string.candidate = false;
                    if let Some(head) = head_cut(&self.out[string.start..]) {
                        let window = self.out[string.start + head..].to_vec();
                        self.out.truncate(string.start + head);
                        string.cut = Some(Cut {
                            head,
                            window,
                            at: head,
                            digest: DigestWithoutDigits::default(),
                        });
                    }
                }
            }
            Some(cut) => {
                cut.window.extend_from_slice(bytes);
                let p = cut.window.len().saturating_sub(WINDOW);
                // Never right after a backslash (else at a later piece): a cut's look back
                // over backslashes (which escape starts where) then stops where it would in
                // the whole string.
                if p > DRAIN && cut.window[p - 1] != b'\\' {
                    cut.digest.update(&cut.window[..p]);
                    cut.window.drain(..p);
                    cut.at += p;
                }
            }
        }
    }

    /// The closing quote: a cut string gets its marker and tail; a top-level key sets
    /// whether the strings under it are a result's.
    fn close(&mut self) {
        let Some(string) = self.string.take() else {
            return;
        };
        if let Some(mut cut) = string.cut {
            let from = string.len - KEEP - cut.at;
            // Always found in a well-formed string; else cut where the tail should start.
            let tail = tail_cut(&cut.window, from).unwrap_or(from);
            cut.digest.update(&cut.window[..tail]);
            let middle = cut.at + tail - cut.head;
            self.out
                .extend_from_slice(marker_of(middle, cut.digest.finish()).as_bytes());
            self.out.extend_from_slice(&cut.window[tail..]);
        } else if self.depth == 1 && self.top_object && self.expect_key {
            self.result = RESULT_KEYS
                .iter()
                .any(|k| k.as_bytes() == &self.out[string.start..]);
        }
        if self.depth == 1 {
            self.expect_key = false;
        }
        self.out.push(b'"');
    }
}

/// The index of the closing quote of the string whose contents start at `start`, or `None`
/// when the bytes end first.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    closing_quote(&bytes[start..], &mut false).map(|q| start + q)
}

/// The first quote of `s` that no backslash escapes, where `escaped` says whether the first
/// byte of `s` is escaped (the bytes before `s` end with an odd run of backslashes); when
/// there is none, `escaped` becomes whether the byte after `s` is. A quote is escaped when an
/// odd run of backslashes is just before it (a `\u` escape's hex digits are never a
/// backslash). Only quotes are looked for (`memchr`, many bytes a step): a shell log has an
/// escaped line break every few dozen bytes and a quote seldom, and the backslashes are
/// counted only before a quote and at the end, so the pass over a huge output stops rarely.
fn closing_quote(s: &[u8], escaped: &mut bool) -> Option<usize> {
    // Whether the run of backslashes just before `i` escapes byte `i`.
    let odd_run_before = |i: usize, escaped: bool| {
        let run = s[..i].iter().rev().take_while(|&&b| b == b'\\').count();
        (run % 2 == 1) != (run == i && escaped)
    };
    let mut from = 0;
    while let Some(p) = find_quote(&s[from..]) {
        let q = from + p;
        if !odd_run_before(q, *escaped) {
            return Some(q);
        }
        from = q + 1;
    }
    *escaped = odd_run_before(s.len(), *escaped);
    None
}

/// The first `"` in `h`: a word at a time over its first 4 KiB, where nearly every string of a
/// payload ends, and `memchr` (a vector at a time) after. `memchr`'s first call asks the CPU
/// what it has, a dozen `cpuid`s: ~40 µs in a virtual machine, where each traps, a fortieth of
/// a hook (BENCHMARKS.md, "Issue 44, round 5"), spent only for a string that long.
fn find_quote(h: &[u8]) -> Option<usize> {
    const NEAR: usize = 4096;
    let near = &h[..h.len().min(NEAR)];
    let mut words = near.chunks_exact(8);
    for (i, w) in words.by_ref().enumerate() {
        // The zero bytes of `x` mark the quotes; the lowest bit of `zero` is exact.
        let x =
            u64::from_le_bytes(w.try_into().unwrap_or_default()) ^ u64::from_le_bytes([b'"'; 8]);
        let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
        if zero != 0 {
            return Some(i * 8 + (zero.trailing_zeros() / 8) as usize);
        }
    }
    let done = near.len() - words.remainder().len();
    if let Some(i) = words.remainder().iter().position(|&b| b == b'"') {
        return Some(done + i);
    }
    (h.len() > NEAR)
        .then(|| memchr::memchr(b'"', &h[NEAR..]).map(|i| i + NEAR))
        .flatten()
}

/// Where to cut the contents `s` of a long string: the end of the head and the start of the
/// tail, each at a line break (an escaped `\n`) near [`KEEP`] from its end where there is one,
/// else at a character boundary with no backslash just before it, else just before an escape
/// (a text of nothing but escapes); `None` when no safe place is found (not well-formed text:
/// the string is kept).
fn cut_points(s: &[u8]) -> Option<(usize, usize)> {
    let head = head_cut(s)?;
    let tail = tail_cut(s, s.len() - KEEP)?;
    (head < tail).then_some((head, tail))
}

/// The end of the head of `s` (which holds at least `KEEP + 1` bytes of the string): decided
/// by those bytes alone, so it is known while the string is still being read.
fn head_cut(s: &[u8]) -> Option<usize> {
    after_line_before(s, KEEP)
        .or_else(|| char_boundary_before(s, KEEP))
        .or_else(|| between_escapes(s, KEEP.saturating_sub(LINE_WINDOW), KEEP + 1, true))
}

/// The start of the tail of `s`, at or after `from`: decided by the bytes from six before
/// `from` to the end (and the backslashes just before them), so a reader that keeps only the
/// string's last bytes finds the same place.
fn tail_cut(s: &[u8], from: usize) -> Option<usize> {
    after_line_after(s, from)
        .or_else(|| char_boundary_after(s, from))
        .or_else(|| between_escapes(s, from, from + LINE_WINDOW, false))
}

/// Just before an escape that does not end a surrogate pair, in `from..to` (the last such
/// place when `last`, else the first): a cut there leaves both sides whole (the text before
/// ends with a whole escape). One pass, counting the backslashes before each place as it goes
/// (never counting back from each: a run of a million backslashes costs a million steps).
fn between_escapes(s: &[u8], from: usize, to: usize, last: bool) -> Option<usize> {
    let from = from.max(6);
    let to = to.min(s.len().saturating_sub(1));
    if from >= to {
        return None;
    }
    // Backslashes just before `i`: an even number, and a backslash at `i` starts an escape.
    let mut run = s[..from].iter().rev().take_while(|&&b| b == b'\\').count();
    let mut found = None;
    for i in from..to {
        if s[i] == b'\\'
            && run % 2 == 0
            && !(s[i + 1] == b'u' && high_surrogate_escape_before(s, i))
        {
            found = Some(i);
            if !last {
                break;
            }
        }
        run = if s[i] == b'\\' { run + 1 } else { 0 };
    }
    found
}

/// Whether the six bytes before `i` are an escape `\uD800`–`\uDBFF` (the first half of a
/// surrogate pair, whose second half must not be cut from it).
fn high_surrogate_escape_before(s: &[u8], i: usize) -> bool {
    i >= 6
        && s[i - 6] == b'\\'
        && s[i - 5] == b'u'
        && escape_starts_at(s, i - 6)
        && s[i - 4].eq_ignore_ascii_case(&b'd')
        && matches!(s[i - 3].to_ascii_lowercase(), b'8' | b'9' | b'a' | b'b')
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
    marker_of(middle.len(), digest_without_digits(middle))
}

fn marker_of(len: usize, digest: u128) -> String {
    let letters: String = (0..32)
        .map(|k| char::from(b'a' + ((digest >> (4 * k)) & 0xf) as u8))
        .collect();
    format!("\\n[omc-hooks: {len} bytes of this text left out here, digest {letters}]\\n")
}

/// A 128-bit digest of `bytes` with every ASCII digit left out, fast enough for a whole output
/// of many megabytes (not a cryptographic hash: it tells one output of a command from the
/// next): [`LaneHash`] over the bytes that are not digits, in order ([`DigestWithoutDigits`]
/// computes it without copying them out).
pub fn digest_without_digits(bytes: &[u8]) -> u128 {
    let mut d = DigestWithoutDigits::default();
    d.update(bytes);
    d.finish()
}

/// [`digest_without_digits`] fed piece by piece: the digest of the pieces' concatenation,
/// wherever they are split. The bytes are read 64 at a time: a bit per digit (each word's
/// digits found with bit arithmetic, its flags packed by a multiplication), then each run of
/// other bytes copied whole into a buffer hashed in quads of words, so which lane takes a word
/// depends on the kept bytes alone. A digit costs nothing of its own: a test log's numbers
/// cost a copy per number.
/// Kept bytes gathered before they are hashed.
const BUF: usize = 4096;

#[derive(Default)]
pub struct DigestWithoutDigits {
    hash: LaneHash,
    /// Kept bytes not yet hashed (fewer than a quad of words).
    rest: [u8; 32],
    rest_len: usize,
}

impl DigestWithoutDigits {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;

    /// The high bit of each byte of `x` that is an ASCII digit.
    #[inline(always)]
    fn digits(x: u64) -> u64 {
        // A digit is a byte that is below 10 once XORed with b'0'; the high bit of
        // `(t & 0x7f) + 0x76` says 10 or more (no carry crosses a byte), `t`'s own says a
        // byte of 0x80 or more.
        let t = x ^ 0x3030_3030_3030_3030;
        !((t & Self::LOW7).wrapping_add(0x7676_7676_7676_7676) | t) & Self::HIGH
    }

    /// Feeds the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        // The kept bytes are gathered in a buffer and hashed in whole quads of words, so
        // which lane takes a word depends on the kept bytes alone. Bytes are taken 64 at a
        // time: a bit per digit (eight words' flags packed), then each run of other bytes
        // copied as 16 or 64 bytes at once (the bytes past the run's end are written over by
        // the next copy, or left past `n`).
        let mut buf = [0u8; BUF + 128];
        let mut n = self.rest_len;
        buf[..n].copy_from_slice(&self.rest[..n]);
        let (blocks, rest) = bytes.as_chunks::<64>();
        for block in blocks {
            let (words, _) = block.as_chunks::<8>();
            let mut digits = 0u64;
            for (k, w) in words.iter().enumerate() {
                let flags = Self::digits(u64::from_le_bytes(*w)) >> 7;
                digits |= (flags.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
            }
            if digits == 0 {
                buf[n..n + 64].copy_from_slice(block);
                n += 64;
            } else {
                let mut padded = [0u8; 128];
                padded[..64].copy_from_slice(block);
                let mut keep = !digits;
                while keep != 0 {
                    let start = keep.trailing_zeros() as usize;
                    let above = digits >> start;
                    let len = if above == 0 {
                        64 - start
                    } else {
                        above.trailing_zeros() as usize
                    };
                    let src = &padded[start..start + 64];
                    let dst = &mut buf[n..n + 64];
                    dst[..16].copy_from_slice(&src[..16]);
                    if len > 16 {
                        dst[16..64].copy_from_slice(&src[16..64]);
                    }
                    n += len;
                    let end = start + len;
                    keep = if end == 64 {
                        0
                    } else {
                        keep & (u64::MAX << end)
                    };
                }
            }
            if n > BUF {
                let whole = n / 32 * 32;
                self.hash.write(&buf[..whole]);
                buf.copy_within(whole..n, 0);
                n -= whole;
            }
        }
        for &b in rest {
            if !b.is_ascii_digit() {
                buf[n] = b;
                n += 1;
            }
        }
        let whole = n / 32 * 32;
        self.hash.write(&buf[..whole]);
        self.rest_len = n - whole;
        self.rest[..self.rest_len].copy_from_slice(&buf[whole..n]);
    }

    /// The digest of everything fed.
    pub fn finish(self) -> u128 {
        self.hash.finish(&self.rest[..self.rest_len])
    }
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
        let [mut a, mut b, mut c, mut d] = self.lanes;
        let mix = |lane: u64, w: &[u8; 8]| {
            (lane ^ u64::from_le_bytes(*w))
                .wrapping_mul(Self::K)
                .rotate_left(29)
        };
        for quad in bytes.as_chunks::<32>().0 {
            let (words, _) = quad.as_chunks::<8>();
            a = mix(a, &words[0]);
            b = mix(b, &words[1]);
            c = mix(c, &words[2]);
            d = mix(d, &words[3]);
        }
        self.lanes = [a, b, c, d];
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

    /// The closing quote after every run of backslashes (none to five) wherever the text is
    /// split, the part before it carrying whether the next byte is escaped.
    #[test]
    fn the_first_quote_is_found_wherever_it_lies() {
        // Every place around the word boundaries and around the 4 KiB switch to memchr, and
        // none at all; bytes with the high bit set and next to the quote's value too.
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 4095, 4096, 4097, 4103, 9000] {
            let base: Vec<u8> = (0..len)
                .map(|i| [b'a', b'!', b'#', 0xe2, b'\\'][i % 5])
                .collect();
            assert_eq!(find_quote(&base), None, "len {len}");
            for at in (0..len).filter(|a| *a < 20 || a.abs_diff(4096) < 20 || *a + 20 > len) {
                let mut h = base.clone();
                h[at] = b'"';
                if at + 3 < len {
                    h[at + 3] = b'"';
                }
                assert_eq!(find_quote(&h), Some(at), "len {len}, at {at}");
            }
        }
    }

    #[test]
    fn the_closing_quote_is_found_after_any_run_of_backslashes_split_anywhere() {
        for run in 0..6 {
            for lead in ["", "a", "\\u00e9", "\\\\", "\\\""] {
                // `lead`, `run` backslashes, a quote, then (when that quote is escaped)
                // more text and the closing quote.
                let mut text = format!("{lead}{}\"", "\\".repeat(run));
                let want = if run % 2 == 0 {
                    text.len() - 1
                } else {
                    text.push_str("x\\\\\"");
                    text.len() - 1
                };
                let text = text.as_bytes();
                assert_eq!(closing_quote(text, &mut false), Some(want), "{text:?}");
                for at in 0..=text.len() {
                    let mut escaped = false;
                    let got = match closing_quote(&text[..at], &mut escaped) {
                        Some(q) => Some(q),
                        None => closing_quote(&text[at..], &mut escaped).map(|q| at + q),
                    };
                    assert_eq!(got, Some(want), "{text:?} split at {at}");
                }
                // Without its closing quote: none, and what follows is escaped after an odd
                // run.
                let open = &text[..want];
                let mut escaped = false;
                assert_eq!(closing_quote(open, &mut escaped), None);
                let trailing = open.iter().rev().take_while(|&&b| b == b'\\').count();
                assert_eq!(escaped, trailing % 2 == 1, "{open:?}");
            }
        }
    }

    /// Every pattern of digits in two words, wherever they fall in a block of 64 bytes read
    /// at once (and in the bytes after the last whole block), leaves the bytes that are not
    /// digits, in order: the digest is that of the text without them.
    #[test]
    fn every_pattern_of_digits_in_a_word_is_taken_out() {
        for pattern in 0u32..(1 << 16) {
            // Runs of other bytes of every length up to 64 around the pattern.
            let at = (pattern as usize * 7) % 113;
            let text: Vec<u8> = (0..130usize)
                .map(|i| match i.checked_sub(at) {
                    Some(k) if k < 16 && pattern >> k & 1 == 1 => b'0' + (k as u8 % 10),
                    _ => [b'a', b'/', b':', 0xc3, 0xa9, b' ', b'~'][i % 7],
                })
                .collect();
            assert_eq!(
                digest_without_digits(&text),
                digest_by_definition(&text),
                "{pattern:016b}"
            );
        }
    }

    /// The digest's definition: [`LaneHash`] over the bytes that are not ASCII digits.
    fn digest_by_definition(bytes: &[u8]) -> u128 {
        let without: Vec<u8> = bytes
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_digit())
            .collect();
        let whole = without.len() / 32 * 32;
        let mut h = LaneHash::default();
        h.write(&without[..whole]);
        h.finish(&without[whole..])
    }

    /// A xorshift generator: random texts with no dependency.
    fn random_bytes(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                alphabet[(x >> 32) as usize % alphabet.len()]
            })
            .collect()
    }

    /// On random texts (mostly digits, few digits, any byte), whole and fed in pieces split at
    /// every place, the digest is that of the definition.
    #[test]
    fn the_digest_is_that_of_its_definition_on_random_texts_in_any_pieces() {
        let any: Vec<u8> = (0..=255).collect();
        let alphabets: [&[u8]; 4] = [b"0123456789a", b"ab c\\n0/:", b"0123456789", &any];
        for (k, alphabet) in alphabets.iter().enumerate() {
            for len in [0, 1, 7, 8, 9, 31, 32, 33, 100, 1000, 4099] {
                let text = random_bytes(k as u64 * 7919 + len as u64, len, alphabet);
                let want = digest_by_definition(&text);
                assert_eq!(digest_without_digits(&text), want, "{k} {len}");
                let splits: Vec<usize> = if len <= 100 {
                    (0..=len).collect()
                } else {
                    vec![1, 5, 8, 13, len / 2, len - 3]
                };
                for at in splits {
                    let mut d = DigestWithoutDigits::default();
                    d.update(&text[..at]);
                    d.update(&text[at..]);
                    assert_eq!(d.finish(), want, "{k} {len} split at {at}");
                }
                // And in pieces of every size up to 17 at once.
                for piece in 1..18 {
                    let mut d = DigestWithoutDigits::default();
                    text.chunks(piece).for_each(|c| d.update(c));
                    assert_eq!(d.finish(), want, "{k} {len} pieces of {piece}");
                }
            }
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
    /// where a writer escapes non-ASCII): no character boundary without a backslash before it,
    /// so it is cut just before an escape, never between the two halves of a pair.
    #[test]
    fn a_text_of_escapes_is_cut_between_them_and_never_inside_a_pair() {
        for (inner, unit) in [
            ("\\ud83d\\ude00".repeat(BOUND / 12 + 10), "😀"),
            ("\\u4e2d\\u6587".repeat(BOUND / 12 + 10), "中文"),
        ] {
            let raw = format!("{{\"tool_response\": \"{inner}\"}}");
            let short = shorten(raw.as_bytes());
            assert!(matches!(short, Cow::Owned(_)));
            let v: Value = serde_json::from_str(&raw).unwrap();
            let back: Value = serde_json::from_slice(&short).expect("still JSON");
            let original = v["tool_response"].as_str().unwrap();
            let text = back["tool_response"].as_str().unwrap();
            let (head, tail, _) = parts(original, text);
            // Whole units on each side (a pair's halves never apart).
            assert!(text[..head].chars().all(|c| unit.contains(c)));
            assert!(text[text.len() - tail..].chars().all(|c| unit.contains(c)));
        }
        // Not well-formed (continuation bytes only): no place to cut, kept as it came.
        let mut raw = b"{\"error\": \"".to_vec();
        raw.extend(std::iter::repeat_n(0x80u8, BOUND + 10));
        raw.extend_from_slice(b"\"}");
        assert!(matches!(shorten(&raw), Cow::Borrowed(_)));
    }

    /// `raw` read by [`Streaming`] in pieces of `piece` bytes.
    fn streamed(raw: &[u8], piece: usize) -> Vec<u8> {
        let mut s = Streaming::default();
        raw.chunks(piece.max(1)).for_each(|c| s.feed(c));
        s.finish()
    }

    /// Payloads whose huge strings hold every kind of escape, UTF-8 characters of every width,
    /// surrogate pairs, runs of escaped backslashes, line breaks or none, nested or not, under
    /// a result's key or not (a prompt, a tool's input, a huge top-level key, a top-level
    /// array), compact or pretty-printed.
    fn payloads() -> Vec<Vec<u8>> {
        let log: String = (0..60_000)
            .map(|i| format!("test case_{i} ... ok\n"))
            .collect();
        let units = [
            "\"", "\\", "é", "€", "😀", "\u{1}", "a", "\t", "\u{7f}", "/", "\n", "xyz",
        ];
        let mut mixed = String::new();
        let mut i = 3usize;
        while mixed.len() < 3 * BOUND {
            mixed.push_str(units[i % units.len()]);
            i = (i * 7 + 3) % 1_000_003;
        }
        let raw_units = [
            "\\ud83d\\ude00",
            "\\u00e9",
            "\\\"",
            "\\\\",
            "\\\\\\\\\\\\",
            "ab",
            "é",
            "😀",
            "\\t",
            "\\/",
            "\\n",
        ];
        let mut escaped = String::new();
        let mut i = 5usize;
        while escaped.len() < 3 * BOUND {
            escaped.push_str(raw_units[i % raw_units.len()]);
            i = (i * 7 + 3) % 1_000_003;
        }
        let backslashes = format!("{}x", "\\\\".repeat(200)).repeat(3 * BOUND / 400);
        let pairs = "\\ud83d\\ude00".repeat(3 * BOUND / 12);
        let long = "line of output\n".repeat(BOUND / 10);
        let mut out = vec![
            json!({"tool_response": {"stdout": log, "stderr": "", "interrupted": false}})
                .to_string(),
            json!({"session_id": "s", "error": mixed, "n": [1, 2]}).to_string(),
            serde_json::to_string_pretty(&json!({"tool_response": {"stdout": log}})).unwrap(),
            format!("{{\"tool_output\": [\"{escaped}\", \"{backslashes}\"], \"x\": 1}}"),
            format!("{{\"tool_result\" : {{ \"a\" : \"{pairs}\" }} }}"),
            json!({"tool_response": {"stdout": long, "items": [long, {"k": long}]},
                   "prompt": long, "tool_input": {"content": long, "error": long}})
            .to_string(),
            json!({"error": "x", long.clone(): 1, "after": long}).to_string(),
            json!([{"tool_response": long}, long]).to_string(),
            json!({"tool_response": "short", "other": {"error": long}}).to_string(),
        ];
        // The line break where the tail is cut right after 800 000 escaped backslashes: which
        // backslash starts an escape there is known only by counting back over all of them.
        let run = format!(
            "{}{}\\n{}",
            "line\\n".repeat(30_000),
            "\\\\".repeat(400_000),
            "t".repeat(KEEP - 20)
        );
        out.push(format!("{{\"error\": \"{run}\"}}"));
        out.push(json!({"tool_response": "y".repeat(BOUND)}).to_string());
        out.push(json!({"tool_response": "y".repeat(BOUND + 1)}).to_string());
        out.into_iter().map(String::into_bytes).collect()
    }

    /// Read in pieces of any size (one byte at a time: every place in every escape, UTF-8
    /// character and surrogate pair falls at a piece's end), the payload comes out as
    /// `shorten` makes it of the whole, and `shorten` leaves that as it is.
    #[test]
    fn shortening_while_reading_is_shortening_the_whole_in_pieces_of_any_size() {
        for (k, raw) in payloads().iter().enumerate() {
            let want = shorten(raw).into_owned();
            for piece in [raw.len(), 65_536, 4096, 13, 8, 7, 5, 3, 1] {
                let got = streamed(raw, piece);
                assert!(got == want, "payload {k} in pieces of {piece}");
            }
            assert!(matches!(shorten(&want), Cow::Borrowed(_)), "payload {k}");
            serde_json::from_slice::<Value>(&want).expect("still JSON");
        }
    }

    /// Split in two at every place within 12 bytes of where the string starts, its head is
    /// cut and decided, its tail is looked for, and its end.
    #[test]
    fn shortening_while_reading_is_the_same_wherever_the_payload_is_split() {
        // The ones whose strings are escapes everywhere (and runs of backslashes).
        let all = payloads();
        for raw in [1, 3, 4, 9].map(|k| &all[k]) {
            let want = shorten(raw).into_owned();
            let open = raw.windows(3).position(|w| w == b"\": ").unwrap_or(0);
            let len = raw.len();
            let places = [open, open + KEEP, open + BOUND, len - KEEP, len - 40];
            for at in places
                .iter()
                .flat_map(|&p| p.saturating_sub(12)..(p + 12).min(len))
            {
                let mut s = Streaming::default();
                s.feed(&raw[..at]);
                s.feed(&raw[at..]);
                assert!(s.finish() == want, "split at {at}");
            }
        }
    }

    /// What is not JSON: cut off inside a string being shortened, the head is kept and the
    /// rest dropped only where the payload was long; it does not parse either way.
    #[test]
    fn a_payload_cut_off_while_shortening_is_still_not_json() {
        let raw = format!("{{\"tool_response\": \"{}", "z\\n".repeat(BOUND));
        let got = streamed(raw.as_bytes(), 4096);
        assert!(got.len() < raw.len() && raw.as_bytes().starts_with(&got[..KEEP]));
        assert!(serde_json::from_slice::<Value>(&got).is_err());
        let short = "{\"tool_response\": \"abc\\";
        assert_eq!(streamed(short.as_bytes(), 1), short.as_bytes());
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
