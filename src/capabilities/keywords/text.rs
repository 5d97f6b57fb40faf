//! Reading the words around a match: bounded windows, clause and sentence breaks, lowercase
//! words, and the lead-ins a command may start with (`ok`, `please`, `can you`, `i want you to`).
//!
//! Every window is bounded (a few hundred bytes), so judging one match costs the same wherever it
//! sits in the prompt and detection stays linear.

use super::vocab::{ACTIVATION_PAIRS, ACTIVATION_VERBS, FILLERS, LEADINS, RECIPIENTS};

/// Adverbs between `would you mind` and its gerund (`would you mind terribly running …`).
pub(crate) const MIND_ADVERBS: &[&str] = &["terribly", "awfully", "just", "quickly", "maybe"];

/// The largest char boundary at or before `i`.
pub(crate) fn floor(t: &str, mut i: usize) -> usize {
    i = i.min(t.len());
    while !t.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// At most `max` bytes of `t` before `pos`.
pub(crate) fn back(t: &str, pos: usize, max: usize) -> &str {
    &t[floor(t, pos.saturating_sub(max))..pos]
}

/// At most `max` bytes of `t` from `pos`.
pub(crate) fn fwd(t: &str, pos: usize, max: usize) -> &str {
    &t[pos..floor(t, pos + max)]
}

/// An emoji or pictograph (`🙏`, `🚀`, `✅`, `❓`).
pub(crate) fn is_pictograph(c: char) -> bool {
    matches!(c as u32, 0x1F300..=0x1FAFF | 0x2600..=0x27BF)
}

/// Whether `c` (followed by `next`) ends a sentence, or (unless `sentence_only`) a clause.
fn is_break(c: char, next: Option<char>, sentence_only: bool) -> bool {
    let spaced = next.is_none_or(char::is_whitespace);
    match c {
        '\n' | '?' | '？' | '。' | '！' | '；' | ';' => true,
        // an emoji ends a sentence as punctuation does (`ralph pls 🙏 the e2e suite is red`)
        c if is_pictograph(c) => true,
        '.' | '!' => spaced,
        ',' | '，' | '、' | '(' | ')' | '—' | '–' => !sentence_only,
        ':' => !sentence_only && spaced,
        '：' => !sentence_only,
        _ => false,
    }
}

/// The part of `w` after its last break.
pub(crate) fn tail_after_break(w: &str, sentence_only: bool) -> &str {
    let mut cut = None;
    let mut it = w.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|(_, n)| *n);
        if is_break(c, next, sentence_only) {
            cut = Some(i + c.len_utf8());
        }
    }
    cut.map_or(w, |i| &w[i..])
}

/// The part of `w` before its first break, and that break.
pub(crate) fn head_before_break(w: &str, sentence_only: bool) -> (&str, Option<char>) {
    let mut it = w.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|(_, n)| *n);
        if is_break(c, next, sentence_only) {
            return (&w[..i], Some(c));
        }
    }
    (w, None)
}

/// Lowercase words (letters, digits, inner apostrophes and hyphens).
pub(crate) fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-'))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '’' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect()
}

/// `seq` occurs in `ws`.
pub(crate) fn has_seq(ws: &[String], seq: &[&str]) -> bool {
    !seq.is_empty()
        && ws
            .windows(seq.len())
            .any(|w| w.iter().zip(seq).all(|(a, b)| a == b))
}

/// `ws` starts with `seq`.
pub(crate) fn starts(ws: &[String], seq: &[&str]) -> bool {
    ws.len() >= seq.len() && ws.iter().zip(seq).all(|(a, b)| a == b)
}

/// `w` is one of `set`.
pub(crate) fn is(w: Option<&String>, set: &[&str]) -> bool {
    w.is_some_and(|w| set.contains(&w.as_str()))
}

