//! Text a person pastes from a tool rather than types: a `git log` or a list of commits, log
//! lines, a stack trace, a chat exported from Slack or a terminal's history. A pasted `git log`
//! reads like a string of imperatives (`a1b2c3d feat: ralph fix flaky tests`, `chore: ulw
//! cleanup`), so before issue 26 it started three loops; the words in these records are
//! quotation, fenced or not, and the sanitiser blanks them ([`super::sanitize`]).
//!
//! Each line is recognised by its shape, on its first bytes where possible (the sanitiser runs
//! over megabytes): a commit hash or a commit header, a conventional-commit subject among other
//! commit lines, a timestamp or a log level, a test runner's mark, a stack frame or a trace's
//! header (the trace runs to the next blank line), speakers' names in a chat of two or more, a
//! numbered history line. What the person then writes after a blank line is theirs again.

use super::lexicon::is_mode_word;

/// What kind of pasted record a line belongs to (each a sanitiser rule of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Record {
    /// `git log`, `git log --oneline`, a list of commits, a rebase plan, `git shortlog`.
    Commit,
    /// A log line: a timestamp or a level first, a test runner's result, `npm ERR!`.
    Log,
    /// A stack trace, from its header or first frame to the next blank line.
    Trace,
    /// A chat pasted from Slack, Discord or a terminal: speakers' names, `<@U123>` mentions.
    Chat,
    /// Shell history: `  501  claude -p "…"`, zsh's `: 1733040000:0;…`.
    History,
    /// What omc-hooks itself prints, pasted back: `status`, `mode show`, `mode start`, `cancel`,
    /// `doctor`, `detect`, the Stop hook's notices ([`OURS`]).
    Ours,
    /// A bug report: its title, steps to reproduce, expected and actual results ([`REPORT_LABELS`]):
    /// the steps are what someone did in a product (`2. Enable Autopilot in settings`), not a
    /// request to the agent.
    Report,
    /// A document or configuration pasted to be worked on ([`document_lines`]): a TOML table, a
    /// YAML list, CSV rows, a man page, a changelog, a README section the request names.
    Document,
}

/// How far a line of our own output reaches: the line alone, or its block to the next blank
/// line (a header and its rows).
#[derive(Clone, Copy, PartialEq)]
enum Reach {
    Line,
    Block,
}

/// The lines omc-hooks prints, by how they start (after their indentation): `status`'s header and
/// footer, `status --all`, `doctor`, `detect`'s verdict and its candidates, `cancel`, the Stop
/// hook's notices (`templates/stop/finished.md`, `held.md`, `limit.md`, `paused*.md`,
/// `waiting.md`), the errors of every command (`omc-hooks mode: …`). Besides these, a run's row
/// ([`run_row`]) and `mode start`'s answer ([`run_note`]).
const OURS: &[(&str, Reach)] = &[
    ("omc-hooks status — ", Reach::Block),
    ("omc-hooks status --all — ", Reach::Block),
    ("omc-hooks doctor", Reach::Block),
    ("omc-hooks: ", Reach::Block),
    ("omc-hooks mode: ", Reach::Block),
    ("omc-hooks detect: ", Reach::Block),
    ("omc-hooks cancel: ", Reach::Block),
    ("omc-hooks checkpoint ", Reach::Line),
    ("omc-hooks test notification ", Reach::Line),
    ("verdict: ", Reach::Block),
    ("Cancel with 'omc-hooks cancel'", Reach::Line),
    ("Cancelled in ", Reach::Line),
    ("Nothing active in ", Reach::Line),
    ("No active runs in ", Reach::Line),
    ("no active runs in ", Reach::Line),
];

/// Our commands, as a line that names one alone heads its output (`omc-hooks status`, `omc-hooks
/// mode show`, pasted with what it printed).
const COMMANDS: &[&str] = &[
    "status",
    "doctor",
    "mode",
    "detect",
    "cancel",
    "install",
    "uninstall",
    "trust",
    "statusline",
    "flush",
    "notify",
    "demo",
    "manifest",
];

/// A line of our own output, and how far it reaches.
fn ours(t: &str) -> Option<Reach> {
    // (asked of every line: our prefixes start with o, v, C, N or n)
    if t.starts_with(['o', 'v', 'C', 'N', 'n']) {
        if let Some((_, reach)) = OURS.iter().find(|(p, _)| t.starts_with(p)) {
            return Some(*reach);
        }
        // the command alone on its line, its options at most: `omc-hooks status --all`
        if let Some(rest) = t.strip_prefix("omc-hooks ") {
            let mut ws = rest.split_whitespace();
            if ws.next().is_some_and(|c| COMMANDS.contains(&c))
                && ws.all(|w| w.starts_with('-') || matches!(w, "show" | "all"))
            {
                return Some(Reach::Block);
            }
        }
    }
    // (the status line, `ralph 12/100 34 min left · ctx 64%`, is a run's row)
    (run_row(t) || run_note(t)).then_some(Reach::Line)
}

/// A run's row, as `status` (`ralph        iter 3/100      started 2m ago …`), `mode show`
/// (`s1  ralph  iteration 3/100  fix the tests`) and the status line (`ralph 12/100 34 min left
/// · skill plan 2/5`, `ralph 3/10 +ultrawork`) print it: among the first words a mode's name,
/// then `iter` or `iteration` and its count, or its count and then nothing, a separator or a
/// figure (not `ralph 2/3 of the tests`).
fn run_row(t: &str) -> bool {
    // (asked of every line near a candidate: most have no `3/100` among their first bytes)
    // (std's searches: memchr for each `/`)
    let head = &t[..floor_char(t, 100)];
    let b = head.as_bytes();
    let has_count = head.match_indices('/').any(|(i, _)| {
        i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)
    });
    if !has_count {
        return false;
    }
    // (the first eight words, on the stack: this is asked of every line near a candidate),
    // without the punctuation around them: `ralph:`, `(iteration`, `3/100,`
    let mut buf = [""; 8];
    let mut n = 0;
    for (slot, w) in buf.iter_mut().zip(t.split_whitespace()) {
        *slot = w.trim_matches(|c: char| "()[]{}:;,.".contains(c));
        n += 1;
    }
    let ws = &buf[..n];
    let count = |w: &str| {
        w.split_once('/').is_some_and(|(a, b)| {
            !a.is_empty()
                && !b.is_empty()
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        })
    };
    let mode = |w: &str| {
        let mut lower = [0u8; 16];
        let Some(l) = lower.get_mut(..w.len()) else {
            return false;
        };
        l.copy_from_slice(w.as_bytes());
        l.make_ascii_lowercase();
        std::str::from_utf8(l).is_ok_and(|w| {
            is_mode_word(w) || matches!(w, "team" | "pipeline" | "ultraqa" | "skill")
        })
    };
    (0..3).any(|k| {
        if !ws.get(k).is_some_and(|w| mode(w)) {
            return false;
        }
        // `iteration 3/100` a few words on says it alone (`mode show` prints the task after it:
        // `ralph (session s1, iteration 3/100, task: …)`)
        if let Some(at) = ws[k + 1..]
            .iter()
            .take(4)
            .position(|w| matches!(w.to_ascii_lowercase().as_str(), "iter" | "iteration"))
            && ws.get(k + 2 + at).is_some_and(|w| count(w))
        {
            return true;
        }
        // the count right after the name, then nothing, a separator or a figure (not `ralph 2/3
        // of the tests`)
        ws.get(k + 1).is_some_and(|w| count(w))
            && ws.get(k + 2).is_none_or(|w| {
                w.is_empty()
                    || w.starts_with(['·', '+', '(', '-', '|', '—'])
                    || w.starts_with(|c: char| c.is_ascii_digit())
                    || RUN_ROW_WORDS.contains(w)
            })
    })
}

