//! What differs between two runs of the same command with the same result, masked before the
//! result is marked (issues 34 and 41, contract §6): the same failure is the same failure.
//!
//! A test that fails the same way prints a new temporary directory, seed, object address or
//! process id on every run; marked as they are, its output would be new each time, and a model
//! going round the same failure would pass for one making progress. Each row of [`SHAPES`] is one
//! such shape, with an example and what it becomes; [`mask`] applies them all to a text. A row
//! masks only the changing part where the rest tells something (`(node:#)`, `seed=#`), so a
//! different failing test, a different count of failures or a different message stays
//! different. Shapes are found by hand-written matchers (no regular-expression engine to build
//! at each hook start); each is a function of the text, no state.

/// One volatile shape.
pub struct Shape {
    /// What it is.
    pub name: &'static str,
    /// A text holding it, and the same text masked (a unit test applies every row to its
    /// example).
    pub example: &'static str,
    pub masked: &'static str,
    /// The bytes it can start with: `find` is tried only at these (a unit test holds every
    /// row to it), so most bytes of a long output are passed over with one look-up.
    first: &'static str,
    /// Those of its first bytes it can start with right after an ASCII letter or digit (most
    /// rows need a word's start): inside a word or a number, only these are tried.
    inside: &'static str,
    /// At byte `i` of `text` (an ASCII byte): where the shape starting there ends, and what
    /// replaces it.
    find: fn(text: &str, i: usize) -> Option<(usize, String)>,
}

const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdefABCDEF";

/// The volatile shapes, tried in this order at each position (the first that matches wins).
pub const SHAPES: &[Shape] = &[
    Shape {
        name: "a temporary path (under /tmp, /var/tmp, /var/folders, /dev/shm, $TMPDIR's usual places)",
        example: "FileNotFoundError: /tmp/pytest-of-ann/pytest-12/test_load0/data.json: missing",
        masked: "FileNotFoundError: <tmp>: missing",
        first: "/",
        inside: "",
        find: temp_path,
    },
    Shape {
        name: "pytest's numbered base directory elsewhere (--basetemp, Windows' %TEMP%)",
        example: "in build/pytest-of-ann/pytest-7/test_a0",
        masked: "in build/pytest-of-#/pytest-#/test_a0",
        first: "p",
        inside: "",
        find: pytest_dir,
    },
    Shape {
        name: "a mktemp or tempfile name",
        example: "wrote tmp.Xk2Hd8Qa1z and tmpk3j_2xq1",
        masked: "wrote tmp.# and tmp#",
        first: "t",
        inside: "",
        find: temp_name,
    },
    Shape {
        name: "a UUID",
        example: "job 3f2b8c1e-9d4a-4e6b-8f0a-1c2d3e4f5a6b failed",
        masked: "job <uuid> failed",
        first: HEX,
        inside: "",
        find: uuid,
    },
    Shape {
        name: "a request id",
        example: "request_id=a81bc23f9e, req_011CTx9Lm2",
        masked: "request_id=#, req_#",
        first: "rR",
        inside: "",
        find: request_id,
    },
    Shape {
        name: "a port on this machine",
        example: "listening on 127.0.0.1:54321 and localhost:3000",
        masked: "listening on 127.0.0.1:# and localhost:#",
        first: "lL10[",
        inside: "[",
        find: local_port,
    },
    Shape {
        name: "a process id: (node:N), pid N, pid=N, [N] of three digits or more",
        example: "(node:12345) Warning; worker pid 4242 exited; sshd[901]: up",
        masked: "(node:#) Warning; worker pid # exited; sshd[#]: up",
        first: "([pP",
        inside: "([",
        find: pid,
    },
    Shape {
        name: "a memory address (0x and six hex digits or more)",
        example: "<app.Foo object at 0x7f3a2c1b9d30>",
        masked: "<app.Foo object at 0x#>",
        first: "0",
        inside: "",
        find: hex_address,
    },
    Shape {
        name: "a random seed",
        example: "Using --randomly-seed=3141592; Randomized with seed 4711",
        masked: "Using --randomly-seed=#; Randomized with seed #",
        first: "sS",
        inside: "sS",
        find: seed,
    },
    Shape {
        name: "a duration, a clock time, a date-time",
        example: "1 failed in 0.53s at 12:04:55 (2026-12-06T20:01:02Z, took 120 ms)",
        masked: "1 failed in # at # (#Z, took #)",
        first: DIGITS,
        inside: "",
        find: time_number,
    },
];

