//! Blanks out the parts of a prompt that are not the user talking: code, quotes of other
//! text, URLs, paths, pasted transcripts, diffs, hook output.
//!
//! The result has exactly the byte length of the prompt (removed bytes become spaces, newlines
//! stay), so a match found in the prompt can be looked up here by offset, and the rule that
//! blanked each byte is recorded (`blame.rs`) — `omc-hooks detect` reports that rule. Every pass
//! is a single forward scan (the tag pass adds a sort), so the whole thing is linear in the
//! prompt.

use super::blame::{Blame, Recorder};
use super::records::{self, Record};
use std::collections::HashMap;

/// The sanitiser's rules, in the order they are applied; what each recognises is in
/// [`super::rules::RULES`]. The first rule that blanks a byte is the one reported for it.
pub const RULE_NAMES: &[&str] = &[
    "hook-echo",
    "html-comment",
    "fenced-code",
    "indented-code",
    "diff-line",
    "commit-line",
    "log-line",
    "stack-trace",
    "chat-line",
    "history-line",
    "omc-output",
    "bug-report",
    "pasted-document",
    "shell-line",
    "block-quote",
    "table-row",
    "transcript-line",
    "tag-block",
    "inline-code",
    "url",
    "path",
];

/// A rule of [`RULE_NAMES`], by position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum R {
    HookEcho,
    HtmlComment,
    FencedCode,
    IndentedCode,
    DiffLine,
    CommitLine,
    LogLine,
    StackTrace,
    ChatLine,
    HistoryLine,
    OmcOutput,
    BugReport,
    PastedDocument,
    ShellLine,
    BlockQuote,
    TableRow,
    TranscriptLine,
    TagBlock,
    InlineCode,
    Url,
    Path,
}

/// A prompt with everything that is not the user talking blanked out.
#[derive(Debug, Clone)]
pub struct Sanitized {
    /// Same length as the prompt; blanked bytes are spaces (newlines kept).
    pub text: String,
    blame: Blame,
}

impl Sanitized {
    /// The rule that blanked the first blanked byte of `start..end`, if any byte is blanked.
    pub fn blanked_by(&self, start: usize, end: usize) -> Option<&'static str> {
        self.blame
            .first(start, end)
            .map(|r| RULE_NAMES[usize::from(r)])
    }
}

/// Blanks the prompt. See the module documentation.
pub fn sanitize(prompt: &str) -> Sanitized {
    sanitize_near(prompt, &[(0, prompt.len())])
}

/// [`sanitize`], blanking only within `near`: sorted, disjoint byte ranges that hold every
/// candidate to judge and the windows its rules read. A megabyte pasted with tens of thousands
/// of mentions has only its first and last candidates judged ([`super::scan::MAX_JUDGED`]);
/// the rules that carry state from line to line (a fence, a trace, an indented block) still
/// read every line, but nothing outside the ranges is blanked or searched for URLs, paths and
/// inline code. Outside them the text is left as typed: nothing reads it.
pub fn sanitize_near(prompt: &str, near: &[(usize, usize)]) -> Sanitized {
    let mut b = Blanker::new(prompt, true);
    b.near = near.to_vec();
    // the lines, found once for the passes that read them
    let all: Vec<(usize, &str)> = lines(prompt).collect();
    hook_echoes(&mut b, &all);
    html_comments(&mut b);
    line_rules(&mut b, &all);
    tag_blocks(&mut b);
    inline_rules(&mut b);
    let blame = b.blame();
    let text = String::from_utf8(b.bytes).unwrap_or_else(|_| " ".repeat(prompt.len()));
    Sanitized { text, blame }
}

/// The prompt without pasted hook output: what is stored as a run's `prompt` and echoed back
/// in the context. Whitespace-only lines collapse; the text is trimmed.
pub fn strip_echoes(prompt: &str) -> String {
    let mut b = Blanker::new(prompt, false);
    let all: Vec<(usize, &str)> = lines(prompt).collect();
    hook_echoes(&mut b, &all);
    let blame = Sanitized {
        text: String::new(),
        blame: b.blame(),
    };
    let mut out = String::with_capacity(prompt.len());
    let mut blank_run = 0;
    for (start, line) in lines(prompt) {
        let end = start + line.len();
        if end > start && blame.blanked_by(start, end).is_some() {
            continue;
        }
        let l = line.trim_end();
        if l.trim().is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(l);
        out.push('\n');
    }
    out.trim().to_string()
}