/// Words that follow a run's count in our rows (`iter 3/100  started 2m ago`, `3/100 phase qa`).
const RUN_ROW_WORDS: &[&str] = &[
    "started",
    "phase",
    "paused",
    "paused:",
    "waiting",
    "stale",
    "left",
    "cycle",
    "stage",
    "suspended",
];

/// What we say about one run, after its name: `mode start`'s answer (`ralph: run started in
/// session s1 …`), the notifications (`templates/notify/`: `ralph is waiting for you in …`,
/// `ralph finished in … after 12 iterations (of 100)`), the mode's instructions
/// (`templates/modes/`: `RALPH mode is on: …`, `TDD mode: test first. For the request below …`).
/// With each, whether the name is in capitals, as the instructions print it (`ralph: fix the
/// request below` is a request).
const RUN_NOTES: &[(&str, bool)] = &[
    (": run started in session ", false),
    (" is waiting for you in ", false),
    (" iterations (of ", false),
    (" mode is on: ", true),
    (" the request below", true),
];

/// A line about one run, in our words ([`RUN_NOTES`]), its mode's name first.
fn run_note(t: &str) -> bool {
    // (only a line whose first word is a mode's name is searched, and only its first bytes)
    let first = t.split([' ', ':']).next().unwrap_or("");
    if first.len() > 16 || !is_mode_word(&first.to_ascii_lowercase()) {
        return false;
    }
    let upper = !first.bytes().any(|b| b.is_ascii_lowercase());
    let head = &t[..floor_char(t, 160)];
    RUN_NOTES
        .iter()
        .any(|(m, caps)| (upper || !caps) && head.contains(m))
}

/// What a label of a bug report's line says.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    /// The report's title or a field about it (`Bug:`, `Title:`, `Environment:`).
    Field,
    /// `Steps to reproduce`.
    Steps,
    Expected,
    Actual,
}

/// The labels of a bug report, lowercased, in every language the detector reads.
#[rustfmt::skip]
const REPORT_LABELS: &[(&str, Part)] = &[
    ("bug", Part::Field), ("bug report", Part::Field), ("title", Part::Field), ("summary", Part::Field),
    ("description", Part::Field), ("environment", Part::Field), ("env", Part::Field),
    ("device", Part::Field), ("version", Part::Field), ("app version", Part::Field),
    ("browser", Part::Field), ("os", Part::Field), ("platform", Part::Field), ("severity", Part::Field),
    ("priority", Part::Field), ("component", Part::Field), ("frequency", Part::Field),
    ("reproducibility", Part::Field), ("notes", Part::Field), ("logs", Part::Field),
    ("screenshots", Part::Field), ("workaround", Part::Field), ("impact", Part::Field),
    ("affected version", Part::Field), ("affected versions", Part::Field), ("build", Part::Field),
    ("reporter", Part::Field), ("additional context", Part::Field), ("describe the bug", Part::Field),
    // (steps alone trigger nothing: `Steps:` may list the person's own tasks)
    ("steps", Part::Field), ("현상", Part::Field), ("환경", Part::Field), ("버전", Part::Field), ("環境", Part::Field),
    ("現象", Part::Field), ("环境", Part::Field), ("现象", Part::Field), ("版本", Part::Field), ("设备", Part::Field),
    ("entorno", Part::Field), ("umgebung", Part::Field), ("environnement", Part::Field),
    ("steps to reproduce", Part::Steps), ("steps to repro", Part::Steps), ("repro steps", Part::Steps),
    ("repro", Part::Steps), ("to reproduce", Part::Steps), ("reproduction", Part::Steps),
    ("reproduction steps", Part::Steps), ("how to reproduce", Part::Steps), ("str", Part::Steps),
    ("pasos para reproducir", Part::Steps), ("schritte zum reproduzieren", Part::Steps),
    ("étapes pour reproduire", Part::Steps), ("재현 단계", Part::Steps), ("재현 방법", Part::Steps),
    ("再現手順", Part::Steps), ("复现步骤", Part::Steps), ("重现步骤", Part::Steps),
    ("expected", Part::Expected), ("expected result", Part::Expected),
    ("expected behaviour", Part::Expected), ("expected behavior", Part::Expected),
    ("expected results", Part::Expected), ("resultado esperado", Part::Expected),
    ("erwartet", Part::Expected), ("erwartetes verhalten", Part::Expected),
    ("résultat attendu", Part::Expected), ("기대 결과", Part::Expected), ("예상 결과", Part::Expected),
    ("期待結果", Part::Expected), ("期待する結果", Part::Expected), ("期望结果", Part::Expected),
    ("预期结果", Part::Expected), ("预期", Part::Expected), ("期望", Part::Expected), ("期待", Part::Expected),
    ("기대", Part::Expected), ("예상", Part::Expected), ("esperado", Part::Expected), ("attendu", Part::Expected),
    ("soll", Part::Expected),
    ("actual", Part::Actual), ("actual result", Part::Actual), ("actual behaviour", Part::Actual),
    ("actual behavior", Part::Actual), ("actual results", Part::Actual),
    ("resultado actual", Part::Actual), ("resultado obtenido", Part::Actual),
    ("tatsächlich", Part::Actual), ("tatsächliches verhalten", Part::Actual),
    ("résultat obtenu", Part::Actual), ("résultat actuel", Part::Actual), ("실제 결과", Part::Actual),
    ("実際の結果", Part::Actual), ("实际结果", Part::Actual), ("实际", Part::Actual), ("実際", Part::Actual),
    ("실제", Part::Actual), ("obtenido", Part::Actual), ("obtenu", Part::Actual), ("ist", Part::Actual),
];

/// A bug's tag heading a report's title: `[Bug] …`, `【缺陷】…`, `[버그] …`.
const BUG_TAGS: &[&str] = &[
    "bug",
    "defect",
    "缺陷",
    "故障",
    "バグ",
    "不具合",
    "버그",
    "결함",
];