/// Phrases a request may open with, each word one of its `|` alternatives, longest first where
/// they share a start; with whether each asks politely (a question it opens is the request:
/// `can you ralph this?`). A condition that is only a polite frame (`if you could …`, `when you
/// get a chance, …`; `if you can …` stays a condition: `if you can run ralph, the tests go
/// green`), a wish (`i want you to`, `i was hoping you could`), a polite question in another
/// language (`dá pra fazer …`, `kannst du …`, `puedes …`), a step of a sequence (`after that`).
#[rustfmt::skip]
const LEADIN_PHRASES: &[(&str, bool)] = &[
    ("if you'd", true),
    ("if you could|would", true),
    ("when|whenever you can", true),
    ("when|whenever|if you get|have|find a|the|some chance|moment|minute|min|sec|second|time", true),
    ("i'd|we'd be grateful|glad|happy|thankful", false),
    ("i'd|we'd appreciate it", false),
    ("por|per favor|favore", false),
    ("can|could|would|will you|u|we", true),
    ("would|could it be possible to", true),
    ("dá|da pra", true),
    ("kannst|könntest du", true),
    ("puedes|podrías|podrias|pode|podes|poderia", true),
    ("after that", false),
    ("go ahead and", false),
    ("go ahead", false),
    ("let us|'s", false),
    ("time to", false),
    ("i|we want|need you to", true),
    ("i|we want|need to", true),
    ("i|we would like you to", true),
    ("i|we would like to", true),
    ("i|we was|were hoping you could|would", true),
    ("i|we was|were wondering if you could", true),
    ("i|we hope you can", true),
    ("i'd|we'd like you to", false),
    ("i'd|we'd like to", false),
];

