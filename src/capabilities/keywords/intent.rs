//! Whether a mention of a mode is a request to run it.
//!
//! Each rule has a name so `omc-hooks detect` can say which one decided. The rules look only at
//! bounded windows around the match (a clause, a sentence, a line, never more than a few hundred
//! bytes), so judging a match costs the same wherever it is and detection stays linear.
//!
//! Order: boundaries (checked on the raw prompt) → quotes → informational → question →
//! cancel phrase (`stop ralph`) → negation → alternatives → reported speech → the keyword as a
//! subject → as a modifier → as a setting → as a topic → invocation shapes → plain mention.
//! A prompt that fits no invocation shape activates nothing unless the alias is a coined word
//! (see [`super::lexicon::Gate`]); where a prompt is ambiguous, nothing activates.

use super::lexicon::{Alias, Gate, needs_task, takes_topic};

/// Every rule that can decide a candidate, with the sentence `detect` prints for it.
pub const RULES: &[(&str, &str)] = &[
    ("inside-word", "part of a longer word"),
    (
        "identifier",
        "part of an identifier or file name (ralph_count, ralph-state.json, ralph.rs, ralph())",
    ),
    ("path", "part of a path (src/ralph/)"),
    ("possessive", "possessive (ralph's …): talks about the mode"),
    (
        "other-meaning",
        "another word that starts the same (랄프로렌, コードレビュアー)",
    ),
    (
        "review-seed",
        "a pasted review template (approve / request-changes / merge-ready)",
    ),
    ("quoted", "inside quotation marks"),
    (
        "quoted-invocation",
        "a quoted name used as a command (\"ralph\" fix …, run \"ralph\" on …)",
    ),
    (
        "negation",
        "negated (don't / without / instead of / 쓰지 마 / 使わないで / 不要)",
    ),
    (
        "informational",
        "asks about the mode (what is / how do I / explain / vs / 뭐야 / とは / 什么)",
    ),
    ("question", "part of a question"),
    (
        "subject",
        "the mode is the subject of a statement (ralph keeps looping)",
    ),
    (
        "alternative",
        "offered as one of several options (ralph or autopilot)",
    ),
    (
        "reported",
        "reported speech or an example (my prompt was: …, e.g. …)",
    ),
    (
        "noun-phrase",
        "used as a modifier (an autopilot toggle, the ralph state)",
    ),
    (
        "setting",
        "talks about a setting (enable autopilot by default)",
    ),
    (
        "cancel-phrase",
        "asks to stop a running mode (stop ralph, cancel the autopilot run): acted on as cancel",
    ),
    (
        "topic",
        "the topic of something else (about ralph, called autopilot)",
    ),
    (
        "explicit-prefix",
        "an explicit command (/ralph, $ralph, omc:ralph) at the head of a clause",
    ),
    ("colon-directive", "a directive (ralph: fix …)"),
    (
        "leading-imperative",
        "the keyword opens a command and a task follows (ralph fix …)",
    ),
    (
        "activation-verb",
        "an activation verb before it (use / run / start / enable ralph)",
    ),
    (
        "instrument",
        "a command done with the mode (fix … with ralph)",
    ),
    (
        "trailing-tag",
        "a command tagged with the mode at the end of the line (refactor … ulw)",
    ),
    (
        "cjk-directive",
        "a CJK directive (울트라워크 돌려, ラルフで直して, 用ralph修复)",
    ),
    ("mention", "a coined mode name, not negated or asked about"),
    (
        "determiner",
        "a coined name used as a noun (the ultrathink)",
    ),
    ("no-invocation", "mentioned, but not invoked"),
    (
        "bare-cancel",
        "the whole prompt asks to stop (stop / cancel / stop ralph)",
    ),
    (
        "disabled-by-config",
        "switched off in .omc/config.json (keywords.disabled)",
    ),
    (
        "cancel-exclusive",
        "cancel was also asked for; cancel is acted on alone",
    ),
];

/// The sentence for a rule (sanitiser or intent), for people.
pub fn describe(rule: &str) -> &'static str {
    RULES
        .iter()
        .chain(super::sanitize::RULES)
        .find(|(n, _)| *n == rule)
        .map_or("", |(_, d)| d)
}

/// A decision on one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub activated: bool,
    pub rule: &'static str,
}

const fn yes(rule: &'static str) -> Verdict {
    Verdict {
        activated: true,
        rule,
    }
}

const fn no(rule: &'static str) -> Verdict {
    Verdict {
        activated: false,
        rule,
    }
}