/// The label a line of a bug report opens with (`Expected: …`, `**Steps to reproduce**`, `##
/// Actual behavior`), and whether text follows it on the line.
fn report_label(t: &str) -> Option<(Part, bool)> {
    // `[Bug] Autopilot disengages …`, `【缺陷】自动驾驶 …`
    if let Some(r) = t.strip_prefix('[').or_else(|| t.strip_prefix('【')) {
        let r = &r[..floor_char(r, 24)];
        let tag = r.split([']', '】']).next().unwrap_or("");
        let tagged = tag.len() < r.len() && BUG_TAGS.contains(&tag.trim().to_lowercase().as_str());
        return tagged.then_some((Part::Field, true));
    }
    // the whole report on one line: `… Steps: … Expected: still on. Actual: off.` (one search
    // of the line first: most lines hold none)
    if t.len() > 40 && t.contains("xpected:") {
        let l = t.to_lowercase();
        if l.contains("steps") && l.contains("expected:") && l.contains("actual:") {
            return Some((Part::Steps, true));
        }
    }
    let heading = t.starts_with('#');
    let body = t.trim_start_matches(['#', '*', '-', '_', ' ']);
    // (a label ends within its first 40 bytes: the rest of a long line is not read)
    let head = &body[..floor_char(body, 48)];
    // (std's searches: memchr)
    let colon_at = match (head.find(':'), head.find('：')) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let (label, rest) = match colon_at {
        Some(c) if c <= 40 => {
            let colon = body[c..].chars().next().map_or(1, char::len_utf8);
            (&body[..c], body[c + colon..].trim_matches(['*', '_', ' ']))
        }
        // a heading or a label alone on its line (`## Steps to reproduce`, `**Expected**`)
        _ if body.len() <= 40 => (body, ""),
        _ => return None,
    };
    let label = label.trim_matches(['*', '_', ' ']);
    // (no label is longer; compared without a lowercased copy, the length first)
    if label.len() > 30 {
        return None;
    }
    let part = REPORT_LABELS
        .iter()
        .find(|(l, _)| {
            l.len() == label.len()
                && (label.eq_ignore_ascii_case(l)
                    || (!label.is_ascii() && label.to_lowercase() == *l))
        })
        .map(|(_, p)| *p)?;
    // (a bare word alone on a line is a label only as a heading or in bold: `Bug` is not)
    if rest.is_empty() && !heading && !t.contains(['*', ':', '：']) && part == Part::Field {
        return None;
    }
    Some((part, !rest.is_empty()))
}