/// How many words of `ws` the phrase `p` (words of `|` alternatives) covers, if `ws` opens with it.
fn phrase_len(ws: &[String], p: &str) -> Option<usize> {
    let mut n = 0;
    for alts in p.split(' ') {
        let w = ws.get(n)?;
        if !alts.split('|').any(|a| a == w) {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// Strips polite and conversational lead-ins from the front of a clause's words. Returns how
/// many words were lead-ins and whether a polite request (`can you`, `i want you to`) was among
/// them.
pub(crate) fn strip_leadins(ws: &[String]) -> (usize, bool) {
    let mut at = 0;
    let mut polite = false;
    loop {
        let rest = &ws[at..];
        let w0 = rest.first().map(String::as_str);
        let w1 = rest.get(1).map(String::as_str);
        let step = match (w0, w1) {
            // `would you mind doing …`, `do you mind running …` (the gerund is read as the
            // imperative: [`base_form`])
            (Some("would" | "do"), Some("you")) if rest.get(2).is_some_and(|w| w == "mind") => {
                polite = true;
                // `would you mind terribly running …`
                3 + usize::from(is(rest.get(3), MIND_ADVERBS))
            }
            // `would you be able to build …`, `would you be so kind as to use …`
            (Some("be"), Some("able")) if polite && rest.get(2).is_some_and(|w| w == "to") => 3,
            (Some("be"), Some("so")) if polite && starts(&rest[2..], &["kind", "as", "to"]) => 5,
            _ if let Some((n, asks)) = LEADIN_PHRASES
                .iter()
                .find_map(|(p, asks)| phrase_len(rest, p).map(|n| (n, *asks))) =>
            {
                polite |= asks;
                n
            }
            (Some(w), _) if LEADINS.contains(&w) => 1,
            // `like` as a filler, after another: `so like ulw the …`, `um like, …`
            (Some("like"), _) if at > 0 => 1,
            (Some(w), _) if w.chars().all(|c| c.is_ascii_digit()) => 1,
            // an earlier mode name: "ultrathink and then ralph fix …"
            (Some(w), _) if super::lexicon::is_mode_word(w) => 1,
            _ => 0,
        };
        if step == 0 {
            return (at, polite);
        }
        at += step;
    }
}

/// The imperative of a gerund after `would you mind`: `doing` → `do`, `running` → `run`,
/// `using` → `use`, `giving` → `give`. Only verbs in `known` are recognised; anything else is
/// returned unchanged.
pub(crate) fn base_form(w: &str, known: &[&str]) -> String {
    let Some(stem) = w.strip_suffix("ing").filter(|s| s.len() >= 2) else {
        return w.to_string();
    };
    let b = stem.as_bytes();
    let undoubled =
        (b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2]).then(|| &stem[..stem.len() - 1]);
    let with_e = format!("{stem}e");
    [Some(stem), undoubled, Some(with_e.as_str())]
        .into_iter()
        .flatten()
        .find(|c| known.contains(c))
        .map_or_else(|| w.to_string(), str::to_string)
}

/// `[verb] [fillers…]` (or `[verb pair] [fillers…]`) exactly: `use`, `run the`, `turn on`, `do
/// a quick`; or `give|get <recipient …> a [fillers…]`: `give this a`, `get the pr a`, `give the auth
/// refactor a`.
pub(crate) fn is_activation(rest: &[String]) -> bool {
    let body = match rest {
        [a, b, tail @ ..] if ACTIVATION_PAIRS.iter().any(|p| p[0] == a && p[1] == b) => tail,
        [v, tail @ ..] if ACTIVATION_VERBS.contains(&v.as_str()) => tail,
        // a mode wished for by its noun: `i'd like a code review of …`
        [a, b, tail @ ..]
            if matches!(a.as_str(), "i'd" | "we'd")
                && matches!(b.as_str(), "like" | "love")
                && is(tail.first(), &["a", "an"]) =>
        {
            tail
        }
        [v, tail @ ..] if v == "give" || v == "get" => {
            let Some(a) = tail.iter().position(|w| w == "a" || w == "an") else {
                return false;
            };
            // `give this a`, `give the pr a`, `give the auth refactor a`: a recipient, and the
            // words of its name
            if a == 0 || a > 4 || !RECIPIENTS.contains(&tail[0].as_str()) {
                return false;
            }
            &tail[a..]
        }
        _ => return false,
    };
    body.len() <= 3 && body.iter().all(|w| FILLERS.contains(&w.as_str()))
}

/// The quotation span around `start..end` on its line, if any: (opening quote start, text
/// inside, byte just after the closing quote).
pub(crate) fn quote_span(t: &str, start: usize, end: usize) -> Option<(usize, &str, usize)> {
    let from = floor(t, start.saturating_sub(400));
    let line_start = t[from..start].rfind('\n').map_or(from, |i| from + i + 1);
    let head = &t[line_start..start];
    let pairs = [
        ('"', '"'),
        ('“', '”'),
        ('‘', '’'),
        ('「', '」'),
        ('『', '』'),
        ('«', '»'),
        ('\'', '\''),
    ];
    let mut open: Option<(usize, char, char)> = None;
    let mut prev: Option<char> = None;
    let mut it = head.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|x| x.1);
        if let Some((_, _, close)) = open {
            if c == close && (c != '\'' || next.is_none_or(|n| !n.is_alphanumeric())) {
                open = None;
            }
        } else if let Some((o, cl)) = pairs.iter().find(|(o, _)| *o == c)
            && (*o != '\'' || prev.is_none_or(|p| !p.is_alphanumeric()))
        {
            open = Some((line_start + i, *o, *cl));
        }
        prev = Some(c);
    }
    let (qs, o, close) = open?;
    let tail = fwd(t, end, 400);
    let tail = &tail[..tail.find('\n').unwrap_or(tail.len())];
    let mut ci = tail.char_indices().peekable();
    while let Some((i, c)) = ci.next() {
        let next = ci.peek().map(|x| x.1);
        if c == close && (c != '\'' || next.is_none_or(|n| !n.is_alphanumeric())) {
            let inner = &t[qs + o.len_utf8()..end + i];
            return Some((qs, inner, end + i + c.len_utf8()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leadins() {
        let ws = words("please could you");
        let (n, polite) = strip_leadins(&ws);
        assert!(n == ws.len() && polite);
        let ws = words("i want you to use the");
        let (n, _) = strip_leadins(&ws);
        assert!(is_activation(&ws[n..]));
        let ws = words("we use");
        assert!(!is_activation(&ws[strip_leadins(&ws).0..]));
    }

    #[test]
    fn breaks() {
        assert_eq!(tail_after_break("a. b, c", false), " c");
        assert_eq!(tail_after_break("a. b, c", true), " b, c");
        assert_eq!(tail_after_break("x.y z", true), "x.y z");
        assert_eq!(
            head_before_break(" fix it? yes", true),
            (" fix it", Some('?'))
        );
    }

    #[test]
    fn quotes() {
        let t = "he said \"ralph fix it\" and left";
        let s = t.find("ralph").unwrap();
        let (qs, inner, qe) = quote_span(t, s, s + 5).unwrap();
        assert_eq!((qs, inner, &t[qe..]), (8, "ralph fix it", " and left"));
        let t = "don't ralph it's fine";
        let s = t.find("ralph").unwrap();
        assert!(quote_span(t, s, s + 5).is_none());
    }
}