struct Blanker<'a> {
    src: &'a str,
    /// The text being blanked (empty when only the blame is wanted).
    bytes: Vec<u8>,
    blame: Recorder,
    /// Only these byte ranges (sorted, disjoint) are blanked.
    near: Vec<(usize, usize)>,
}

impl<'a> Blanker<'a> {
    fn new(src: &'a str, text: bool) -> Self {
        Blanker {
            src,
            bytes: if text {
                src.as_bytes().to_vec()
            } else {
                Vec::new()
            },
            blame: Recorder::new(src.len()),
            near: vec![(0, src.len())],
        }
    }

    /// Whether any of `start..end` lies in the ranges that are blanked.
    fn is_near(&self, start: usize, end: usize) -> bool {
        let k = self.near.partition_point(|r| r.1 <= start);
        self.near.get(k).is_some_and(|r| r.0 < end)
    }

    /// Blanks `start..end` where it lies in the ranges that are blanked.
    fn blank(&mut self, start: usize, end: usize, rule: R) {
        if self.near.len() == 1 && self.near[0] == (0, self.src.len()) {
            return self.blank_all(start, end, rule);
        }
        let mut k = self.near.partition_point(|r| r.1 <= start);
        while let Some(&(a, z)) = self.near.get(k) {
            if a >= end {
                break;
            }
            self.blank_all(start.max(a), end.min(z), rule);
            k += 1;
        }
    }

    fn blank_all(&mut self, start: usize, end: usize, rule: R) {
        let mut start = start.min(self.src.len());
        let mut end = end.min(self.src.len());
        while !self.src.is_char_boundary(start) {
            start -= 1;
        }
        while !self.src.is_char_boundary(end) {
            end += 1;
        }
        if start >= end {
            return;
        }
        if !self.bytes.is_empty() {
            for run in self.bytes[start..end].split_mut(|b| *b == b'\n') {
                run.fill(b' ');
            }
        }
        self.blame.record(start, end, rule as u8);
    }

    fn blame(&mut self) -> Blame {
        std::mem::replace(&mut self.blame, Recorder::new(0)).finish()
    }
}

/// `(offset, line)` for every line, the line without its `\n`.
fn lines(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut off = 0;
    s.split_inclusive('\n').map(move |l| {
        let start = off;
        off += l.len();
        (start, l.strip_suffix('\n').unwrap_or(l))
    })
}

/// Box-drawing and bullet marks Claude Code puts in front of hook output and transcript lines.
fn strip_ui_marks(l: &str) -> &str {
    // (asked of every line: ASCII spaces and `>` by byte, the marks only past an ASCII byte)
    let b = l.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' | b'>' => i += 1,
            c if c < 0x80 => return &l[i..],
            _ => {
                let rest = &l[i..];
                let c = rest.chars().next().unwrap_or(' ');
                if c.is_whitespace() || "⎿●⏺│└├".contains(c) {
                    i += c.len_utf8();
                } else {
                    return rest;
                }
            }
        }
    }
    &l[i..]
}

const ECHO_TAGS: &[&str] = &[
    "MAGIC",
    "RALPH",
    "AUTOPILOT",
    "ULTRAWORK",
    "ULTRAQA",
    "ULTRAPILOT",
    "ULTRAGOAL",
    "RALPLAN",
    "TEAM",
    "PIPELINE",
    "SWARM",
    "SKILL",
    "TOOL",
    "CANCEL",
    "CCG",
    "TDD",
    "CODE",
    "SECURITY",
    "ULTRATHINK",
    "DEEPSEARCH",
    "ANALYZE",
    "ANALYSIS",
    "DEEP-INTERVIEW",
    "AI-SLOP-CLEANER",
    "OMC",
    "OMC-HOOKS",
    "PROJECT",
    "CHECKPOINT",
    "NOTEPAD",
    "SUSPENDED",
    "TIME",
];

const ECHO_PREFIXES: &[&str] = &[
    "stop hook feedback",
    "stop hook blocking error",
    "stop hook error",
    "stop hook stopped continuation",
    "stop says:",
    "userpromptsubmit hook",
    "userpromptsubmit:",
    "pretooluse:",
    "posttooluse:",
    "sessionstart:",
    "sessionstart hook",
    "subagentstop",
    "skill: oh-my-claudecode:",
    "skill: oh-my-codex:",
    "skill: omc",
];