/// The largest char boundary of `s` at or before `i`.
fn floor_char(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A step of a list: `1. …`, `2) …`, `Step 3: …`, `- …`, `* …`, `• …`.
fn step_line(t: &str) -> bool {
    let t = t.strip_prefix("Step ").unwrap_or(t);
    let d = t.bytes().take_while(u8::is_ascii_digit).count();
    (d > 0 && d <= 3 && matches!(t.as_bytes().get(d), Some(b'.' | b')' | b':')))
        || t.starts_with("- ")
        || t.starts_with("* ")
        || t.starts_with("• ")
}

/// The lines of a bug report among `trimmed`: only where there is one (steps to reproduce, or
/// an expected and an actual result), its labelled lines, what a label alone on its line heads
/// (to the next blank line), and the steps after a `Steps` label; the person's own request
/// around it (`ralph fix this:`, or after a blank line) is not part of it.
fn report_lines(trimmed: &[&str]) -> Vec<bool> {
    let mut out = vec![false; trimmed.len()];
    // (most lines hold no label: a cheap look at the first bytes first)
    let labels: Vec<Option<(Part, bool)>> = trimmed
        .iter()
        .map(|t| {
            let c = t.chars().next()?;
            (c.is_alphabetic() || matches!(c, '#' | '*' | '_' | '[' | '【'))
                .then(|| report_label(t))?
        })
        .collect();
    let has = |p: Part| labels.iter().flatten().any(|(q, _)| *q == p);
    if !(has(Part::Steps) || (has(Part::Expected) && has(Part::Actual))) {
        return out;
    }
    // its title: the first line, alone in its paragraph, right above the steps (a blank line at
    // most between), written as a title (a capital first, or CJK), not a request (`ralph fix this
    // bug:`, `ralph: …`, `/ralph …`) nor a question
    let titled = |t: &str| {
        t.starts_with(|c: char| c.is_uppercase() || (!c.is_ascii() && c.is_alphabetic()))
            && !t.contains([':', '：', '?', '？'])
    };
    if let Some(f) = trimmed.iter().position(|t| !t.is_empty())
        && labels[f].is_none()
        && titled(trimmed[f])
    {
        let next = (f + 1..trimmed.len()).find(|&k| !trimmed[k].is_empty());
        let above_steps = next.is_some_and(|k| {
            k <= f + 2
                && (labels[k].is_some_and(|(p, _)| p == Part::Steps) || step_line(trimmed[k]))
        });
        let alone = f + 1 == trimmed.len() || trimmed[f + 1].is_empty() || labels[f + 1].is_some();
        out[f] = above_steps && alone;
    }
    let mut i = 0;
    while i < trimmed.len() {
        let Some((part, inline)) = labels[i] else {
            i += 1;
            continue;
        };
        out[i] = true;
        // the steps right above it in its paragraph (`1. Clear all waypoints` before `Expected:`)
        let mut k = i;
        while k > 0 && step_line(trimmed[k - 1]) {
            k -= 1;
            out[k] = true;
        }
        i += 1;
        // what the label heads: a label alone on its line, its paragraph; any label, the steps
        // right under it; a `Steps` label, its steps after a blank line too
        let heads = !inline || part == Part::Steps;
        let mut seen_blank = false;
        while i < trimmed.len() && labels[i].is_none() {
            let t = trimmed[i];
            if t.is_empty() {
                seen_blank = true;
            } else if (heads && !seen_blank)
                || (step_line(t) && (!seen_blank || part == Part::Steps))
            {
                out[i] = true;
            } else {
                break;
            }
            i += 1;
        }
    }
    out
}

/// Conventional-commit types: `feat: …`, `fix(cli)!: …`.
const COMMIT_TYPES: &[&str] = &[
    "feat", "fix", "chore", "docs", "doc", "refactor", "test", "tests", "ci", "build", "perf",
    "style", "revert", "release", "wip", "deps", "hotfix", "security",
];

/// The verbs of an interactive rebase's plan: `pick 1a2b3c4 …`.
const REBASE_VERBS: &[&str] = &[
    "pick", "p", "squash", "s", "fixup", "f", "reword", "r", "edit", "e", "drop", "d",
];

/// Words that label a part of a request (`Context: …`, `Task: …`): a line they open is the
/// person's own, not a speaker in a chat. Sorted (a binary search, for every `word:` line).
#[rustfmt::skip]
const LABELS: &[&str] = &[
    "acceptance", "actual", "after", "also", "answer", "approach", "ask", "assumptions",
    "background", "before", "body", "browser", "bug", "caution", "cc", "command", "commands",
    "cons", "constraint", "constraints", "context", "criteria", "danger", "date", "deadline",
    "decision", "definition", "description", "details", "done", "edit", "env", "environment",
    "error", "errors", "example", "examples", "expected", "feature", "features", "file", "files",
    "finally", "first", "fixme", "format", "from", "fyi", "goal", "goals", "hint", "how",
    "important", "input", "instructions", "issue", "link", "links", "location", "mode", "modes",
    "nb", "next", "note", "notes", "option", "options", "os", "outcome", "output", "owner", "phase",
    "plan", "platform", "policy", "priority", "problem", "pros", "ps", "question", "re", "reason",
    "ref", "refs", "repro", "request", "requests", "requirement", "requirements", "result",
    "results", "risk", "risks", "rule", "rules", "scope", "see", "spec", "stack", "stage", "status",
    "step", "steps", "subject", "summary", "task", "tasks", "then", "ticket", "time", "tip",
    "title", "to", "todo", "update", "usage", "use", "version", "warning", "what", "when", "where",
    "who", "why",
];

const MONTHS: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

const LEVELS: &[&str] = &[
    "INFO", "WARN", "WARNING", "ERROR", "ERR", "DEBUG", "TRACE", "FATAL", "CRITICAL", "NOTICE",
    "SEVERE",
];

/// A token of 7 to 40 hexadecimal digits; `strict` asks for both a digit and a letter (a lone
/// line needs more evidence than a line among commits).
fn hash_len(t: &str, strict: bool) -> Option<usize> {
    let n = t.bytes().take_while(u8::is_ascii_hexdigit).count();
    if !(7..=40).contains(&n)
        || t.as_bytes()
            .get(n)
            .is_some_and(|b| !b.is_ascii_whitespace())
    {
        return None;
    }
    let h = &t.as_bytes()[..n];
    let ok = !strict
        || (h.iter().any(u8::is_ascii_digit)
            && h.iter().any(|b| matches!(b, b'a'..=b'f' | b'A'..=b'F')));
    ok.then_some(n)
}

/// The line without a list or graph mark in front (`- `, `* `, `| `, `• `).
fn unmarked(t: &str) -> &str {
    let mut t = t;
    // (`git log --graph` stacks them: `| * 1d2e3f4 …`)
    while let Some(r) = ["- ", "* ", "| ", "• ", "o ", "+ ", "|/ ", "|\\ "]
        .iter()
        .find_map(|m| t.strip_prefix(m))
    {
        t = r.trim_start();
    }
    t
}

/// `a1b2c3d feat: …`, `- 91ab3cd …`, `pick 1a2b3c4 …`, `commit 4f1a…`.
fn commit_hash_line(t: &str, strict: bool) -> bool {
    let t = unmarked(t);
    let first = t.as_bytes().first().copied().unwrap_or(b' ');
    if first.is_ascii_hexdigit() && hash_len(t, strict).is_some() {
        return true;
    }
    if !first.is_ascii_lowercase() {
        return false;
    }
    let (w, rest) = t.split_once(' ').unwrap_or((t, ""));
    w.len() <= 6
        && hash_len(rest.trim_start(), false).is_some()
        && (REBASE_VERBS.contains(&w) || w == "commit")
}

/// `feat: …`, `fix(cli)!: …` (a commit's subject; only among other commit lines).
fn conventional(t: &str) -> bool {
    let t = unmarked(t);
    if !t.starts_with(|c: char| c.is_ascii_lowercase()) {
        return false;
    }
    let word = t.bytes().take_while(u8::is_ascii_lowercase).count();
    if !matches!(t.as_bytes().get(word), Some(b':' | b'(' | b'!'))
        || !COMMIT_TYPES.contains(&&t[..word])
    {
        return false;
    }
    let mut rest = &t[word..];
    if let Some(r) = rest.strip_prefix('(') {
        let Some(close) = r.find(')').filter(|c| *c <= 40) else {
            return false;
        };
        rest = &r[close + 1..];
    }
    rest.trim_start_matches('!').starts_with(": ")
}

/// The lines `git log` prints around a commit's message: `Author: …`, `Date: …`, `Merge: …`.
fn commit_meta(t: &str) -> bool {
    t.starts_with(['A', 'D', 'M', 'C', 'S'])
        && [
            "Author:",
            "Date:",
            "Merge:",
            "AuthorDate:",
            "Commit:",
            "CommitDate:",
            "Signed-off-by:",
            "Co-authored-by:",
        ]
        .iter()
        .any(|p| t.starts_with(p))
}

/// A commit header whose message paragraph follows after a blank line: `commit <hash>`, `Merge
/// pull request #12 from …`, `Merge branch '…'`.
fn commit_header(t: &str) -> bool {
    (t.starts_with("commit ") && hash_len(t[7..].trim_start(), false).is_some())
        || t.starts_with("Merge pull request #")
        || t.starts_with("Merge branch '")
        || t.starts_with("Merge remote-tracking branch")
}

/// `Dana Kim (3):`, the header of `git shortlog`'s indented subjects.
fn shortlog_header(t: &str) -> bool {
    let Some(body) = t.trim_end().strip_suffix("):") else {
        return false;
    };
    let Some((name, n)) = body.rsplit_once(" (") else {
        return false;
    };
    !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && (2..=40).contains(&name.len())
        && !name.contains(':')
}

/// A log line: a date or a time first (`2026-12-01T10:32:11Z …`, `[10:32:01] …`, `Dec 01
/// 10:22:03 …`), a level (`INFO …`, `[ERROR] …`, `level=info …`), `npm ERR!`, a test runner's
/// mark (`✓ …`, `✗ …`, `FAIL …`).
fn log_line(t: &str) -> bool {
    let b = t.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if first.is_ascii_digit() {
        let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        // `2026-12-01`, `2026/12/01`, `10:32`, not a numbered list (`1. …`) or a number
        return match b.get(digits) {
            Some(b'-' | b'/') => digits == 4 && b.get(digits + 1).is_some_and(u8::is_ascii_digit),
            Some(b':') => digits <= 2 && b.get(digits + 1).is_some_and(u8::is_ascii_digit),
            _ => false,
        };
    }
    if first == b'[' {
        // `[10:32:01]`, `[2026-12-01 …]`, `[9:41 AM]`, not a reference (`[1] …`)
        let inner = &t[1..];
        let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
        return ((1..=4).contains(&digits)
            && matches!(
                inner.as_bytes().get(digits),
                Some(b':' | b'-' | b'/' | b'.')
            ))
            || LEVELS
                .iter()
                .any(|l| inner.starts_with(l) && inner[l.len()..].starts_with(']'));
    }
    if first.is_ascii_uppercase() {
        let w: &str = &t[..b.iter().take_while(|c| c.is_ascii_alphabetic()).count()];
        let next = b.get(w.len()).copied();
        // `INFO  [omc] …`, `ERROR: …`, `WARN [x] …`, not `ERROR in the build, fix it`
        let after = &t[w.len()..];
        if LEVELS.contains(&w)
            && (matches!(next, Some(b':' | b'\t' | b'[' | b']'))
                || after.starts_with("  ")
                || after.starts_with(" ["))
        {
            return true;
        }
        if matches!(w, "PASS" | "FAIL" | "FAILED" | "PASSED") && next == Some(b' ') {
            return true;
        }
        // syslog: `Dec 01 10:22:03 host …`
        let lw = w.to_ascii_lowercase();
        return MONTHS.contains(&lw.as_str())
            && next == Some(b' ')
            && t[w.len()..]
                .trim_start()
                .split(' ')
                .nth(1)
                .is_some_and(|clock| clock.len() >= 5 && clock.as_bytes()[2] == b':');
    }
    if first == b'l' || first == b't' || first == b'n' {
        return t.starts_with("level=")
            || t.starts_with("time=")
            || t.starts_with("ts=")
            || t.starts_with("npm ERR!")
            || t.starts_with("npm WARN");
    }
    first >= 0xC3
        && ["✓", "✔", "✗", "✘", "✕", "×", "☓", "√"]
            .iter()
            .any(|m| t.starts_with(m))
}

/// The first line of a stack trace, whose block runs to the next blank line.
fn trace_header(t: &str) -> bool {
    t.starts_with(['T', 't', 'g', 'E', 's'])
        && (t.starts_with("Traceback (most recent call last)")
            || (t.starts_with("thread '") && t.contains("' panicked at"))
            || (t.starts_with("goroutine ") && t[10..].starts_with(|c: char| c.is_ascii_digit()))
            || t.starts_with("Exception in thread ")
            || t.starts_with("stack backtrace:"))
}

/// One frame of a stack trace, indented as traces indent them: `at f (file.js:1:2)`, `File
/// "x.py", line 3, in f`, `0: crate::f`, `\tat com.acme.Main.main(Main.java:12)`.
fn frame(line: &str) -> bool {
    if !line.starts_with([' ', '\t']) {
        return false;
    }
    let t = line.trim();
    if let Some(r) = t.strip_prefix("at ") {
        // `at A.b (src/a.ts:88:11)`, `at com.x.Y(Y.java:57)`, `at src/a.js:3:1`
        let (head, _) = r.split_once(' ').unwrap_or((r, ""));
        let located = |s: &str| {
            s.rsplit_once(':').is_some_and(|(_, n)| {
                n.trim_end_matches(')').bytes().all(|b| b.is_ascii_digit()) && !n.is_empty()
            })
        };
        return (r.ends_with(')') && located(r)) || located(head);
    }
    if t.starts_with("File \"") {
        return t.contains("\", line ");
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && t[digits..].starts_with(": ") && t.contains("::")
}

/// `alice: …`, `[9:41] Dana: …` (the time is a log line already), `<@U0421> …`, IRC's `<alice>
/// …`: the speaker of a chat line, as written, if the line has one.
fn speaker(t: &str) -> Option<&str> {
    if let Some(nick) = t.strip_prefix('<') {
        let e = nick.find('>').filter(|e| (1..=24).contains(e))?;
        let name = nick[..e].trim_start_matches('@');
        let plain = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
        return (plain && nick[e + 1..].starts_with(' ')).then_some(name);
    }
    if t.starts_with(|c: char| !c.is_ascii() && c.is_alphabetic()) {
        return cjk_speaker(t);
    }
    let n = t
        .bytes()
        .take(21)
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    if n == 0 || !t[n..].starts_with(": ") || !t.as_bytes()[0].is_ascii_alphabetic() {
        return None;
    }
    // lowercased on the stack: this is asked of every `word: …` line of a paste
    let mut buf = [0u8; 21];
    buf[..n].copy_from_slice(&t.as_bytes()[..n]);
    buf[..n].make_ascii_lowercase();
    let lower = std::str::from_utf8(&buf[..n]).ok()?;
    let person = LABELS.binary_search(&lower).is_err()
        && !is_mode_word(lower)
        && !COMMIT_TYPES.contains(&lower);
    person.then_some(&t[..n])
}

/// `张三：…`, `민수: …`: a name of a few letters of a script without capitals, then a colon
/// (full-width or followed by a space), unless the word labels a part of the person's own request
/// (`背景：`, `요구사항: `) or is a mode's name.
fn cjk_speaker(t: &str) -> Option<&str> {
    let (n, c) = t.char_indices().take(9).find(|(_, c)| !c.is_alphabetic())?;
    let after = &t[n..];
    if n == 0 || !(c == '：' || after.starts_with(": ")) {
        return None;
    }
    let name = &t[..n];
    (!CJK_LABELS.contains(&name) && !is_mode_word(name)).then_some(name)
}

/// [`LABELS`] in Korean, Japanese and Chinese.
#[rustfmt::skip]
const CJK_LABELS: &[&str] = &[
    "배경", "문제", "목표", "요구사항", "요청", "참고", "결과", "에러", "오류", "로그", "환경", "작업", "할일", "질문", "예시",
    "증상", "원인", "조건", "단계", "메모", "背景", "問題", "目的", "要件", "注意", "手順", "結果", "エラー", "期待", "環境",
    "作業", "質問", "例", "原因", "条件", "メモ", "备注", "问题", "任务", "需求", "要求", "目标", "说明", "步骤", "错误", "日志",
    "输出", "输入", "现象", "期望", "版本", "环境", "例子", "示例", "待办", "条件", "结果", "原因", "注意",
];

/// A chat client's header line over a message: `Alice  10:32 AM` (Slack: the name, two spaces,
/// the time), `alice — Today at 10:32 AM` (Discord): a short name, then a time ending the line.
fn chat_header(t: &str) -> bool {
    let t = t.trim_end();
    // (asked of every line: most do not end with a time)
    let last = t.as_bytes().last().copied().unwrap_or(b' ');
    if !(last.is_ascii_digit() || last.eq_ignore_ascii_case(&b'm')) {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    let body = ["am", "pm"]
        .iter()
        .find_map(|x| lower.strip_suffix(x))
        .map_or(lower.as_str(), str::trim_end);
    let clock_at = body.rfind(' ').map_or(0, |i| i + 1);
    let (h, m) = body[clock_at..].split_once(':').unwrap_or(("", ""));
    let is_clock = (1..=2).contains(&h.len())
        && m.len() == 2
        && h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit());
    if !is_clock {
        return false;
    }
    let before = &body[..clock_at];
    let (name, set_off) = if let Some(n) = before.strip_suffix("  ") {
        (n, true)
    } else if let Some(n) = ["today at ", "yesterday at "]
        .iter()
        .find_map(|w| before.strip_suffix(w))
    {
        (n.trim_end().trim_end_matches(['—', '-']), true)
    } else {
        (before, false)
    };
    let name = name.trim();
    set_off
        && !name.is_empty()
        && name.split_whitespace().count() <= 3
        && name.len() <= 32
        && !name.contains(':')
        && !name.split_whitespace().any(is_mode_word)
}

/// `  501  claude -p "…"` (`history`'s numbered lines), `: 1733040000:0;…` (zsh).
fn history_line(line: &str) -> bool {
    let t = line.trim_start();
    if let Some(r) = t.strip_prefix(": ") {
        let d = r.bytes().take_while(u8::is_ascii_digit).count();
        return d >= 9 && r[d..].starts_with(':') && r.contains(';');
    }
    let d = t.bytes().take_while(u8::is_ascii_digit).count();
    (1..=6).contains(&d) && t[d..].starts_with("  ") && !t[d..].trim_start().is_empty()
}

/// The shapes of a pasted document's line that open it (each enough alone: nobody asks for a
/// mode with `[ralph]` on a line of its own), and those that only continue one.
#[derive(Clone, Copy, PartialEq)]
enum DocLine {
    /// `[ralph]`, `[[hooks]]`, `RALPH(1)   User Commands   RALPH(1)`, `## v4.2.0`, `1.3.2`,
    /// `CHANGELOG`, a YAML key over a list of single words (`disabled:` + `- ralph`).
    Opens,
    /// `key = value`, `NAME`, `SYNOPSIS`, `### Fixed`, a Markdown heading, a list item, an
    /// indented line, a CSV row.
    Continues,
}

/// A man page's section headings.
const MAN_SECTIONS: &[&str] = &[
    "NAME",
    "SYNOPSIS",
    "DESCRIPTION",
    "OPTIONS",
    "EXAMPLES",
    "SEE ALSO",
    "ENVIRONMENT",
    "FILES",
    "EXIT STATUS",
    "BUGS",
    "AUTHOR",
    "AUTHORS",
    "COMMANDS",
];

/// A changelog's headings besides its versions (`### Fixed`, `CHANGELOG`).
const CHANGELOG_HEADINGS: &[&str] = &[
    "changelog",
    "release notes",
    "unreleased",
    "added",
    "changed",
    "fixed",
    "removed",
    "deprecated",
    "security",
    "breaking changes",
    "features",
    "bug fixes",
];

/// Nouns by which a request names what was pasted as a document (`fix the grammar in this README
/// section:`, `translate this README`): a Markdown section then is the document, not the request.
const DOC_NOUNS: &[&str] = &[
    "readme",
    "section",
    "changelog",
    "manpage",
    "toml",
    "yaml",
    "yml",
    "json",
    "csv",
    "config",
    "configuration",
    "docs",
    "doc",
    "documentation",
    "markdown",
    "wiki",
    "page",
    "notes",
];

/// An identifier as a key: `max_iterations`, `keywords.disabled`, `ralph`.
fn ident(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'"'))
}