/// For each byte after a byte that is not an ASCII letter or digit (`ROWS[c]`) and after one
/// that is (`ROWS[256 + c]`), the rows of [`SHAPES`] that can start with it (bit `k`: row `k`),
/// from each row's `first` and `inside`; bit 15 says whether the byte itself is an ASCII letter
/// or digit, which picks the half for the next byte. Non-ASCII bytes start no row.
const ROWS: [u16; 512] = {
    let mut table = [0u16; 512];
    let mut row = 0;
    while row < SHAPES.len() {
        let (first, inside) = (SHAPES[row].first.as_bytes(), SHAPES[row].inside.as_bytes());
        let mut k = 0;
        while k < first.len() {
            table[first[k] as usize] |= 1 << row;
            k += 1;
        }
        k = 0;
        while k < inside.len() {
            table[256 + inside[k] as usize] |= 1 << row;
            k += 1;
        }
        row += 1;
    }
    let mut c = 0;
    while c < 256 {
        if (c as u8).is_ascii_alphanumeric() {
            table[c] |= ALNUM;
            table[256 + c] |= ALNUM;
        }
        c += 1;
    }
    table
};

/// Bit 15 of a [`ROWS`] entry: the byte is an ASCII letter or digit.
const ALNUM: u16 = 1 << 15;

/// The half of [`ROWS`] for the byte after one whose entry is `entry`.
fn half_after(entry: u16) -> usize {
    if entry & ALNUM != 0 { 256 } else { 0 }
}

/// `text` with every volatile shape masked.
pub fn mask(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    // 256 when the byte before `i` is an ASCII letter or digit: the half of ROWS to look in.
    let mut half = 0;
    while i < b.len() {
        let entry = ROWS[half + b[i] as usize];
        let mut rows = entry & !ALNUM;
        if rows == 0 {
            // Most bytes: no row starts here.
            half = half_after(entry);
            i += 1;
            continue;
        }
        // The rows that may start here, in order; the first that matches wins.
        let mut found = None;
        while rows != 0 && found.is_none() {
            let k = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            found = (SHAPES[k].find)(text, i);
        }
        match found {
            Some((end, with)) if end > i => {
                out.push_str(&text[copied..i]);
                out.push_str(&with);
                copied = end;
                i = end;
                half = half_after(ROWS[usize::from(b[end - 1])]);
            }
            _ => {
                i += 1;
                half = half_after(entry);
            }
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Whether the byte before `i` ends a word (or there is none).
fn boundary(text: &str, i: usize) -> bool {
    i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric()
}

/// The end of a run of bytes from `i` that satisfy `f`.
fn run(text: &str, i: usize, f: impl Fn(u8) -> bool) -> usize {
    let b = text.as_bytes();
    let mut j = i;
    while j < b.len() && f(b[j]) {
        j += 1;
    }
    j
}

fn digits(text: &str, i: usize) -> usize {
    run(text, i, |c| c.is_ascii_digit())
}

/// `prefix` at byte `i` (compared as bytes: no character boundary to check, and a short
/// constant prefix is compared in place).
#[inline(always)]
fn has(text: &str, i: usize, prefix: &str) -> bool {
    text.as_bytes()[i..].starts_with(prefix.as_bytes())
}

/// Case-insensitive prefix at `i`.
fn at(text: &str, i: usize, prefix: &str) -> bool {
    text.as_bytes()
        .get(i..i + prefix.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(prefix.as_bytes()))
}

const TEMP_ROOTS: &[&str] = &[
    "/tmp/",
    "/var/tmp/",
    "/private/tmp/",
    "/var/folders/",
    "/private/var/folders/",
    "/dev/shm/",
];

fn temp_path(text: &str, i: usize) -> Option<(usize, String)> {
    let b = text.as_bytes();
    if b[i] != b'/' || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'/')) {
        return None;
    }
    let root = TEMP_ROOTS.iter().find(|r| has(text, i, r))?;
    let end = run(text, i + root.len(), |c| {
        !c.is_ascii_whitespace() && !b"'\"`,;:)]}>".contains(&c)
    });
    (end > i + root.len()).then(|| (end, "<tmp>".into()))
}

fn pytest_dir(text: &str, i: usize) -> Option<(usize, String)> {
    if !has(text, i, "pytest-of-") || !boundary(text, i) {
        return None;
    }
    // `/` or, on Windows, `\` between the two.
    let user_end = run(text, i + 10, |c| {
        c != b'/' && c != b'\\' && !c.is_ascii_whitespace()
    });
    let rest = &text[user_end..];
    let n = rest
        .strip_prefix("/pytest-")
        .or_else(|| rest.strip_prefix("\\pytest-"))?;
    let d = digits(n, 0);
    let sep = &text[user_end..user_end + 1];
    (d > 0).then(|| (user_end + 8 + d, format!("pytest-of-#{sep}pytest-#")))
}

fn temp_name(text: &str, i: usize) -> Option<(usize, String)> {
    if !has(text, i, "tmp") || !boundary(text, i) {
        return None;
    }
    let b = text.as_bytes();
    if b.get(i + 3) == Some(&b'.') {
        // mktemp: tmp.XXXXXXXXXX
        let end = run(text, i + 4, |c| c.is_ascii_alphanumeric());
        return (end - (i + 4) >= 6 && !word_continues(b, end)).then(|| (end, "tmp.#".into()));
    }
    // Python's tempfile: tmp + 8 of [a-z0-9_], with a digit or `_` among them.
    let end = run(text, i + 3, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'
    });
    let name = &text[i + 3..end];
    (name.len() == 8 && name.contains(|c: char| c.is_ascii_digit() || c == '_'))
        .then(|| (end, "tmp#".into()))
}