/// What kind of hook-output header a line is.
#[derive(PartialEq)]
enum Echo {
    None,
    /// `[MAGIC KEYWORD…]`: our own UserPromptSubmit context, which has blank lines inside.
    Magic,
    Other,
}

fn echo_header(line: &str) -> Echo {
    let l = strip_ui_marks(line);
    if let Some(rest) = l.strip_prefix('[') {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || *c == '-')
            .collect();
        if word.len() >= 3 && ECHO_TAGS.contains(&word.as_str()) {
            return if word == "MAGIC" {
                Echo::Magic
            } else {
                Echo::Other
            };
        }
        return Echo::None;
    }
    // (every prefix starts with s, u or p: most lines are ruled out by their first byte)
    if l.starts_with(['s', 'S', 'u', 'U', 'p', 'P'])
        && ECHO_PREFIXES.iter().any(|p| starts_ci(l, p))
    {
        return Echo::Other;
    }
    Echo::None
}

fn is_request_label(line: &str) -> bool {
    let l = strip_ui_marks(line);
    l.starts_with(['u', 'U'])
        && l.len() >= 13
        && l.is_char_boundary(12)
        && l[..12].eq_ignore_ascii_case("user request")
        && l.trim_end().ends_with(':')
}

fn is_task_line(line: &str) -> bool {
    let l = strip_ui_marks(line);
    [
        "task:",
        "original task:",
        "original request:",
        "current objective:",
    ]
    .iter()
    .any(|p| starts_ci(l, p))
}

/// `s` starts with the lowercase ASCII `prefix`, ignoring ASCII case.
fn starts_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// Pasted hook output. A header line starts a block that runs to the next blank line; our own
/// `[MAGIC KEYWORD…]` context (which has blank lines inside) runs through its `User request:`
/// payload, or to the end when it has none. Once any header was seen, later `Task:` lines are
/// hook output too. A `User request…:` label and its payload are dropped anywhere.
fn hook_echoes(b: &mut Blanker<'_>, all: &[(usize, &str)]) {
    let mut seen_header = false;
    let mut i = 0;
    while i < all.len() {
        let (start, line) = all[i];
        let kind = echo_header(line);
        if kind == Echo::None {
            if is_request_label(line) || (seen_header && is_task_line(line)) {
                let mut j = i;
                if is_request_label(line) {
                    // the label, then its payload up to a blank line
                    j += 1;
                    while j < all.len() && !all[j].1.trim().is_empty() {
                        j += 1;
                    }
                    j -= 1;
                }
                let end = all[j].0 + all[j].1.len();
                b.blank(start, end, R::HookEcho);
                i = j + 1;
                continue;
            }
            i += 1;
            continue;
        }
        seen_header = true;
        let mut j = i + 1;
        if kind == Echo::Magic {
            // through the User request payload, else to the end
            let mut end_at = all.len();
            let mut k = j;
            while k < all.len() {
                if is_request_label(all[k].1) {
                    let mut m = k + 1;
                    while m < all.len() && !all[m].1.trim().is_empty() {
                        m += 1;
                    }
                    end_at = m;
                    break;
                }
                if echo_header(all[k].1) != Echo::None {
                    end_at = k;
                    break;
                }
                k += 1;
            }
            j = end_at;
        } else {
            while j < all.len() && !all[j].1.trim().is_empty() {
                j += 1;
            }
        }
        let last = j - 1;
        b.blank(start, all[last].0 + all[last].1.len(), R::HookEcho);
        i = j;
    }
}

/// `<!-- … -->`, across lines; an unclosed comment runs to the end.
fn html_comments(b: &mut Blanker<'_>) {
    let src = b.src;
    let mut from = 0;
    while let Some(p) = src[from..].find("<!--") {
        let start = from + p;
        let end = src[start + 4..]
            .find("-->")
            .map_or(src.len(), |q| start + 4 + q + 3);
        b.blank(start, end, R::HtmlComment);
        from = end;
        if from >= src.len() {
            break;
        }
    }
}