/// How a line shapes a pasted document, if it does; `next` is the line after it.
fn doc_line(line: &str, next: Option<&str>) -> Option<DocLine> {
    let t = line.trim();
    let indented = line.starts_with("  ") || line.starts_with('\t');
    // `[ralph]`, `[[hooks]]`
    let inner = t.trim_start_matches('[').trim_end_matches(']');
    if t.starts_with('[') && t.ends_with(']') && inner.len() + 2 <= t.len() && ident(inner) {
        return Some(DocLine::Opens);
    }
    // `RALPH(1)`, a man page's title
    let title = t.split_whitespace().next().unwrap_or("");
    if let Some(name) = title.strip_suffix(')').and_then(|r| r.split_once('('))
        && name.1.len() == 1
        && name.1.bytes().all(|c| c.is_ascii_digit())
        && !name.0.is_empty()
        && name
            .0
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c == b'-' || c == b'_')
    {
        return Some(DocLine::Opens);
    }
    // a version heading: `## v4.2.0`, `1.3.2`, `## [1.4.0] - 2026-12-01`
    let heading = t.trim_start_matches('#').trim_start();
    let version = heading.trim_start_matches(['[', 'v', 'V']);
    let v = version
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .unwrap_or("");
    if v.split('.').count() >= 2
        && v.split('.').all(|p| !p.is_empty())
        && v.len() + 12 >= version.len()
    {
        return Some(DocLine::Opens);
    }
    // a man page's section over its indented text: `NAME` + `       ralph - …`
    if MAN_SECTIONS.contains(&t) && next.is_some_and(|n| n.starts_with([' ', '\t'])) {
        return Some(DocLine::Opens);
    }
    let lower = heading.to_lowercase();
    if CHANGELOG_HEADINGS.contains(&lower.trim_end_matches(':'))
        && (t.starts_with('#') || t.eq_ignore_ascii_case("changelog"))
    {
        return Some(if lower == "changelog" {
            DocLine::Opens
        } else {
            DocLine::Continues
        });
    }
    // a YAML key over a list of single words or an indented block: `disabled:` + `- ralph`
    if let Some(key) = t.strip_suffix(':')
        && ident(key)
        && let Some(n) = next
    {
        let item = n.trim().strip_prefix("- ").unwrap_or("");
        let deeper = n.len() - n.trim_start().len() > line.len() - line.trim_start().len();
        if (!item.is_empty() && !item.contains(' ')) || (deeper && n.trim().ends_with(':')) {
            return Some(DocLine::Opens);
        }
    }
    let key_value = t
        .split_once(" = ")
        .or_else(|| t.split_once('='))
        .is_some_and(|(k, v)| ident(k.trim()) && !v.trim().is_empty());
    if key_value
        || MAN_SECTIONS.contains(&t)
        || t.starts_with('#')
        || indented
        || step_line(t)
        || csv_row(t).is_some()
    {
        return Some(DocLine::Continues);
    }
    None
}