// ---------------------------------------------------------------- boundaries (raw prompt)

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

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Checks the characters around an ASCII match in the raw prompt. `Ok(Some(p))`: an explicit
/// prefix starts at `p`; `Ok(None)`: a clean word; `Err(rule)`: not a word of its own.
pub fn boundary(
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
        Some(b':') if next2.is_some_and(|c| c == b':' || c.is_ascii_alphanumeric()) => {
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

// ---------------------------------------------------------------- windows (sanitised text)

fn floor(t: &str, mut i: usize) -> usize {
    i = i.min(t.len());
    while !t.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn back(t: &str, pos: usize, max: usize) -> &str {
    &t[floor(t, pos.saturating_sub(max))..pos]
}

fn fwd(t: &str, pos: usize, max: usize) -> &str {
    &t[pos..floor(t, pos + max)]
}

fn is_break(c: char, next: Option<char>, sentence_only: bool) -> bool {
    let spaced = next.is_none_or(char::is_whitespace);
    match c {
        '\n' | '?' | '？' | '。' | '！' | '；' | ';' => true,
        '.' | '!' => spaced,
        ',' | '，' | '、' | '(' | ')' | '—' | '–' => !sentence_only,
        ':' => !sentence_only && spaced,
        '：' => !sentence_only,
        _ => false,
    }
}

/// The part of `w` after its last break.
fn tail_after_break(w: &str, sentence_only: bool) -> &str {
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
fn head_before_break(w: &str, sentence_only: bool) -> (&str, Option<char>) {
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
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-'))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '’' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect()
}

fn has_seq(ws: &[String], seq: &[&str]) -> bool {
    !seq.is_empty()
        && ws
            .windows(seq.len())
            .any(|w| w.iter().zip(seq).all(|(a, b)| a == b))
}

fn starts(ws: &[String], seq: &[&str]) -> bool {
    ws.len() >= seq.len() && ws.iter().zip(seq).all(|(a, b)| a == b)
}

fn is(w: Option<&String>, set: &[&str]) -> bool {
    w.is_some_and(|w| set.contains(&w.as_str()))
}

// ---------------------------------------------------------------- vocabularies

/// Imperative verbs that make the words after a keyword a task.
const TASK_VERBS: &[&str] = &[
    "fix",
    "debug",
    "investigate",
    "resolve",
    "handle",
    "patch",
    "address",
    "implement",
    "build",
    "create",
    "make",
    "write",
    "add",
    "refactor",
    "rewrite",
    "clean",
    "cleanup",
    "remove",
    "delete",
    "update",
    "upgrade",
    "migrate",
    "port",
    "convert",
    "optimize",
    "optimise",
    "improve",
    "finish",
    "complete",
    "continue",
    "keep",
    "get",
    "do",
    "run",
    "test",
    "verify",
    "review",
    "check",
    "audit",
    "analyze",
    "analyse",
    "research",
    "find",
    "search",
    "explore",
    "plan",
    "design",
    "document",
    "deploy",
    "ship",
    "set",
    "setup",
    "install",
    "configure",
    "integrate",
    "translate",
    "rename",
    "move",
    "split",
    "merge",
    "extract",
    "generate",
    "solve",
    "tackle",
    "work",
    "go",
    "start",
    "benchmark",
    "profile",
    "scaffold",
    "bootstrap",
    "polish",
    "harden",
    "stabilize",
    "stabilise",
    "reproduce",
    "finalize",
    "finalise",
    "prepare",
    "draft",
    "replace",
    "wire",
    "bump",
    "lint",
    "format",
    "tidy",
    "simplify",
    "dedupe",
    "prune",
    "modernize",
    "cover",
    "increase",
    "reduce",
    "speed",
    "trace",
    "diagnose",
    "repair",
    "correct",
    "restore",
    "recover",
    "redo",
    "rebuild",
    "retry",
    "until",
    "bring",
    "land",
    "push",
    "commit",
    "triage",
    "organize",
    "organise",
    "restructure",
    "decouple",
    "help",
    "take",
    "try",
    "figure",
    "look",
    "dig",
    "hunt",
    "chase",
    "nail",
    "knock",
    "iterate",
    "drive",
    "execute",
    "perform",
    "finish",
    "sweep",
    "scan",
    "compare",
    "explain",
    "summarize",
    "summarise",
    "read",
    "grep",
    "locate",
    "map",
    "interview",
    "ask",
    "clarify",
    "spec",
    "think",
    "reason",
    "consider",
    "evaluate",
    "assess",
    "inspect",
    "examine",
    "port",
    "ensure",
    "make",
    "deliver",
    "produce",
];

/// Verbs that, right before a keyword, ask for the mode itself.
const ACTIVATION_VERBS: &[&str] = &[
    "use", "run", "start", "enable", "activate", "invoke", "trigger", "launch", "engage", "try",
    "do", "apply", "begin", "enter", "go", "fire", "resume", "restart",
];

const ACTIVATION_PAIRS: &[[&str; 2]] = &[
    ["turn", "on"],
    ["switch", "to"],
    ["switch", "on"],
    ["kick", "off"],
    ["spin", "up"],
    ["fire", "up"],
    ["go", "into"],
    ["go", "with"],
    ["start", "up"],
    ["switch", "into"],
];

const FILLERS: &[&str] = &[
    "the",
    "a",
    "an",
    "omc",
    "omc's",
    "oh-my-claudecode",
    "oh-my-claudecode's",
    "my",
    "your",
    "our",
    "full",
    "proper",
];

/// Words after a keyword that make it the subject of a statement.
const FINITE: &[&str] = &[
    "is",
    "isn't",
    "was",
    "wasn't",
    "were",
    "are",
    "aren't",
    "has",
    "hasn't",
    "had",
    "have",
    "keeps",
    "kept",
    "seems",
    "seemed",
    "got",
    "gets",
    "went",
    "won't",
    "wont",
    "doesn't",
    "doesnt",
    "didn't",
    "didnt",
    "does",
    "did",
    "never",
    "still",
    "always",
    "sometimes",
    "randomly",
    "loops",
    "looped",
    "looping",
    "hangs",
    "hung",
    "fails",
    "failed",
    "failing",
    "crashed",
    "crashes",
    "triggers",
    "triggered",
    "fires",
    "fired",
    "starts",
    "started",
    "stopped",
    "stops",
    "ran",
    "runs",
    "ended",
    "ends",
    "should",
    "would",
    "could",
    "will",
    "can",
    "cannot",
    "can't",
    "cant",
    "might",
    "may",
    "said",
    "says",
    "wrote",
    "works",
    "worked",
    "working",
    "needs",
    "needed",
    "uses",
    "used",
    "prints",
    "printed",
    "shows",
    "showed",
    "returns",
    "returned",
    "blocked",
    "blocks",
    "restarts",
    "restarted",
    "activated",
    "activates",
    "finished",
    "completed",
    "succeeded",
    "passed",
    "exited",
    "quit",
    "died",
    "timed",
    "just",
    "also",
    "already",
    "itself",
    "only",
    "really",
    "actually",
    "sucks",
    "rocks",
    "means",
    "refers",
    "stands",
    "lets",
    "allows",
    "tries",
    "tried",
    "makes",
    "made",
    "handles",
    "handled",
    "spawns",
    "spawned",
    "writes",
    "reads",
    "reminds",
    "feels",
    "went",
    "broke",
    "breaks",
    "behaves",
    "requires",
    "supports",
    "wants",
    "wanted",
    "gave",
    "gives",
    "ignores",
    "ignored",
    "continues",
    "continued",
];

/// Nouns after a keyword that make it a modifier (an autopilot *toggle*).
const NOUNS: &[&str] = &[
    "toggle",
    "toggles",
    "setting",
    "settings",
    "flag",
    "flags",
    "feature",
    "features",
    "option",
    "options",
    "button",
    "buttons",
    "switch",
    "config",
    "configuration",
    "module",
    "modules",
    "function",
    "functions",
    "class",
    "struct",
    "code",
    "codebase",
    "state",
    "states",
    "file",
    "files",
    "hook",
    "hooks",
    "tests",
    "docs",
    "documentation",
    "readme",
    "page",
    "screen",
    "component",
    "api",
    "endpoint",
    "implementation",
    "logic",
    "handler",
    "detector",
    "keyword",
    "keywords",
    "script",
    "scripts",
    "plugin",
    "integration",
    "support",
    "label",
    "variable",
    "field",
    "column",
    "icon",
    "menu",
    "version",
    "branch",
    "issue",
    "issues",
    "bug",
    "bugs",
    "pr",
    "repo",
    "repository",
    "directory",
    "folder",
    "skill",
    "skills",
    "template",
    "templates",
    "command",
    "subcommand",
    "counter",
    "iteration",
    "iterations",
    "cap",
    "limit",
    "timeout",
    "workflow",
    "output",
    "logs",
    "log",
    "message",
    "messages",
    "text",
    "section",
    "spec",
    "ticket",
    "status",
    "prompt",
    "prompts",
    "schema",
    "type",
    "enum",
    "crate",
    "package",
    "library",
    "test",
    "suite",
    "example",
    "examples",
    "demo",
    "people",
    "team",
    "tutorial",
    "guide",
    "article",
    "post",
    "thread",
    "discussion",
    "project",
    "author",
    "maintainers",
    "name",
    "names",
    "alias",
    "aliases",
    "behaviour",
    "behavior",
    "design",
    "architecture",
    "changes",
    "change",
    "fix",
    "fixes",
    "regression",
    "system",
    "mechanism",
    "loops",
    "modes",
    "runs",
    "sessions",
    "cli",
    "binary",
];

const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "our", "my", "your", "its", "their", "his",
    "her", "some", "any", "each", "every", "no",
];

const TOPIC_WORDS: &[&str] = &[
    "about",
    "regarding",
    "re",
    "called",
    "named",
    "of",
    "from",
    "by",
    "like",
    "than",
    "as",
    "unlike",
    "vs",
    "versus",
    "between",
    "whether",
    "if",
];

const NEGATORS: &[&str] = &[
    "don't",
    "dont",
    "never",
    "not",
    "no",
    "without",
    "avoid",
    "disable",
    "deactivate",
    "instead",
    "rather",
    "isn't",
    "stop",
    "skip",
    "except",
    "shouldn't",
    "can't",
    "won't",
    "nor",
    "neither",
    "w/o",
    "unless",
    "exclude",
    "excluding",
    "ignore",
    "forget",
];

const NEGATORS_AFTER: &[&str] = &["not", "off", "disabled", "isn't", "aside"];

/// English informational phrases before a keyword in its clause.
const INFO_BEFORE: &[&[&str]] = &[
    &["what", "is"],
    &["what's"],
    &["whats"],
    &["what", "are"],
    &["what", "does"],
    &["what", "do"],
    &["how", "does"],
    &["how", "do"],
    &["how", "to"],
    &["how", "is"],
    &["how", "can"],
    &["explain"],
    &["explains"],
    &["describe"],
    &["describes"],
    &["tell", "me", "about"],
    &["tell", "me", "what"],
    &["tell", "me", "how"],
    &["meaning", "of"],
    &["docs", "for"],
    &["documentation"],
    &["learn", "about"],
    &["read", "about"],
    &["curious", "about"],
    &["question", "about"],
    &["questions", "about"],
    &["info", "on"],
    &["information", "on"],
    &["difference", "between"],
    &["when", "to"],
    &["when", "should"],
    &["why", "does"],
    &["why", "is"],
    &["why", "did"],
];

const COMPARISON: &[&str] = &[
    "vs",
    "versus",
    "compare",
    "compared",
    "comparison",
    "difference",
    "differences",
    "differ",
];

/// Informational markers in CJK and Thai, anywhere in the keyword's sentence.
const INFO_CJK: &[&str] = &[
    "뭐야",
    "뭐예요",
    "뭔가요",
    "뭐지",
    "뭐에요",
    "무엇",
    "설명",
    "사용법",
    "어떻게",
    "차이",
    "관계",
    "비교",
    "알려줘",
    "알려 줘",
    "알려주",
    "이란",
    "란 ",
    "とは",
    "使い方",
    "何",
    "説明",
    "違い",
    "比較",
    "どう",
    "教えて",
    "について",
    "って何",
    "什么",
    "怎么",
    "如何",
    "解释",
    "区别",
    "比较",
    "介绍",
    "吗",
    "呢",
    "是啥",
    "คืออะไร",
    "อะไร",
    "ยังไง",
    "อย่างไร",
];

const NEGATION_CJK_AFTER: &[&str] = &[
    "하지 마",
    "하지마",
    "쓰지 마",
    "쓰지마",
    "쓰지 말",
    "하지 말",
    "말고",
    "끄고",
    "꺼줘",
    "꺼 줘",
    "끄기",
    "꺼",
    "금지",
    "없이",
    "안 써",
    "안써",
    "使わない",
    "使わず",
    "しないで",
    "やめて",
    "止めて",
    "禁止",
    "なしで",
    "無しで",
    "オフ",
    "不要",
    "别用",
    "不用",
    "关闭",
    "停止",
    "以外",
];

const NEGATION_CJK_BEFORE: &[&str] = &["不要", "别", "不用", "禁止", "关闭", "停止", "无需", "不"];

/// CJK requests to stop a running mode (`랄프 꺼줘`, `ラルフを止めて`, `停止拉尔夫` is handled
/// by the negation list before the keyword).
const CJK_CANCEL: &[&str] = &[
    "꺼",
    "끄",
    "멈춰",
    "멈추",
    "중지",
    "취소",
    "그만",
    "止めて",
    "止め",
    "停止",
    "やめて",
    "キャンセル",
    "中止",
    "关闭",
    "取消",
    "停下",
];

/// Words that, before a colon, mark what follows as quoted rather than asked for.
const REPORTING: &[&str] = &[
    "prompt",
    "prompts",
    "was",
    "were",
    "said",
    "says",
    "typed",
    "wrote",
    "writes",
    "example",
    "examples",
    "e.g",
    "eg",
    "output",
    "log",
    "logs",
    "message",
    "error",
    "quote",
    "title",
    "reads",
    "saying",
    "input",
    "transcript",
    "history",
    "previous",
    "earlier",
    "yesterday",
    "original",
    "asked",
    "told",
    "sent",
    "subject",
    "commit",
    "heading",
];

/// CJK directives right after a keyword (`ralph로`, `ラルフで`, `ralph模式`).
const CJK_IMMEDIATE: &[&str] = &["로", "으로", "で", "を使", "を起動", "を実行", "模式"];

/// Right after a keyword, these make it a modifier (`랄프의 상태`, `ラルフのバグ`, `拉尔夫的代码`).
const CJK_MODIFIER_PARTICLES: &[&str] = &["의", "の", "的"];

/// Nouns that, as the next word, make a keyword a modifier (`랄프 관련 코드`, `ラルフ 関連`).
const CJK_MODIFIER_NOUNS: &[&str] = &[
    "관련",
    "코드",
    "상태",
    "파일",
    "기능",
    "설정",
    "문서",
    "버그",
    "関連",
    "コード",
    "状態",
    "ファイル",
    "機能",
    "設定",
    "バグ",
    "相关",
    "代码",
    "状态",
    "文件",
    "功能",
    "设置",
    "错误",
];

/// CJK verbs that start or use a mode (a subset of [`CJK_NEAR`]).
const CJK_ACTIVATE: &[&str] = &[
    "켜",
    "실행",
    "시작",
    "돌려",
    "돌리",
    "써줘",
    "써 줘",
    "써서",
    "사용",
    "起動",
    "開始",
    "実行",
    "使って",
    "使用",
    "启动",
    "开始",
    "运行",
    "执行",
    "모드",
    "モード",
    "模式",
];

/// CJK directives within a few characters after a keyword.
const CJK_NEAR: &[&str] = &[
    "켜",
    "실행",
    "시작",
    "돌려",
    "돌리",
    "써줘",
    "써 줘",
    "써서",
    "사용해",
    "사용하",
    "진행",
    "해줘",
    "해 줘",
    "해주",
    "고쳐",
    "구현",
    "만들어",
    "모드",
    "처리",
    "수정",
    "起動",
    "開始",
    "実行",
    "使って",
    "使用",
    "やって",
    "して",
    "したい",
    "しよう",
    "お願い",
    "モード",
    "修正",
    "実装",
    "启动",
    "开始",
    "使用",
    "运行",
    "执行",
    "来",
    "帮我",
    "修复",
    "实现",
    "处理",
    "完成",
];

/// CJK directives right before a keyword (`用ralph`, `启动拉尔夫`).
const CJK_BEFORE: &[&str] = &[
    "用", "使用", "启动", "开启", "打开", "运行", "请用", "开始", "执行",
];

const QUESTION_STARTS: &[&str] = &[
    "what", "what's", "whats", "how", "why", "when", "where", "which", "who", "whom", "whose",
    "is", "are", "was", "were", "does", "did", "should", "shall", "may", "might", "has", "have",
    "isn't", "aren't", "doesn't", "didn't", "wasn't", "am",
];

const SUBJECT_PARTICLES: &[char] = &['가', '이', '는', '은', '도', 'が', 'は', 'も'];

/// Skippable nouns between a keyword and what says how it is used (`ralph loop keeps …`).
const MODE_NOUNS: &[&str] = &["loop", "mode", "run", "session", "workflow"];

// ---------------------------------------------------------------- lead-ins

/// Strips polite and conversational lead-ins from the front of a clause's words. Returns the
/// rest and whether a polite request (`can you`, `could you`) was among them.
fn strip_leadins(ws: &[String]) -> (&[String], bool) {
    let mut rest = ws;
    let mut polite = false;
    loop {
        let w0 = rest.first().map(String::as_str);
        let w1 = rest.get(1).map(String::as_str);
        let step = match (w0, w1) {
            (Some("can" | "could" | "would" | "will"), Some("you" | "u" | "we")) => {
                polite = true;
                2
            }
            (Some("go"), Some("ahead")) => {
                if rest.get(2).is_some_and(|w| w == "and") {
                    3
                } else {
                    2
                }
            }
            (Some("let"), Some("us" | "'s")) => 2,
            (
                Some(
                    "please" | "pls" | "plz" | "ok" | "okay" | "now" | "then" | "and" | "also"
                    | "so" | "alright" | "just" | "kindly" | "first" | "next" | "finally" | "right"
                    | "let's" | "lets" | "hey" | "claude" | "yes" | "yeah" | "sure" | "great"
                    | "good" | "thanks" | "cool",
                ),
                _,
            ) => 1,
            (Some(w), _) if w.chars().all(|c| c.is_ascii_digit()) => 1,
            // an earlier mode name: "ultrathink and then ralph fix …"
            (Some(w), _) if is_mode_word(w) => 1,
            (Some("i" | "we"), _) => {
                let desire: &[&[&str]] = &[
                    &["want", "you", "to"],
                    &["want", "to"],
                    &["need", "you", "to"],
                    &["need", "to"],
                    &["would", "like", "you", "to"],
                    &["would", "like", "to"],
                ];
                match desire.iter().find(|d| starts(&rest[1..], d)) {
                    Some(d) => {
                        polite = true;
                        1 + d.len()
                    }
                    None => 0,
                }
            }
            (Some("i'd" | "we'd"), Some("like")) => {
                if starts(&rest[2..], &["you", "to"]) {
                    4
                } else if rest.get(2).is_some_and(|w| w == "to") {
                    3
                } else {
                    0
                }
            }
            _ => 0,
        };
        if step == 0 {
            return (rest, polite);
        }
        rest = &rest[step..];
    }
}

/// A one-word ASCII alias (`ulw`, `ralph`, `tdd`).
fn is_mode_word(w: &str) -> bool {
    super::lexicon::ALIASES
        .iter()
        .any(|a| a.text == w && a.gate != Gate::Prefix)
}

/// `[verb] [fillers…]` (or `[verb pair] [fillers…]`) exactly.
fn is_activation(rest: &[String]) -> bool {
    let body = match rest {
        [a, b, tail @ ..] if ACTIVATION_PAIRS.iter().any(|p| p[0] == a && p[1] == b) => tail,
        [v, tail @ ..] if ACTIVATION_VERBS.contains(&v.as_str()) => tail,
        _ => return false,
    };
    body.len() <= 3 && body.iter().all(|w| FILLERS.contains(&w.as_str()))
}

// ---------------------------------------------------------------- the judge

/// One match to judge.
pub struct Site<'a> {
    /// The sanitised prompt.
    pub text: &'a str,
    pub start: usize,
    pub end: usize,
    /// Where an explicit prefix (`/`, `$`, `omc:`) starts, if there is one.
    pub prefix: Option<usize>,
    pub alias: &'a Alias,
    /// The prompt as typed (same offsets as `text`).
    pub raw: &'a str,
    /// The prompt's first lines look like a pasted review template.
    pub review_seed: bool,
}

/// The quotation span around `start..end` on its line, if any: (opening quote start, text
/// inside, byte just after the closing quote).
fn quote_span(t: &str, start: usize, end: usize) -> Option<(usize, &str, usize)> {
    let line_start = back(t, start, 400)
        .rfind('\n')
        .map_or(floor(t, start.saturating_sub(400)), |i| {
            floor(t, start.saturating_sub(400)) + i + 1
        });
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
    let chars: Vec<(usize, char)> = head.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let prev = k.checked_sub(1).map(|j| chars[j].1);
        let next = chars.get(k + 1).map(|x| x.1);
        if let Some((_, _, close)) = open {
            let closes = c == close && (c != '\'' || next.is_none_or(|n| !n.is_alphanumeric()));
            if closes {
                open = None;
            }
            continue;
        }
        if let Some((o, cl)) = pairs.iter().find(|(o, _)| *o == c) {
            let opens = *o != '\'' || prev.is_none_or(|p| !p.is_alphanumeric());
            if opens {
                open = Some((line_start + i, *o, *cl));
            }
        }
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

/// Judges one candidate. See the module documentation for the order.
pub fn judge(site: &Site<'_>) -> Verdict {
    let t = site.text;
    let alias = site.alias;
    let name = alias.name;
    let gate = alias.effective_gate();
    let head_pos = site.prefix.unwrap_or(site.start);
    let explicit = site.prefix.is_some();

    if site.review_seed && matches!(name, "code-review" | "security-review") {
        return no("review-seed");
    }

    // the keyword's clause and sentence
    let clause_before = tail_after_break(back(t, head_pos, 120), false);
    let cb_words = words(clause_before);
    let (lead_rest, polite) = strip_leadins(&cb_words);
    let command_pos = lead_rest.is_empty() && !clause_before.contains(['"', '“', '「']);
    let sentence_before = tail_after_break(back(t, head_pos, 200), true);
    let (sentence_after, terminator) = head_before_break(fwd(t, site.end, 200), true);
    let (clause_after, _) = head_before_break(fwd(t, site.end, 120), false);
    let after_words = words(clause_after);
    let next1 = words(sentence_after).into_iter().next();
    let sentence_words = words(sentence_before);
    let prev_word = cb_words.last();

    // quotes
    if let Some((qs, inner, qe)) = quote_span(t, site.start, site.end) {
        let alone = inner.trim().len() == site.end - head_pos;
        if alone {
            let qcb = words(tail_after_break(back(t, qs, 120), false));
            let (qrest, _) = strip_leadins(&qcb);
            let after_quote = words(head_before_break(fwd(t, qe, 120), false).0);
            if is_activation(qrest) || (qrest.is_empty() && is(after_quote.first(), TASK_VERBS)) {
                return yes("quoted-invocation");
            }
        }
        return no("quoted");
    }

    let near_after: String = sentence_after.chars().take(16).collect();
    let near_before: String = {
        let cs: Vec<char> = sentence_before.chars().collect();
        cs[cs.len().saturating_sub(6)..].iter().collect()
    };
    // informational
    let sentence_all = format!("{sentence_before} {sentence_after}");
    if INFO_BEFORE.iter().any(|seq| has_seq(&cb_words, seq))
        || cb_words.iter().any(|w| COMPARISON.contains(&w.as_str()))
        || is(next1.as_ref(), &["vs", "versus"])
        || INFO_CJK.iter().any(|m| sentence_all.contains(m))
    {
        return no("informational");
    }

    // question
    let sw0 = sentence_words
        .first()
        .or(next1.as_ref().filter(|_| sentence_words.is_empty()));
    let sw1 = sentence_words.get(1);
    let modal_question =
        is(sw0, &["can", "could", "would", "will", "shall"]) && !is(sw1, &["you", "u", "we"]);
    let do_question =
        is(sw0, &["do"]) && is(sw1, &["you", "i", "we", "they", "these", "those", "people"]);
    let question = matches!(terminator, Some('?' | '？'))
        || (is(sw0, QUESTION_STARTS) && !sentence_words.is_empty())
        || do_question
        || modal_question;
    let polite_sentence = {
        let (_, p) = strip_leadins(&sentence_words);
        p
    };
    // "ultrathink: is this queue correct?" — the question is the task, not about the mode
    let question_is_task = command_pos
        && sentence_words.len() == cb_words.len()
        && !crate::modes::is_persistent(name)
        && gate != Gate::Prefix
        && !words(sentence_after).is_empty();
    let excused = polite || polite_sentence || question_is_task || (explicit && command_pos);
    let question_blocked = question && !excused;
    if question_blocked {
        return no("question");
    }

    // "stop ralph", "please cancel the autopilot run", "랄프 꺼줘": a cancel, not an activation
    if crate::modes::is_persistent(name) && !question_blocked {
        let en = matches!(
            lead_rest.first().map(String::as_str),
            Some("cancel" | "stop" | "abort" | "kill" | "halt" | "exit" | "quit")
        ) && lead_rest[1..].iter().all(|w| FILLERS.contains(&w.as_str()));
        let attached = t[site.end..].chars().next();
        let cjk = (CJK_CANCEL.iter().any(|m| near_after.contains(m))
            && attached.is_none_or(|c| !SUBJECT_PARTICLES.contains(&c)))
            || ["停止", "关闭", "取消", "停下"]
                .iter()
                .any(|m| near_before.trim_end().ends_with(m));
        if en || cjk {
            return yes("cancel-phrase");
        }
    }

    // negation
    if cb_words.iter().any(|w| NEGATORS.contains(&w.as_str()))
        || has_seq(&cb_words, &["do", "not"])
        || has_seq(&cb_words, &["turn", "off"])
        || is(after_words.first(), NEGATORS_AFTER)
        || (after_words.first().is_some_and(|w| w == "is")
            && is(after_words.get(1), &["not", "off", "disabled"]))
    {
        return no("negation");
    }
    if NEGATION_CJK_AFTER.iter().any(|m| near_after.contains(m))
        || NEGATION_CJK_BEFORE.iter().any(|m| near_before.contains(m))
    {
        return no("negation");
    }

    // one of several options: "ralph or autopilot"
    if is(next1.as_ref(), &["or"]) || is(prev_word, &["or", "either"]) {
        return no("alternative");
    }

    // reported speech: "my prompt was: ralph fix the tests", "e.g. ralph this"
    {
        let clause_start = head_pos - clause_before.len();
        let pre = back(t, clause_start, 80).trim_end();
        let label = pre.ends_with(':') || pre.ends_with('：');
        let pre_words = words(pre);
        let last: &[String] = &pre_words[pre_words.len().saturating_sub(4)..];
        let lower = pre.to_lowercase();
        if (label && last.iter().any(|w| REPORTING.contains(&w.as_str())))
            || lower.ends_with("e.g.")
            || lower.ends_with("i.e.")
            || lower.ends_with("for example,")
            || lower.ends_with("for instance,")
        {
            return no("reported");
        }
    }

    // the keyword as a subject or a modifier
    let next_eff = if is(after_words.first(), MODE_NOUNS) {
        after_words.get(1)
    } else {
        after_words.first()
    };
    let particle = t[site.end..].chars().next();
    if is(next_eff, FINITE)
        || (particle.is_some_and(|c| SUBJECT_PARTICLES.contains(&c))
            && t[site.end..]
                .chars()
                .nth(1)
                .is_none_or(|c| !c.is_alphanumeric() || c.is_ascii()))
    {
        return no("subject");
    }
    let noun = |w: Option<&String>| is(w, NOUNS) && !is(w, TASK_VERBS);
    if !explicit && (noun(next_eff) || noun(after_words.first())) {
        return no("noun-phrase");
    }
    if has_seq(&after_words, &["by", "default"])
        || has_seq(&after_words, &["the", "default"])
        || has_seq(&after_words, &["as", "default"])
    {
        return no("setting");
    }
    if is(prev_word, TOPIC_WORDS) && !explicit {
        return no("topic");
    }

    // invocation shapes
    if explicit && command_pos {
        return yes("explicit-prefix");
    }
    let rest_after = &t[site.end..floor(t, site.end + 200)];
    let raw_after = &site.raw[site.end..floor(site.raw, site.end + 200)];
    let colon = raw_after.trim_start_matches([' ', '\t']);
    if command_pos
        && gate != Gate::Prefix
        && let Some(body) = colon.strip_prefix(':').or_else(|| colon.strip_prefix('：'))
        && body.lines().next().is_some_and(|l| !l.trim().is_empty())
        && (!crate::modes::is_persistent(name) || {
            // a persistent run needs a task, not a remark: "ralph: fix …", not "ralph: the hook …"
            let line = body.lines().next().unwrap_or("");
            words(line)
                .iter()
                .take(12)
                .any(|w| TASK_VERBS.contains(&w.as_str()))
                || CJK_NEAR.iter().any(|m| line.contains(m))
        })
    {
        return yes("colon-directive");
    }
    let first_person = cb_words.iter().any(|w| w == "i" || w == "we");
    if command_pos
        && matches!(gate, Gate::Explicit | Gate::Mention | Gate::Command)
        && !(gate == Gate::Command && first_person)
    {
        // skip separators and softeners between the keyword and the task
        let soft = ["please", "now", "and", "then", "just", "to"];
        let task_words = words(rest_after.split('\n').next().unwrap_or(""));
        let first = task_words
            .iter()
            .map(String::as_str)
            .find(|w| !soft.contains(w));
        let ok = match first {
            Some(w) if TASK_VERBS.contains(&w) => true,
            Some("this" | "it" | "that" | "these" | "those" | "everything") => true,
            Some("about" | "through" | "over" | "on") => takes_topic(name),
            // "code review the changes": the alias is itself a verb phrase
            Some("the" | "my" | "our" | "all" | "every" | "each") => {
                !crate::modes::is_persistent(name)
            }
            _ => false,
        };
        // a context-only mode needs no task: "ultrathink", "TDD please"
        let bare = first.is_none() && !crate::modes::is_persistent(name) && gate != Gate::Command;
        if ok || !needs_task(name) || bare {
            return yes("leading-imperative");
        }
    }
    if gate == Gate::Command {
        return no("no-invocation");
    }
    if is_activation(lead_rest)
        || (lead_rest.len() == 1 && lead_rest[0] == "in" && is(after_words.first(), &["mode"]))
    {
        return yes("activation-verb");
    }
    // instrument: "fix the tests with ralph"
    let (sent_rest, _) = strip_leadins(&sentence_words);
    let imperative_sentence = sent_rest
        .first()
        .is_some_and(|w| TASK_VERBS.contains(&w.as_str()));
    let before_fillers: Vec<&String> = cb_words
        .iter()
        .rev()
        .skip_while(|w| FILLERS.contains(&w.as_str()))
        .collect();
    let instrument = matches!(
        before_fillers.first().map(|w| w.as_str()),
        Some("with" | "using" | "via")
    ) || (before_fillers.first().is_some_and(|w| *w == "in")
        && is(after_words.first(), &["mode"]));
    if imperative_sentence && instrument {
        return yes("instrument");
    }
    // trailing tag: "refactor the auth module ulw"
    let line_rest = rest_after.split('\n').next().unwrap_or("");
    let line_ends = line_rest.chars().all(|c| !c.is_alphanumeric());
    if line_ends && !is(prev_word, DETERMINERS) && !is(prev_word, TOPIC_WORDS) {
        let line_start = back(t, head_pos, 300).rfind('\n').map_or(0, |i| i + 1);
        let line_before = &back(t, head_pos, 300)[line_start..];
        let lw = words(line_before);
        let (lrest, _) = strip_leadins(&lw);
        if lrest.len() >= 2
            && TASK_VERBS.contains(&lrest[0].as_str())
            && !is(
                prev_word,
                &["and", "or", "with", "to", "for", "in", "on", "at"],
            )
        {
            return yes("trailing-tag");
        }
    }
    // CJK directives; the verb ends a Korean or Japanese sentence, so a keyword that opens
    // its sentence is judged by the whole sentence
    let imm = rest_after.trim_start_matches(' ');
    let next_token: String = imm.chars().take_while(|c| !c.is_whitespace()).collect();
    if CJK_MODIFIER_PARTICLES
        .iter()
        .any(|p| rest_after.starts_with(p))
        || CJK_MODIFIER_NOUNS.iter().any(|n| next_token.starts_with(n))
    {
        return no("noun-phrase");
    }
    let whole_sentence: String = sentence_after.chars().take(60).collect();
    // as an object (`랄프를 …`, `ラルフを …`) only a verb that starts a mode counts: `랄프를 켜줘`,
    // not `랄프를 삭제해줘`
    let object = ["를", "을", "を"].iter().any(|p| rest_after.starts_with(p));
    let near: &[&str] = if object { CJK_ACTIVATE } else { CJK_NEAR };
    if CJK_IMMEDIATE.iter().any(|m| imm.starts_with(m))
        || near.iter().any(|m| near_after.contains(m))
        || (command_pos && near.iter().any(|m| whole_sentence.contains(m)))
        || CJK_BEFORE
            .iter()
            .any(|m| near_before.trim_end().ends_with(m))
    {
        return yes("cjk-directive");
    }
    if gate == Gate::Mention {
        if is(prev_word, DETERMINERS) {
            return no("determiner");
        }
        if is(
            lead_rest.first(),
            &[
                "i", "we", "you", "they", "he", "she", "it", "i'm", "we're", "i've", "i'll",
            ],
        ) {
            return no("no-invocation");
        }
        return yes("mention");
    }
    no("no-invocation")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_a_description() {
        for (n, d) in RULES {
            assert!(!d.is_empty(), "{n}");
        }
        assert!(!describe("fenced-code").is_empty());
        assert!(!describe("question").is_empty());
    }

    #[test]
    fn leadins() {
        let ws = words("please could you");
        let (rest, polite) = strip_leadins(&ws);
        assert!(rest.is_empty() && polite);
        let ws = words("i want you to use the");
        let (rest, _) = strip_leadins(&ws);
        assert!(is_activation(rest));
        let ws = words("we use");
        assert!(!is_activation(strip_leadins(&ws).0));
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
}