fn is_shell_line(t: &str) -> bool {
    // the prompts start with `$`, `%`, `❯`/`➜` (0xE2…), `λ` (0xCE…), `>` or `P`
    let prompt_like = t.starts_with(['$', '%', '>', 'P'])
        || t.as_bytes()
            .first()
            .is_some_and(|b| *b == 0xE2 || *b == 0xCE);
    if prompt_like {
        for p in ["$ ", "% ", "❯ ", "➜ ", "λ ", ">>> ", "PS> "] {
            if t.starts_with(p) {
                return true;
            }
        }
    }
    if t.starts_with("PS ")
        && let Some(gt) = t.find("> ")
    {
        return gt < 120;
    }
    // user@host:~/dir$ command
    let first = t.split(' ').next().unwrap_or("");
    first.len() > 2
        && (first.ends_with('$') || first.ends_with('#'))
        && (first.contains('@') || first.contains(':'))
}

fn is_diff_header(t: &str) -> bool {
    t.starts_with(['d', '-', '+', '@', 'i'])
        && (t.starts_with("diff --git ")
            || t.starts_with("--- a/")
            || t.starts_with("+++ b/")
            || t.starts_with("--- /dev/null")
            || t.starts_with("+++ /dev/null")
            || t.starts_with("@@ -")
            || (t.starts_with("index ") && t[6..].contains("..")))
}

/// Where an indented block that opens the prompt ends, when a blank line and then ordinary text
/// follow it (`    ralph fix the tests` + blank + `that line is from the docs`): Markdown's code
/// block at the start of a document. A prompt that is only indented (`    ulw`, typed with stray
/// spaces) has no such end and stays the user talking. Reads the leading block only.
fn leading_indented_block(src: &str) -> Option<usize> {
    let mut prev_blank = false;
    let mut opened = false;
    for (start, line) in lines(src) {
        let blank = line.trim_start().is_empty();
        let indented = line.starts_with("    ") || line.starts_with('\t');
        if blank {
            prev_blank = true;
            continue;
        }
        if indented {
            opened = true;
        } else {
            return (opened && prev_blank).then_some(start);
        }
        prev_blank = false;
    }
    None
}

/// The pasted record of every line near a candidate (`None` elsewhere). A record starts after
/// a blank line — a commit's message two paragraphs after its header — and ends at one or where
/// its kind of line does, so each stretch of lines near a candidate is classified from the
/// second blank line before it to the first blank line after it, with the same result as a
/// classification of the whole prompt, and a megabyte far from every candidate is skipped.
fn pasted_near(b: &Blanker<'_>, all: &[(usize, &str)]) -> Vec<Option<Record>> {
    let n = all.len();
    let mut out = vec![None; n];
    if b.near.len() == 1 && b.near[0] == (0, b.src.len()) {
        out = records::classify(all);
        return out;
    }
    let blank = |k: usize| all[k].1.trim().is_empty();
    let near = |k: usize| b.is_near(all[k].0, all[k].0 + all[k].1.len().max(1));
    let mut k = 0;
    while k < n {
        if !near(k) {
            k += 1;
            continue;
        }
        let mut from = k;
        let mut blanks = 0;
        while from > 0 && blanks < 2 {
            from -= 1;
            blanks += usize::from(blank(from));
        }
        let mut to = k;
        while to < n && (near(to) || !blank(to)) {
            to += 1;
        }
        let kinds = records::classify(&all[from..to]);
        out[from..to].copy_from_slice(&kinds);
        k = to.max(k + 1);
    }
    out
}