fn word_continues(b: &[u8], end: usize) -> bool {
    b.get(end)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

fn uuid(text: &str, i: usize) -> Option<(usize, String)> {
    let b = text.as_bytes();
    // Eight hex digits, then a `-`: one look rejects most words.
    if b.get(i + 8) != Some(&b'-') || !b[i].is_ascii_hexdigit() || !boundary(text, i) {
        return None;
    }
    let mut j = i;
    for (n, len) in [8, 4, 4, 4, 12].iter().enumerate() {
        if n > 0 {
            if b.get(j) != Some(&b'-') {
                return None;
            }
            j += 1;
        }
        let end = run(text, j, |c| c.is_ascii_hexdigit());
        if end - j != *len {
            return None;
        }
        j = end;
    }
    (!word_continues(b, j)).then(|| (j, "<uuid>".into()))
}

fn request_id(text: &str, i: usize) -> Option<(usize, String)> {
    if !boundary(text, i) {
        return None;
    }
    let b = text.as_bytes();
    if has(text, i, "req_") {
        let end = run(text, i + 4, |c| c.is_ascii_alphanumeric());
        return (end - (i + 4) >= 8).then(|| (end, "req_#".into()));
    }
    if !at(text, i, "request") {
        return None;
    }
    let mut j = i + 7;
    if matches!(b.get(j), Some(b'-' | b'_' | b' ')) {
        j += 1;
    }
    if !at(text, j, "id") {
        return None;
    }
    j += 2;
    let sep = run(text, j, |c| matches!(c, b' ' | b':' | b'=' | b'"' | b'\''));
    let end = run(text, sep, |c| {
        c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
    });
    (sep > j && end - sep >= 6).then(|| (end, format!("{}#", &text[i..sep])))
}

fn local_port(text: &str, i: usize) -> Option<(usize, String)> {
    if !boundary(text, i) && text.as_bytes()[i] != b'[' {
        return None;
    }
    let c = text.as_bytes()[i].to_ascii_lowercase();
    let host = ["localhost:", "127.0.0.1:", "0.0.0.0:", "[::1]:", "[::]:"]
        .into_iter()
        .find(|h| h.as_bytes()[0] == c && at(text, i, h))?;
    let start = i + host.len();
    let end = digits(text, start);
    (end > start && !word_continues(text.as_bytes(), end))
        .then(|| (end, format!("{}#", &text[i..start])))
}

fn pid(text: &str, i: usize) -> Option<(usize, String)> {
    let b = text.as_bytes();
    match b[i] {
        // (node:12345)
        b'(' => {
            let name_end = run(text, i + 1, |c| {
                c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
            });
            if name_end == i + 1 || b.get(name_end) != Some(&b':') {
                return None;
            }
            let end = digits(text, name_end + 1);
            (end > name_end + 1 && b.get(end) == Some(&b')'))
                .then(|| (end + 1, format!("{}#)", &text[i..=name_end])))
        }
        // sshd[901]
        b'[' => {
            let end = digits(text, i + 1);
            (end - (i + 1) >= 3 && b.get(end) == Some(&b']')).then(|| (end + 1, "[#]".into()))
        }
        // pid 4242, pid=4242, PID: 4242
        b'p' | b'P' if boundary(text, i) && at(text, i, "pid") => {
            let sep = run(text, i + 3, |c| matches!(c, b' ' | b':' | b'='));
            let end = digits(text, sep);
            (sep > i + 3 && end > sep && !word_continues(b, end))
                .then(|| (end, format!("{}#", &text[i..sep])))
        }
        _ => None,
    }
}

fn hex_address(text: &str, i: usize) -> Option<(usize, String)> {
    if !has(text, i, "0x") || !boundary(text, i) {
        return None;
    }
    let end = run(text, i + 2, |c| c.is_ascii_hexdigit());
    (end - (i + 2) >= 6 && !word_continues(text.as_bytes(), end)).then(|| (end, "0x#".into()))
}

fn seed(text: &str, i: usize) -> Option<(usize, String)> {
    // `seed` as a word or a word's last part (`randomly-seed`, `random_seed`, `Seed`).
    let b = text.as_bytes();
    if (i > 0 && b[i - 1].is_ascii_alphabetic()) || !at(text, i, "seed") {
        return None;
    }
    let sep = run(text, i + 4, |c| matches!(c, b' ' | b':' | b'=' | b'('));
    let end = digits(text, sep);
    (sep > i + 4 && sep - (i + 4) <= 3 && end > sep && !word_continues(b, end))
        .then(|| (end, format!("{}#", &text[i..sep])))
}

/// The time units [`time_number`] knows, longest first where one starts another.
const UNITS: &[&str] = &[
    "ms", "µs", "us", "ns", "seconds", "second", "secs", "sec", "s", "minutes", "min", "m",
];

/// The first bytes of [`UNITS`] (`µ` starts with 0xC2; a unit test holds the two together).
const UNIT_FIRST: &[u8] = b"mun\xc2s";

/// A number with a time unit (`0.53s`, `12 ms`), a clock time (`12:04:55`), an ISO date-time.
fn time_number(text: &str, i: usize) -> Option<(usize, String)> {
    let b = text.as_bytes();
    if !b[i].is_ascii_digit() || !boundary(text, i) {
        return None;
    }
    // Digits, and the separators of a decimal, a clock time or a date-time.
    let mut j = run(text, i, |c| {
        c.is_ascii_digit() || matches!(c, b'.' | b':' | b'-' | b'T')
    });
    while j > i && !b[j - 1].is_ascii_digit() {
        j -= 1;
    }
    let token = &text[i..j];
    // After a `:` it is a line and column (`app.py:12:13`), which tell where.
    let after_colon = i > 0 && b[i - 1] == b':';
    if token.contains(':') && token.len() >= 5 && !after_colon {
        return Some((j, "#".into()));
    }
    let after = text[j..].trim_start_matches(' ');
    // Most numbers have no unit: one look at the byte after them.
    if !after
        .as_bytes()
        .first()
        .is_some_and(|c| UNIT_FIRST.contains(c))
        || !token.bytes().all(|c| c.is_ascii_digit() || c == b'.')
    {
        return None;
    }
    let unit = UNITS.iter().find(|u| {
        after.starts_with(**u)
            && after[u.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric())
    })?;
    Some((text.len() - after.len() + unit.len(), "#".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row matches only at the bytes its `first` names, and right after a letter or
    /// digit only at those its `inside` names: tried at every place of every example and test
    /// text of this module (and of shapes run into words), each row finds nothing anywhere
    /// else.
    #[test]
    fn every_row_starts_only_with_its_first_bytes() {
        let source = include_str!("volatile.rs");
        let mut texts: Vec<&str> = SHAPES.iter().map(|s| s.example).collect();
        texts.extend(source.lines());
        texts.push(source);
        let run_in: Vec<String> = SHAPES
            .iter()
            .flat_map(|s| ["x", "7", "_", "-"].map(|p| format!("{p}{} a{}", s.example, s.example)))
            .collect();
        texts.extend(run_in.iter().map(String::as_str));
        texts.push("at host[::1]:8080, 9seed=42, x(node:12345) and sshd[901]");
        for s in SHAPES {
            assert!(s.inside.chars().all(|c| s.first.contains(c)), "{}", s.name);
        }
        assert!(SHAPES.len() < 16, "ROWS holds a row a bit, and ALNUM");
        for text in texts {
            for (i, c) in text.char_indices().filter(|(_, c)| c.is_ascii()) {
                for s in SHAPES {
                    if (s.find)(text, i).is_some() {
                        assert!(
                            s.first.contains(c),
                            "{} matched at {c:?}, not among {:?}: {text}",
                            s.name,
                            s.first
                        );
                        let after_word = i > 0 && text.as_bytes()[i - 1].is_ascii_alphanumeric();
                        assert!(
                            !after_word || s.inside.contains(c),
                            "{} matched at {c:?} inside a word, not among {:?}: {text}",
                            s.name,
                            s.inside
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn unit_first_holds_the_first_byte_of_every_unit() {
        let mut first: Vec<u8> = UNITS.iter().map(|u| u.as_bytes()[0]).collect();
        first.sort_unstable();
        first.dedup();
        let mut listed = UNIT_FIRST.to_vec();
        listed.sort_unstable();
        assert_eq!(first, listed);
    }

    #[test]
    fn every_row_masks_its_example() {
        for s in SHAPES {
            assert_eq!(mask(s.example), s.masked, "{}", s.name);
            assert_ne!(s.example, s.masked, "{}", s.name);
        }
    }

    /// The same failure, differing only by one volatile number, is the same text.
    #[test]
    fn the_same_failure_with_another_number_is_the_same() {
        for (a, b) in [
            (
                "E   FileNotFoundError: /tmp/pytest-of-ann/pytest-3/test_load0/x.json",
                "E   FileNotFoundError: /tmp/pytest-of-ann/pytest-4/test_load0/x.json",
            ),
            (
                "Using --randomly-seed=1234\n1 failed",
                "Using --randomly-seed=98765\n1 failed",
            ),
            (
                "assert <app.Foo object at 0x7f3a2c1b9d30> == 3",
                "assert <app.Foo object at 0x7f11ee020a90> == 3",
            ),
            (
                "(node:12345) UnhandledPromiseRejection",
                "(node:678) UnhandledPromiseRejection",
            ),
            ("tmp.AbCdEf1234 missing", "tmp.QwErTy9876 missing"),
            (
                r"C:\Users\ann\AppData\Local\Temp\pytest-of-ann\pytest-3\test_a0",
                r"C:\Users\ann\AppData\Local\Temp\pytest-of-ann\pytest-41\test_a0",
            ),
            (
                "server at 127.0.0.1:41235 refused",
                "server at 127.0.0.1:38001 refused",
            ),
        ] {
            assert_eq!(mask(a), mask(b), "{a}");
        }
    }

    /// What is real progress stays different.
    #[test]
    fn a_different_failure_stays_different() {
        for (a, b) in [
            (
                "FAILED test_a.py::test_parse - assert 2 == 3",
                "FAILED test_a.py::test_load - assert 2 == 3",
            ),
            ("3 failed, 2 passed in 0.5s", "2 failed, 3 passed in 0.5s"),
            ("assert 2 == 3", "assert 2 == 4"),
            ("test_x[12] failed", "test_x[13] failed"),
            ("value 0x1f", "value 0x20"),
            ("src/app.py:12: error", "src/app.py:13: error"),
            ("src/app.py:12:13: error", "src/app.py:12:14: error"),
            ("commit 1a2b3c4d5e6f", "commit 1a2b3c4d5e70"),
            ("/home/ann/tmp/a.txt", "/home/ann/tmp/b.txt"),
        ] {
            assert_ne!(mask(a), mask(b), "{a}");
        }
    }

    #[test]
    fn text_beyond_ascii_is_kept() {
        assert_eq!(mask("héllo — 0.5s ✓"), "héllo — # ✓");
    }
}