/// A row of comma-, semicolon- or tab-separated values, and its number of separators: `ralph,yes`,
/// `name;alias` (prose puts a space after its commas).
fn csv_row(t: &str) -> Option<(char, usize)> {
    [',', ';', '\t'].into_iter().find_map(|d| {
        let n = t.matches(d).count();
        let fields_ok = t.split(d).all(|f| {
            let f = f.trim_matches('"');
            !f.is_empty() && !f.starts_with(' ') && f.split(' ').count() <= 3
        });
        (n >= 1 && fields_ok && !t.ends_with(['.', '?', '!', ':'])).then_some((d, n))
    })
}

/// The lines of a document or configuration pasted to be worked on: from a line that opens one
/// ([`DocLine::Opens`]; two CSV rows alike; a Markdown heading when the request names what was
/// pasted as a document, `this README section`) through the lines after it, and across a blank
/// line while the next line still shapes a document. What follows the last, after a blank line,
/// is the request (`[ralph]` … then `ralph: port these settings to config.json`).
fn document_lines(all: &[(usize, &str)]) -> Vec<bool> {
    let n = all.len();
    let mut out = vec![false; n];
    let line = |i: usize| all[i].1;
    let next_text = |i: usize| (i + 1 < n).then(|| line(i + 1));
    let shapes: Vec<Option<DocLine>> = (0..n).map(|i| doc_line(line(i), next_text(i))).collect();
    // (the request names the paste: only then does a Markdown heading open a document)
    let named = all.iter().take(400).any(|(_, l)| {
        let ws = super::text::words(l);
        // (`this`, not `the`: `## Task` over `fix the tests in the docs section` is the person's
        // own outline)
        ws.windows(2).any(|w| {
            matches!(w[0].as_str(), "this" | "these" | "following")
                && DOC_NOUNS.contains(&w[1].as_str())
        }) || ws.windows(3).any(|w| {
            matches!(w[0].as_str(), "this" | "these")
                && (DOC_NOUNS.contains(&w[2].as_str()) || (w[1] == "man" && w[2] == "page"))
        })
    });
    let mut i = 0;
    while i < n {
        let t = line(i).trim();
        let csv_pair =
            csv_row(t).is_some_and(|r| next_text(i).and_then(|l| csv_row(l.trim())) == Some(r));
        let opens = shapes[i] == Some(DocLine::Opens)
            || csv_pair
            || (named && t.starts_with('#') && t.trim_start_matches('#').starts_with(' '));
        if !opens {
            i += 1;
            continue;
        }
        // the document runs on through its lines, and across a blank line while the next shapes
        // one too
        while i < n {
            if line(i).trim().is_empty() {
                let next = (i..n).find(|&k| !line(k).trim().is_empty());
                match next {
                    Some(k) if shapes[k].is_some() => i = k,
                    _ => break,
                }
            }
            out[i] = true;
            i += 1;
        }
    }
    out
}