/// Line-level rules: fenced code, diffs, pasted records (`records.rs`), shell lines, block
/// quotes, tables, transcripts.
fn line_rules(b: &mut Blanker<'_>, all: &[(usize, &str)]) {
    let src = b.src;
    let pasted = pasted_near(b, all);
    let mut fence: Option<(char, usize)> = None;
    let mut in_diff = false;
    // Markdown's indented code: 4 spaces or a tab, after a blank line that follows some text,
    // or opening the prompt with text after it
    let (mut seen_text, mut prev_blank, mut in_indented) = (false, false, false);
    let leading_code_end = leading_indented_block(src).unwrap_or(0);
    for (k, &(start, line)) in all.iter().enumerate() {
        let end = start + line.len();
        let t = line.trim_start();
        let blank_line = t.is_empty();
        let indented = line.starts_with("    ") || line.starts_with('\t');
        if fence.is_none() && !blank_line {
            in_indented =
                indented && (in_indented || (prev_blank && seen_text) || start < leading_code_end);
        }
        prev_blank = blank_line;
        if in_indented && !blank_line {
            b.blank(start, end, R::IndentedCode);
            continue;
        }
        seen_text |= !blank_line;
        // fenced code
        let fence_open = |t: &str| -> Option<(char, usize)> {
            let c = t.chars().next()?;
            if c != '`' && c != '~' {
                return None;
            }
            let n = t.chars().take_while(|x| *x == c).count();
            (n >= 3).then_some((c, n))
        };
        if let Some((c, n)) = fence {
            b.blank(start, end, R::FencedCode);
            if let Some((c2, n2)) = fence_open(t)
                && c2 == c
                && n2 >= n
                && t.trim_end().chars().all(|x| x == c)
            {
                fence = None;
            }
            continue;
        }
        if let Some(f) = fence_open(t) {
            fence = Some(f);
            b.blank(start, end, R::FencedCode);
            continue;
        }
        // diffs
        if is_diff_header(t) {
            in_diff = true;
            b.blank(start, end, R::DiffLine);
            continue;
        }
        if in_diff {
            let body = line.starts_with([' ', '+', '-', '\\'])
                || t.starts_with("new file mode")
                || t.starts_with("deleted file mode")
                || t.starts_with("similarity index")
                || t.starts_with("rename ")
                || t.starts_with("index ");
            if body && !line.trim().is_empty() {
                b.blank(start, end, R::DiffLine);
                continue;
            }
            in_diff = false;
        }
        // (what follows only blanks a line: not needed far from every candidate)
        if !b.is_near(start, end.max(start + 1)) {
            continue;
        }
        if let Some(record) = pasted[k] {
            let rule = match record {
                Record::Commit => R::CommitLine,
                Record::Log => R::LogLine,
                Record::Trace => R::StackTrace,
                Record::Chat => R::ChatLine,
                Record::History => R::HistoryLine,
                Record::Ours => R::OmcOutput,
                Record::Report => R::BugReport,
                Record::Document => R::PastedDocument,
            };
            b.blank(start, end, rule);
            continue;
        }
        if t.starts_with('+')
            || (t.starts_with('-') && t[1..].starts_with(|c: char| !c.is_whitespace() && c != '-'))
        {
            b.blank(start, end, R::DiffLine);
            continue;
        }
        if is_shell_line(t) {
            b.blank(start, end, R::ShellLine);
            continue;
        }
        if t.starts_with('>') {
            b.blank(start, end, R::BlockQuote);
            continue;
        }
        if t.starts_with('|') && t.matches('|').count() >= 2 {
            b.blank(start, end, R::TableRow);
            continue;
        }
        let ui = ["⏺", "●", "⎿", "│", "╭", "╰", "✻", "※"];
        let roles = ["Human:", "Assistant:", "User:", "Claude:", "AI:", "System:"];
        let ui_line = t.as_bytes().first() == Some(&0xE2) && ui.iter().any(|m| t.starts_with(m));
        let role_line =
            t.starts_with(['H', 'A', 'U', 'C', 'S']) && roles.iter().any(|r| t.starts_with(r));
        if ui_line || role_line {
            b.blank(start, end, R::TranscriptLine);
        }
    }
}

fn tag_name(s: &str) -> &str {
    let n = s
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-' || *c == b':')
        .count();
    &s[..n]
}

