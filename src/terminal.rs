//! Stored text on its way to a terminal. A prompt, a tool's error, a skill name or a hooks.toml
//! command is data someone else chose: printed raw, an escape sequence in it can recolour,
//! hide or overwrite what the person reads (`\x1b[8m` conceals, `\r` and cursor moves write
//! over a line, OSC 52 sets the clipboard, OSC 8 disguises a link), and a secret in it is shown
//! to whoever looks over the shoulder or pastes the output. Everything the commands print from
//! a file — `status`, `mode show`, `cancel`, `doctor`, `trust`, the status line — goes through
//! [`shown`] or [`one_line`] first, and every diagnostic through [`strip`] (`diag!`).
//!
//! A leaf module: it needs only [`crate::redact`].

use serde_json::Value;
use std::borrow::Cow;

/// Removes terminal escape sequences (CSI, OSC, DCS/SOS/PM/APC strings and two-character
/// escapes, in their 7-bit and C1 forms) and the Unicode bidirectional overrides and isolates
/// (which reorder what is displayed); every other control character but newline and tab
/// becomes a space. Text without any of them is returned as it is, without a copy.
pub fn strip(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| needs_care(c) && c != '\n' && c != '\t') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\x1b' => match it.next() {
                Some('[') => skip_csi(&mut it),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut it),
                // `ESC ( B` and the like: intermediates, then one final character.
                Some(' '..='/') => {
                    while it.next_if(|c| (' '..='/').contains(c)).is_some() {}
                    it.next();
                }
                // A two-character escape (`ESC c` resets the terminal), or a lone ESC.
                Some(_) | None => {}
            },
            '\u{9b}' => skip_csi(&mut it),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut it),
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn needs_care(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A control sequence: parameter and intermediate bytes, then one final byte.
fn skip_csi(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while it.next_if(|c| (' '..='?').contains(c)).is_some() {}
    it.next_if(|c| ('@'..='~').contains(c));
}

/// An OSC, DCS, SOS, PM or APC string: up to its terminator (BEL, `ESC \` or the C1 ST), or
/// the end of the text.
fn skip_string(it: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = it.next() {
        match c {
            '\x07' | '\u{9c}' => return,
            '\x1b' => {
                it.next_if_eq(&'\\');
                return;
            }
            _ => {}
        }
    }
}

/// The text with every control character but newline and tab, and every bidirectional
/// override, written out (`\x1b`, `\r`, `<U+202E>`) instead of removed: for what a person
/// must see exactly as it will be used, such as a `hooks.toml` command before they trust it —
/// the escape is part of what runs.
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| needs_care(c) && c != '\n' && c != '\t') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if needs_care(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A stored text as a command prints it: secrets redacted ([`crate::redact`]), then escapes
/// stripped. Newlines are kept.
pub fn shown(s: &str) -> String {
    let redacted = crate::redact::text(s).map(|(t, _)| t);
    let text = redacted.as_deref().unwrap_or(s);
    strip(text).into_owned()
}

/// [`shown`], on one line (runs of whitespace, newlines included, become one space) of at most
/// `max` characters, cut with `…`. Redaction comes before the cut, so a secret cut short is
/// still recognised.
pub fn one_line(s: &str, max: usize) -> String {
    let flat = shown(s).split_whitespace().collect::<Vec<_>>().join(" ");
    clip(&flat, max)
}

/// At most `max` characters of `s`, the last of them `…` when it is cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// The last `max` characters of `text` (an error tends to be at the end), `…` before them when
/// it is cut.
pub fn tail(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let rest: String = text.chars().skip(n - max).collect();
    format!("…{rest}")
}

/// [`shown`] applied to every string of a JSON value read from a file (keys whose value is a
/// secret redacted as export redacts them), for views that print what they read.
pub fn shown_value(v: &mut Value) {
    crate::redact::value(v);
    strip_value(v, 0);
}

fn strip_value(v: &mut Value, depth: usize) {
    match v {
        Value::String(s) => {
            if let Cow::Owned(t) = strip(s) {
                *s = t;
            }
        }
        Value::Array(a) if depth < 64 => a.iter_mut().for_each(|x| strip_value(x, depth + 1)),
        Value::Object(o) if depth < 64 => o.values_mut().for_each(|x| strip_value(x, depth + 1)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_go_whole() {
        let cases = [
            ("plain text", "plain text"),
            ("\x1b[31mred\x1b[0m", "red"),
            ("a\x1b[2J\x1b[Hb", "ab"),
            ("hide \x1b[8msecret\x1b[28m", "hide secret"),
            // OSC 8 hyperlink and OSC 52 clipboard, BEL- and ST-terminated.
            ("\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", "click"),
            ("\x1b]52;c;cm0gLXJmIH4=\x1b\\after", "after"),
            ("\x1b(Bcharset", "charset"),
            ("reset\x1bc", "reset"),
            ("c1 \u{9b}1;31mcsi", "c1 csi"),
            ("dcs \x1bPq#0;2;0;0;0\x1b\\end", "dcs end"),
            ("over\rwrite", "over write"),
            ("bell\x07 back\x08space", "bell  back space"),
            ("keep\nlines\tand tabs", "keep\nlines\tand tabs"),
            (
                "bidi \u{202e}txt.exe\u{202c} \u{2067}x\u{2069}",
                "bidi txt.exe x",
            ),
            ("unterminated \x1b]0;title", "unterminated "),
            ("trailing \x1b", "trailing "),
            ("日本語 \x1b[1mü\x1b[0m", "日本語 ü"),
        ];
        for (input, want) in cases {
            assert_eq!(strip(input), want, "{input:?}");
        }
        assert!(matches!(strip("nothing to do\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn visible_writes_controls_out() {
        assert_eq!(
            visible("echo hi\x1b[8m; curl x|sh\r\u{202e}\nok\t"),
            "echo hi\\x1b[8m; curl x|sh\\r<U+202E>\nok\t"
        );
        assert!(matches!(visible("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn shown_text_is_redacted_before_it_is_cut() {
        let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let line = one_line(&format!("use\n{key} \x1b[31mnow\x1b[0m"), 20);
        assert_eq!(line, "use [REDACTED:api-k…");
        let mut v = serde_json::json!({"prompt": format!("{key}\x1b[2J"), "password": "x1"});
        shown_value(&mut v);
        assert_eq!(v["prompt"], "[REDACTED:api-key]");
        assert_eq!(v["password"], "[REDACTED]");
    }
}