/// For every line of `lines`, the pasted record it belongs to, if any.
/// `lines` are `(offset, line)` pairs, as the sanitiser finds them.
pub(crate) fn classify(all: &[(usize, &str)]) -> Vec<Option<Record>> {
    let lines = |i: usize| all[i].1;
    let n = all.len();
    let mut out: Vec<Option<Record>> = vec![None; n];
    let trimmed: Vec<&str> = all.iter().map(|(_, l)| l.trim()).collect();
    let blank = |i: usize| trimmed[i].is_empty();
    let report = report_lines(&trimmed);
    let mut i = 0;
    while i < n {
        let t = trimmed[i];
        if t.is_empty() {
            i += 1;
            continue;
        }
        if report[i] {
            out[i] = Some(Record::Report);
            i += 1;
            continue;
        }
        // our own output: a line, or a header and its rows to the next blank line
        // (`status`'s `session s1` heads the rows of its runs, its agent named: `session s1
        // (codex)`)
        let session = t.starts_with("session ")
            && (t.split_whitespace().count() == 2
                || (t.split_whitespace().count() == 3 && t.ends_with(')')))
            && i + 1 < n
            && run_row(trimmed[i + 1]);
        if let Some(reach) = ours(t).or(session.then_some(Reach::Block)) {
            out[i] = Some(Record::Ours);
            i += 1;
            while reach == Reach::Block && i < n && !blank(i) {
                out[i] = Some(Record::Ours);
                i += 1;
            }
            continue;
        }
        // a trace, from its header (or a message whose next line is a frame) to a blank line
        if trace_header(t)
            || frame(lines(i))
            || (i + 1 < n && frame(lines(i + 1)) && t.contains(':'))
        {
            while i < n && !blank(i) {
                out[i] = Some(Record::Trace);
                i += 1;
            }
            continue;
        }
        // a commit and its message paragraph: header, meta lines, a blank, the message
        if commit_header(t) {
            out[i] = Some(Record::Commit);
            i += 1;
            while i < n && (commit_meta(trimmed[i]) || commit_header(trimmed[i])) {
                out[i] = Some(Record::Commit);
                i += 1;
            }
            if i < n && blank(i) {
                i += 1;
                while i < n && !blank(i) {
                    out[i] = Some(Record::Commit);
                    i += 1;
                }
            }
            continue;
        }
        if shortlog_header(t) {
            while i < n && !blank(i) {
                out[i] = Some(Record::Commit);
                i += 1;
            }
            continue;
        }
        // commit lines: one with a hash; conventional subjects only among two or more
        let run = (i..n)
            .take_while(|&k| commit_hash_line(trimmed[k], false) || conventional(trimmed[k]))
            .count();
        if run >= 2 || (run == 1 && commit_hash_line(t, true)) {
            for slot in &mut out[i..i + run] {
                *slot = Some(Record::Commit);
            }
            i += run;
            continue;
        }
        if log_line(t) {
            out[i] = Some(Record::Log);
            i += 1;
            continue;
        }
        // a chat client's copy: a header (name and time), then the message, to the next header
        // or a blank line
        if chat_header(t) && i + 1 < n && !blank(i + 1) {
            out[i] = Some(Record::Chat);
            i += 1;
            while i < n && !blank(i) {
                out[i] = Some(Record::Chat);
                i += 1;
            }
            continue;
        }
        // a chat: consecutive lines of two or more speakers
        let mut first: Option<&str> = None;
        let mut several = false;
        let mut k = i;
        while k < n
            && let Some(sp) = speaker(trimmed[k])
        {
            match first {
                None => first = Some(sp),
                Some(f) => several |= !f.eq_ignore_ascii_case(sp),
            }
            k += 1;
        }
        if several || (k > i && trimmed[i].starts_with("<@")) {
            for slot in &mut out[i..k] {
                *slot = Some(Record::Chat);
            }
        }
        if k > i {
            // (no other record opens with a speaker: skip the run, so a long one costs once)
            i = k;
            continue;
        }
        let run = (i..n).take_while(|&k| history_line(lines(k))).count();
        if run >= 2 || (run == 1 && t.starts_with(": ")) {
            for slot in &mut out[i..i + run] {
                *slot = Some(Record::History);
            }
            i += run;
            continue;
        }
        i += 1;
    }
    for (slot, doc) in out.iter_mut().zip(document_lines(all)) {
        if doc && slot.is_none() {
            *slot = Some(Record::Document);
        }
    }
    // a line between two lines of a record continues it (`[10:32:01] starting\nralph\n[10:32:04]
    // exited`, a chat message's second line)
    for k in 1..n.saturating_sub(1) {
        if out[k].is_none() && !blank(k) && out[k - 1].is_some() && out[k - 1] == out[k + 1] {
            out[k] = out[k - 1];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Option<Record>> {
        classify(&text.lines().map(|l| (0, l)).collect::<Vec<_>>())
    }

    /// Each text's lines read as the records its code gives, a letter a line: `O` ours, `R` a
    /// report, `T` a trace, `C` a chat, `L` a log, `M` a commit, `H` shell history, `-` the
    /// person's own line.
    fn assert_kinds(cases: &[(&str, &str)]) {
        for (text, code) in cases {
            let want: Vec<Option<Record>> = code
                .chars()
                .map(|c| match c {
                    'O' => Some(Ours),
                    'R' => Some(Report),
                    'T' => Some(Trace),
                    'C' => Some(Chat),
                    'L' => Some(Log),
                    'M' => Some(Commit),
                    'H' => Some(History),
                    '-' => None,
                    _ => panic!("unknown record letter {c:?} in {code:?}"),
                })
                .collect();
            assert_eq!(kinds(text), want, "{text:?}");
        }
    }

    use Record::{Chat, Commit, History, Log, Ours, Report, Trace};

    #[test]
    fn our_own_output_is_a_record() {
        assert_kinds(&[
            // `status`: its header, a session and its runs' rows, its footer
            (
                "omc-hooks status — /p (2026-12-04 23:51 UTC)\n\nsession s1\n  ralph        iter 1/100      started 0s ago    stale in 1h 59m           \"fix the flaky tests\"\n  autopilot    iter 1/30       started 0s ago\n\nCancel with 'omc-hooks cancel' (add --session ID).\n\nwhy is ralph still there?",
                "O-OOO-O--",
            ),
            // `mode show`, `mode start`, `detect`, a Stop hook's notice
            (
                "s1  ralph  iteration 1/100  fix the flaky tests\ns1  autopilot  iteration 1/30  phase -  build a cli",
                "OO",
            ),
            (
                "ralph: run started in session s1 (iteration 1/100); the next Stop in that session continues it. Task: fix it",
                "O",
            ),
            (
                "verdict: [MAGIC KEYWORD: RALPH]\n  ralph  \"ralph\"  at 0  ACTIVATED  leading-imperative: …\n\nwhy?",
                "OO--",
            ),
            (
                "omc-hooks: ralph paused — no tool ran.\n\nralph fix it",
                "O--",
            ),
            // the person's own words about it are not
            ("ralph: fix the flaky tests", "-"),
            ("ralph: handle the request below", "-"),
            ("ralph mode is on: the flaky tests", "-"),
            // the instructions, the notifications, a checkpoint notice
            (
                "RALPH mode is on: a persistent loop. Keep working on the request below.\nTDD mode: test first. For the request below, write a failing test",
                "OO",
            ),
            (
                "ralph is waiting for you in /p (iteration 3 of 100, claude): which db?\nomc-hooks checkpoint saved before compaction — active: ralph",
                "OO",
            ),
            ("session s1 keeps ralph running, stop it", "-"),
            ("ralph iter 3 of the parser", "-"),
            ("ralph 2/3 of the tests pass, ralph fix the rest", "-"),
            // a row however it is punctuated or cased
            (
                "  ralph (session abc, iteration 3/100, task: fix the tests)\nRALPH 3/100 · 12 min left",
                "OO",
            ),
        ]);
    }

    #[test]
    fn a_bug_report_is_a_record_but_not_the_request_around_it() {
        assert_kinds(&[
            (
                "Bug: Autopilot disengages on ramps\nSteps to reproduce:\n1. Enable Autopilot in settings\n2. Drive onto a ramp\n\nExpected: autopilot stays engaged\nActual: autopilot disengages\n\nralph fix this",
                "RRRR-RR--",
            ),
            (
                "ralph fix this bug:\n**Steps to reproduce**\n\n1. open the Team page\n2. click Invite\n\nplease",
                "-R-RR--",
            ),
            // a title right above the steps is the report's; a request there is not
            (
                "Team page crashes on invite\n\nSteps to reproduce:\n1. open the Team page",
                "R-RR",
            ),
            (
                "ralph fix the export bug\n\nSteps to reproduce:\n1. export",
                "--RR",
            ),
            (
                "【缺陷】自动驾驶退出\n复现步骤：\n1. 开启自动驾驶\n预期：接管\n实际：退出",
                "RRRRR",
            ),
            // (its title above) the steps right above an expected result, and a report said on one
            // line
            (
                "Auto Pilot turns around\n\n1. Clear waypoints\n2. Engage Auto Pilot\nExpected: hold\nActual: U-turn\n\nsee nav.c",
                "R-RRRR--",
            ),
            (
                "Autopilot resets after an update. Steps: turn on Autopilot, update. Expected: on. Actual: off.",
                "R",
            ),
            (
                "Steps to reproduce:\n\nStep 1: Enable Autopilot\nStep 2: drive",
                "R-RR",
            ),
            // neither steps to reproduce nor an expected and an actual result: no report
            (
                "Bug: ralph loops forever\nExpected: it stops\n1. ralph fix the tests",
                "---",
            ),
        ]);
    }

    #[test]
    fn labels_are_sorted_for_their_binary_search() {
        assert!(LABELS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn commit_lists_and_logs() {
        assert_kinds(&[
            (
                "a1b2c3d feat: ralph fix flaky tests\n9f8e7d6 chore: ulw cleanup\n\nwhich one?",
                "MM--",
            ),
            (
                "feat: ralph fix flaky tests\nchore: ulw cleanup\nwhy",
                "MM-",
            ),
            // one conventional subject alone is the person's own line
            ("fix: the login bug", "-"),
            (
                "commit 4f1a9c2e\nAuthor: D <d@x>\nDate:   Tue\n\nralph: fix it\n\nwhy?",
                "MMM-M--",
            ),
            ("pick 1a2b3c4 ralph fix\nsquash 5d6e7f8 ulw", "MM"),
            ("Dana Kim (3):\n      ralph fix the tests\n\nok", "MM--"),
            ("1234567 is a number", "-"),
        ]);
    }

    #[test]
    fn logs_traces_chats_and_history() {
        assert_kinds(&[
            (
                "2026-12-01T10:32:11Z INFO ralph fix\n[10:32:01] user: ulw\nINFO  [omc] ralph\nlevel=info msg=x\n  ✓ autopilot build me a cli\nDec 01 10:22:03 host x: y",
                "LLLLLL",
            ),
            ("1. ralph fix the tests\n10 tests fail", "--"),
            (
                "[10:32:01] starting worker\nralph\n[10:32:04] worker exited",
                "LLL",
            ),
            (
                "Traceback (most recent call last):\n  File \"a.py\", line 4, in f\n    ralph()\nE: x\n\nfix it",
                "TTTT--",
            ),
            (
                "Error: phase failed\n    at A.b (src/a.ts:1:2)\n\nok",
                "TT--",
            ),
            (
                "alice: can someone ralph it?\nbob: ulw it\n\nsummarise",
                "CC--",
            ),
            // speakers named in Chinese, Korean or Japanese, with a full-width colon or `: `
            (
                "张三：用ralph修一下测试\n李四：还是用超级工作吧\n\n他们在争论什么？",
                "CC--",
            ),
            (
                "민수: 랄프로 돌려\n지은: 울트라워크가 낫지\n\n누가 맞아?",
                "CC--",
            ),
            ("背景：登录测试不稳定\n任务：用ralph修好", "--"),
            // the person's own labels are not speakers, nor is one speaker alone
            ("Context: x\nTask: ralph fix it", "--"),
            ("ralph: fix it\nulw: clean up", "--"),
            ("alice: ralph fix it", "-"),
            (
                "Alice  10:32 AM\nralph fix it pls\nBob  10:33 AM\nulw it\n\nsummarise",
                "CCCC--",
            ),
            (
                "<alice> ralph the migrations\n<bob> no, autopilot them",
                "CC",
            ),
            ("<b> ralph fix it", "-"),
            ("ralph fix it by 10:30", "-"),
            ("fix tests  10:30", "-"),
            ("fix the tests at 10:30 am", "-"),
            ("alice — Today at 10:32 AM\nralph it\n\nok", "CC--"),
            (
                "| * 1d2e3f4 autopilot: build me an app\n* 0a0a0a0 init",
                "MM",
            ),
            (
                "  501  claude -p \"ralph fix\"\n  502  omc-hooks status",
                "HH",
            ),
        ]);
    }
}