/// `<tag …>…</tag>` blocks and lone tags. Closing tags are indexed first, so finding a block's
/// end is a binary search rather than a rescan.
fn tag_blocks(b: &mut Blanker<'_>) {
    let src = b.src;
    let bytes = src.as_bytes();
    let mut closers: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
    let mut opens: Vec<(usize, usize, String, bool)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match src[i..].find('<') {
            Some(p) => i += p,
            None => break,
        }
        let rest = &src[i + 1..];
        let (closing, name_at) = if rest.starts_with('/') {
            (true, i + 2)
        } else {
            (false, i + 1)
        };
        let name = tag_name(&src[name_at.min(src.len())..]);
        if name.is_empty() || !name.as_bytes()[0].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let after = name_at + name.len();
        // the tag ends at the next '>' within 300 bytes, before any other '<'
        let window = &src[after..floor_boundary(src, (after + 300).min(src.len()))];
        let Some(gt) = window
            .find(['>', '<'])
            .filter(|p| window.as_bytes()[*p] == b'>')
        else {
            i += 1;
            continue;
        };
        let first = src[after..].chars().next().unwrap_or(' ');
        if !(first == '>' || first == '/' || first.is_whitespace()) {
            i += 1;
            continue;
        }
        let end = after + gt + 1;
        let lname = name.to_ascii_lowercase();
        if closing {
            closers.entry(lname).or_default().push((i, end));
        } else {
            let self_closing = src[..end].ends_with("/>");
            opens.push((i, end, lname, self_closing));
        }
        i = end;
    }
    let mut covered = 0;
    for (start, end, name, self_closing) in opens {
        if start < covered {
            continue;
        }
        let block_end = if self_closing {
            end
        } else {
            closers
                .get(&name)
                .and_then(|v| {
                    let k = v.partition_point(|(s, _)| *s < end);
                    v.get(k).map(|(_, e)| *e)
                })
                .unwrap_or(end)
        };
        b.blank(start, block_end, R::TagBlock);
        covered = block_end;
    }
    for v in closers.values() {
        for (s, e) in v {
            b.blank(*s, *e, R::TagBlock);
        }
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Inline code, URLs and paths, line by line.
///
/// Each is one pass over the whole prompt rather than one per line (a megabyte of pasted lines
/// would cost tens of thousands of short searches): URLs and paths never run across a line
/// break, and inline code is matched within the lines that have a backtick. Which rule blanked
/// a byte first is kept by the blame, whatever the order of the passes.
fn inline_rules(b: &mut Blanker<'_>) {
    let src = b.src;
    for (a, z) in b.near.clone() {
        // the range, widened to whole lines where a line break is near
        let a = floor_boundary(src, a);
        let a = src[floor_boundary(src, a.saturating_sub(2_000))..a]
            .rfind('\n')
            .map_or(a, |i| floor_boundary(src, a.saturating_sub(2_000)) + i + 1);
        let z = floor_boundary(src, z);
        let z = src[z..floor_boundary(src, (z + 2_000).min(src.len()))]
            .find('\n')
            .map_or(z, |i| z + i);
        if a >= z {
            continue;
        }
        let part = &src[a..z];
        let mut from = 0;
        while let Some(p) = part[from..].find('`') {
            let at = from + p;
            let start = part[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = part[at..].find('\n').map_or(part.len(), |i| at + i);
            inline_code(b, a + start, &part[start..end]);
            from = end;
            if from >= part.len() {
                break;
            }
        }
        urls(b, a, part);
        paths(b, a, part);
    }
}

fn inline_code(b: &mut Blanker<'_>, base: usize, line: &str) {
    if !line.contains('`') {
        return;
    }
    // the backtick runs of the line, and for each the next run of the same length, so a span
    // is found without rescanning the line (linear even for hostile input)
    let bytes = line.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let n = bytes[i..].iter().take_while(|c| **c == b'`').count();
            runs.push((i, n));
            i += n;
        } else {
            i += 1;
        }
    }
    let mut next_same = vec![None; runs.len()];
    let mut seen: HashMap<usize, usize> = HashMap::new();
    for k in (0..runs.len()).rev() {
        next_same[k] = seen.insert(runs[k].1, k);
    }
    let mut k = 0;
    while k < runs.len() {
        match next_same[k] {
            Some(j) => {
                let (s, _) = runs[k];
                let (e, n) = runs[j];
                b.blank(base + s, base + e + n, R::InlineCode);
                k = j + 1;
            }
            None => k += 1,
        }
    }
}

fn urls(b: &mut Blanker<'_>, base: usize, line: &str) {
    let bytes = line.as_bytes();
    let stop = |c: u8| c.is_ascii_whitespace() || b")>]\"'`<".contains(&c);
    // `scheme://…`, found from its `:` (a single-byte search)
    let mut from = 0;
    while let Some(p) = line[from..].find(':') {
        let at = from + p;
        if !bytes[at + 1..].starts_with(b"//") {
            from = at + 1;
            continue;
        }
        let mut s = at;
        while s > 0
            && at - s < 24
            && (bytes[s - 1].is_ascii_alphanumeric() || b"+.-".contains(&bytes[s - 1]))
        {
            s -= 1;
        }
        let mut e = at + 3;
        while e < bytes.len() && !stop(bytes[e]) {
            e += 1;
        }
        if at - s >= 2 {
            b.blank(base + s, base + e, R::Url);
        }
        from = e.max(at + 3);
    }
    // `www.…`, found from its `.`
    let mut from = 0;
    while let Some(p) = line[from..].find('.') {
        let dot = from + p;
        if dot < from + 3 || &bytes[dot - 3..dot] != b"www" {
            from = dot + 1;
            continue;
        }
        let at = dot - 3;
        let token_start = at == 0 || !bytes[at - 1].is_ascii_alphanumeric();
        let mut e = at + 4;
        while e < bytes.len() && !stop(bytes[e]) {
            e += 1;
        }
        if token_start {
            b.blank(base + at, base + e, R::Url);
        }
        from = e;
    }
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_.-~/\\@+%=".contains(c) || (!c.is_ascii() && c.is_alphanumeric())
}

/// Tokens with a directory separator: `src/ralph/`, `./x`, `~/.omc/state/…`, `docs/コードレビュー.md`.
/// A lone leading slash (`/ralph`, `/oh-my-claudecode:ralph`) is a command, not a path. Only the
/// runs of path characters around a separator are looked at, so prose costs one search.
fn paths(b: &mut Blanker<'_>, base: usize, line: &str) {
    // the next `/` and the next `\`, each found with a fast single-byte search
    let next = |c: char, from: usize| line[from..].find(c).map_or(line.len(), |p| from + p);
    let (mut slash, mut backslash) = (next('/', 0), next('\\', 0));
    let mut from = 0;
    loop {
        if slash < from {
            slash = next('/', from);
        }
        if backslash < from {
            backslash = next('\\', from);
        }
        let sep = slash.min(backslash);
        if sep >= line.len() {
            break;
        }
        let start = line[from..sep]
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_path_char(*c))
            .last()
            .map_or(sep, |(i, _)| from + i);
        let end = line[sep..]
            .char_indices()
            .find(|(_, c)| !is_path_char(*c))
            .map_or(line.len(), |(i, _)| sep + i);
        path_run(b, base, line, start, end);
        from = end;
    }
}

/// One run of path characters with a separator in it.
fn path_run(b: &mut Blanker<'_>, base: usize, line: &str, start: usize, end: usize) {
    let is_sep = |c: char| c == '/' || c == '\\';
    let run = &line[start..end];
    let Some(c) = run.chars().next() else { return };
    let mut seps = 0;
    let mut last_sep = None;
    let mut segment_before_sep = false;
    let mut prev: Option<char> = None;
    for (k, d) in run.char_indices() {
        if is_sep(d) {
            seps += 1;
            segment_before_sep |= prev.is_some_and(|p| !is_sep(p));
            last_sep = Some(start + k);
        }
        prev = Some(d);
    }
    let Some(last) = last_sep else { return };
    let is_command = seps == 1 && is_sep(c);
    if is_command || !(segment_before_sep || seps >= 2) {
        return;
    }
    // the final name: ASCII name characters, or a (CJK-capable) stem with an extension
    let tail = &line[last + 1..end];
    let ascii: usize = tail
        .chars()
        .take_while(|c| c.is_ascii() && is_path_char(*c))
        .map(char::len_utf8)
        .sum();
    let stem: usize = tail
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .map(char::len_utf8)
        .sum();
    let mut with_ext = 0;
    if stem > 0 && tail[stem..].starts_with('.') {
        let ext = tail[stem + 1..]
            .bytes()
            .take_while(u8::is_ascii_alphanumeric)
            .count();
        if (1..=8).contains(&ext) {
            with_ext = stem + 1 + ext;
        }
    }
    let keep = ascii.max(with_ext);
    b.blank(base + start, base + last + 1 + keep, R::Path);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(p: &str) -> String {
        sanitize(p)
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn length_and_newlines_are_preserved() {
        let p = "a `ralph` b\n```\nralph\n```\n<!-- x\ny -->z 랄프 https://x.y/ralph";
        let s = sanitize(p);
        assert_eq!(s.text.len(), p.len());
        assert_eq!(s.text.matches('\n').count(), p.matches('\n').count());
    }

    #[test]
    fn code_comments_urls_and_paths_are_blanked() {
        assert_eq!(kept("use `ralph` now"), "use now");
        assert_eq!(kept("x\n```sh\nralph fix\n```\ny"), "x y");
        assert_eq!(kept("see:\n\n    ralph fix\n\n\tralph\nok"), "see: ok");
        assert_eq!(kept("    ralph fix the tests"), "ralph fix the tests");
        assert_eq!(kept("a\n    - ralph fix"), "a - ralph fix");
        assert_eq!(kept("a <!-- ralph: note --> b"), "a b");
        assert_eq!(kept("see https://github.com/x/ralph?q=1 ok"), "see ok");
        assert_eq!(kept("open src/ralph/mod.rs and ./ralph"), "open and");
        assert_eq!(kept("/ralph fix the tests"), "/ralph fix the tests");
        assert_eq!(
            kept("/oh-my-claudecode:ralph issue"),
            "/oh-my-claudecode:ralph issue"
        );
        assert_eq!(kept("docs/コードレビュー.mdを読んで"), "を読んで");
        assert_eq!(
            kept("src/auth.tsをコードレビューして"),
            "をコードレビューして"
        );
    }

    #[test]
    fn lines_that_are_not_the_user_talking() {
        assert_eq!(kept("> ralph fix it\nok"), "ok");
        assert_eq!(kept("log:\n$ ralph fix parser\ndone"), "log: done");
        assert_eq!(kept("| ralph | loop |\n|---|---|\nx"), "x");
        assert_eq!(
            kept("diff --git a/x b/x\n@@ -1 +1 @@\n+ ralph fix parser\n-old\nafter"),
            "after"
        );
        assert_eq!(kept("+ autopilot build me an app"), "");
        assert_eq!(kept("- ralph fix the tests"), "- ralph fix the tests");
        assert_eq!(kept("Assistant: ralph this\nme"), "me");
    }

    #[test]
    fn hook_output_is_blanked() {
        let p = "Investigate:\n\n[MAGIC KEYWORD: RALPH]\n\nRALPH mode is on.\n\nUser request:\nralph fix parser\n\nwhy?";
        assert_eq!(kept(p), "Investigate: why?");
        let p = "[RALPH LOOP - ITERATION 2/100] Work is NOT done.\nTask: previous task\n\nrun ralph on x";
        assert_eq!(kept(p), "run ralph on x");
        let p = "Stop hook feedback:\n[RALPH LOOP 3/100] keep going\nTask: ralph";
        assert_eq!(kept(p), "");
        assert_eq!(strip_echoes(p), "");
        let p = "[RALPH LOOP 2/100] Work is NOT done.\nTask: old\n\nrun ralph on 새 작업";
        assert_eq!(strip_echoes(p), "run ralph on 새 작업");
    }

    #[test]
    fn tag_blocks_are_blanked_and_blame_is_reported() {
        let p = "<system-reminder>ralph fix</system-reminder> go <Button> ralph";
        assert_eq!(kept(p), "go ralph");
        let s = sanitize(p);
        assert_eq!(s.blanked_by(17, 22), Some("tag-block"));
        assert_eq!(s.blanked_by(p.len() - 5, p.len()), None);
    }

    #[test]
    fn unmatched_backtick_runs_stay_linear() {
        let mut p = String::new();
        for n in 1..1_500 {
            p.push_str(&"`".repeat(n));
            p.push_str(" x ");
        }
        let s = sanitize(&p);
        assert_eq!(s.text.len(), p.len());
        assert_eq!(kept("a `b` c ``d` e`` f"), "a c f");
    }

    #[test]
    fn many_small_blanks_switch_to_the_byte_mask_with_the_same_answers() {
        let p = "see a/b and `x` then ".repeat(5_000);
        let s = sanitize(&p);
        assert!(s.blame.is_per_byte());
        assert_eq!(s.blanked_by(4, 7), Some("path"));
        assert_eq!(s.blanked_by(0, 3), None);
        assert_eq!(s.blanked_by(12, 15), Some("inline-code"));
        let short = sanitize("see a/b and `x` then");
        assert!(!short.blame.is_per_byte());
        assert_eq!(short.blanked_by(4, 7), Some("path"));
        assert_eq!(short.blanked_by(12, 15), Some("inline-code"));
    }

    #[test]
    fn a_megabyte_is_fine() {
        let p = "ralph `x` src/a/b https://x.y <b>z</b>\n".repeat(30_000);
        let s = sanitize(&p);
        assert_eq!(s.text.len(), p.len());
    }
}
