//! Tokens a client recorded in its session file, counted from where the last count stopped
//! (issue 34: a run's token budget), and, for a user hook's input, the session's whole count
//! and the prompts the person typed (issue 36).
//!
//! What each client records, read by shape (no agent is named here):
//!
//! | client | file (`transcript_path`) | record | counted |
//! |---|---|---|---|
//! | Claude Code (and the clients that write its transcript) | JSON lines | `{"type":"assistant","message":{"id":…,"usage":{…}}}`, one line per content block, the same usage on each | per message id, once: `input_tokens + output_tokens + cache_creation_input_tokens + cache_read_input_tokens` (what the call consumed) |
//! | Codex CLI | the rollout, JSON lines | `{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":…}}}}`, cumulative for the session | the growth of `total_tokens` |
//! | Gemini CLI | its chat recording, JSON lines | `{"id":…,"type":"gemini","tokens":{"total":…}}` per call, written again when its tool calls complete | `tokens.total` once per id |
//! | Qwen Code | its chat recording, JSON lines | `{"uuid":…,"type":"assistant","usageMetadata":{"totalTokenCount":…}}` per call (its `ui_telemetry` records repeat the numbers) | `totalTokenCount` once per uuid |
//!
//! Only lines stamped at or after the run's start count (`timestamp`); a Codex total before
//! it is the base the growth is measured from. The file is read from the cursor on, so a Stop
//! reads only what was appended since the last one, and never more than [`MAX_READ`] at once.
//! A run's cursor starts at the file's end ([`cursor_at_end`]); a run without one skips the
//! records before its start by bisecting on their time stamps (issue 44).
//! `transcript_path` is opened only when absolute and a regular file (as [`super::transcript`]).

use super::transcript::contains;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};

/// At most this much of the file is read by one count; a longer backlog is skipped to its
/// last [`MAX_READ`] bytes (the count is then a lower bound, never an overcount).
pub const MAX_READ: u64 = 32 * 1024 * 1024;
/// Message ids remembered across counts, to count a message split over lines once.
const IDS: usize = 8;

/// Where the last count stopped.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Cursor {
    /// The file counted (a new file starts a new count).
    pub path: String,
    /// Bytes of it already counted (whole lines).
    pub offset: u64,
    /// The last message ids counted (Claude Code's lines repeat a message's usage).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
    /// The last cumulative total seen (Codex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// The last cumulative split by type seen (Codex), to split the growth of `total`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Tokens>,
    /// The model the last `turn_context` named (Codex records it apart from the usage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Tokens of one model by the type they are priced as (contract §6 "Cost"). `input` is the
/// input not read from a cache; `output` includes reasoning ("thinking") tokens, which every
/// provider bills as output.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Tokens {
    #[serde(default)]
    pub input: u64,
    #[serde(default)]
    pub output: u64,
    #[serde(default)]
    pub cache_read: u64,
    #[serde(default)]
    pub cache_write: u64,
}

impl Tokens {
    pub fn add(&mut self, o: &Tokens) {
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_write = self.cache_write.saturating_add(o.cache_write);
    }

    pub fn sum(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    fn minus(&self, o: &Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_sub(o.input),
            output: self.output.saturating_sub(o.output),
            cache_read: self.cache_read.saturating_sub(o.cache_read),
            cache_write: self.cache_write.saturating_sub(o.cache_write),
        }
    }
}

/// Tokens by model name (`""`: a record that names no model, whose cost is unknown).
pub type ByModel = std::collections::BTreeMap<String, Tokens>;

/// Adds `b` into `a`.
pub fn add_models(a: &mut ByModel, b: &ByModel) {
    for (m, t) in b {
        a.entry(m.clone()).or_default().add(t);
    }
}

/// What one count found: the total as [`count`] always counted it, and the split by model
/// and type the prices apply to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counted {
    pub total: u64,
    pub by_model: ByModel,
}

/// How much of the file's end [`cursor_at_end`] reads: enough for the last whole line and,
/// in a Codex rollout, its last cumulative total.
const START_TAIL: u64 = 64 * 1024;

/// A cursor at the current end of `raw_path` (its last whole line), for a run that starts
/// now: its count begins where the session file stands, so a run started late in a long
/// session never reads what came before it (issue 44). The end is read (at most
/// [`START_TAIL`]) only for the last Codex total before the run, the base its growth is
/// measured from. `None` when the file cannot be read.
pub fn cursor_at_end(raw_path: &str) -> Option<Cursor> {
    let (mut file, meta) = super::transcript::open(raw_path)?;
    let len = meta.len();
    let start = len.saturating_sub(START_TAIL);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    file.take(len - start).read_to_end(&mut buf).ok()?;
    let whole = buf.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut cur = Cursor {
        path: raw_path.to_string(),
        offset: start + whole as u64,
        ..Cursor::default()
    };
    let mut lines = buf[..whole].split(|b| *b == b'\n');
    if start > 0 {
        lines.next(); // cut by the tail's start
    }
    for line in lines.filter(|l| contains(l, b"token_count")) {
        // Counted against a run that starts after every line: only the totals are kept.
        line_tokens(line, &mut cur, i64::MAX);
    }
    cur.ids.clear();
    Some(cur)
}

/// Tokens recorded in `raw_path` since `cursor` (from the start of the file without one, or
/// when the file is another or shorter), counting only records stamped at or after
/// `since_ms`; and the cursor after them. `None` when the file cannot be read.
pub fn count(raw_path: &str, cursor: Option<&Cursor>, since_ms: i64) -> Option<(u64, Cursor)> {
    count_split(raw_path, cursor, since_ms).map(|(c, cur)| (c.total, cur))
}

/// [`count`] with the split by model and type.
pub fn count_split(
    raw_path: &str,
    cursor: Option<&Cursor>,
    since_ms: i64,
) -> Option<(Counted, Cursor)> {
    let (mut file, meta) = super::transcript::open(raw_path)?;
    let len = meta.len();
    let mut cur = match cursor {
        Some(c) if c.path == raw_path && c.offset <= len => c.clone(),
        _ => Cursor {
            path: raw_path.to_string(),
            ..Cursor::default()
        },
    };
    // A run with no cursor yet (started without a session file named, or by an older
    // version): the records before its start are skipped by their time stamps, found by
    // bisection, rather than read.
    if cur.offset == 0 && len > START_TAIL {
        cur.offset = first_stamped_at(&mut file, len, since_ms).unwrap_or(0);
    }
    let start = cur.offset.max(len.saturating_sub(MAX_READ));
    if start == len {
        return Some((Counted::default(), cur)); // nothing new: no read
    }
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::with_capacity((len - start) as usize);
    file.take(len - start).read_to_end(&mut buf).ok()?;
    // Whole lines only: a line still being written is counted next time.
    let whole = buf.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut added = Counted::default();
    let mut lines = buf[..whole].split(|b| *b == b'\n');
    if start > cur.offset {
        lines.next(); // cut by the skip
    }
    for line in lines {
        let had_total = cur.total.is_some();
        let mut one = Counted::default();
        add_line(&mut one, line, &mut cur, since_ms);
        // Read from the middle with no total known before it: the first cumulative total is
        // the base, not growth (the count stays a lower bound, never an overcount).
        if !had_total && cur.total.is_some() && start > 0 {
            continue;
        }
        added.total = added.total.saturating_add(one.total);
        add_models(&mut added.by_model, &one.by_model);
    }
    cur.offset = start + whole as u64;
    Some((added, cur))
}

fn add_line(into: &mut Counted, line: &[u8], cur: &mut Cursor, since_ms: i64) {
    if let Some((n, model, split)) = line_tokens(line, cur, since_ms) {
        into.total = into.total.saturating_add(n);
        into.by_model.entry(model).or_default().add(&split);
    }
}

/// The offset of a line at or before the first line stamped at or after `since_ms`, found by
/// bisecting the file on the lines' `timestamp` (records are appended in time order): a few
/// reads of [`START_TAIL`] instead of the whole file. `None` when a probe finds no stamped
/// line (then the file is read as it is).
fn first_stamped_at(file: &mut std::fs::File, len: u64, since_ms: i64) -> Option<u64> {
    let (mut lo, mut hi) = (0u64, len);
    let mut buf = Vec::with_capacity(START_TAIL as usize);
    while hi - lo > START_TAIL {
        let mid = lo + (hi - lo) / 2;
        file.seek(SeekFrom::Start(mid)).ok()?;
        buf.clear();
        file.by_ref().take(START_TAIL).read_to_end(&mut buf).ok()?;
        // The first whole line after `mid` with a time stamp.
        let first = buf.iter().position(|b| *b == b'\n')? + 1;
        let mut at = first;
        let (line_start, stamp) = loop {
            let end = at + buf[at..].iter().position(|b| *b == b'\n')?;
            if let Some(t) = stamp_of(&buf[at..end]) {
                break (mid + at as u64, t);
            }
            at = end + 1;
        };
        // Each step narrows the range, or the bisection ends (records out of order).
        let (new_lo, new_hi) = if stamp < since_ms {
            (line_start, hi)
        } else {
            (lo, mid + first as u64)
        };
        if new_lo >= new_hi || (new_lo, new_hi) == (lo, hi) {
            break;
        }
        (lo, hi) = (new_lo, new_hi);
    }
    Some(lo)
}

/// A record's `"timestamp": "…"`, read without parsing the line.
fn stamp_of(line: &[u8]) -> Option<i64> {
    const KEY: &[u8] = b"\"timestamp\"";
    let at = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let rest = &line[at..];
    let at = at + rest.iter().position(|b| !matches!(b, b' ' | b':'))?;
    if line[at] != b'"' {
        return None;
    }
    let at = at + 1;
    let end = at + line[at..].iter().position(|b| *b == b'"')?;
    crate::time::parse_iso(std::str::from_utf8(&line[at..end]).ok()?)
}

/// The tokens one line adds: the total, the model and the split by type (`None`: nothing).
fn line_tokens(line: &[u8], cur: &mut Cursor, since_ms: i64) -> Option<(u64, String, Tokens)> {
    if contains(line, b"\"turn_context\"")
        && let Ok(v) = serde_json::from_slice::<Value>(line)
        && v["type"] == "turn_context"
    {
        // Codex names the model of the turns that follow.
        if let Some(m) = v.pointer("/payload/model").and_then(Value::as_str) {
            cur.model = Some(m.to_string());
        }
        return None;
    }
    if !contains(line, b"usage") && !contains(line, b"\"tokens\"") {
        return None;
    }
    let v = serde_json::from_slice::<Value>(line).ok()?;
    let stamped_in_run = || {
        v.get("timestamp")
            .and_then(Value::as_str)
            .and_then(crate::time::parse_iso)
            .is_none_or(|t| t >= since_ms)
    };
    let n = |o: &Value, k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
    // Codex: a cumulative total (input counts the cached input too).
    if let Some(p) = v.get("payload").filter(|p| p["type"] == "token_count") {
        let total = p
            .pointer("/info/total_token_usage/total_tokens")
            .and_then(Value::as_u64)?;
        let u = &p["info"]["total_token_usage"];
        let cached = n(u, "cached_input_tokens");
        let split = Tokens {
            input: n(u, "input_tokens").saturating_sub(cached),
            output: n(u, "output_tokens"),
            cache_read: cached,
            cache_write: n(u, "cache_write_input_tokens"),
        };
        let before = cur.total.replace(total);
        let before_split = cur.split.replace(split);
        if !stamped_in_run() {
            return None;
        }
        let grown = split.minus(&before_split.unwrap_or_default());
        let model = cur.model.clone().unwrap_or_default();
        return Some((total.saturating_sub(before.unwrap_or(0)), model, grown));
    }
    // Gemini CLI: one `gemini` record per call, written again (same id) when its tool calls
    // complete. Qwen Code: one `assistant` record per call with the API's `usageMetadata` (its
    // telemetry records repeat the numbers under other names and are not counted). Both count
    // the cached part inside the prompt's tokens, and thoughts apart from the output.
    // The same counts under each one's names: prompt, its cached part, output, thoughts.
    let count = |u: &Value, [prompt, cached, output, thoughts]: [&str; 4]| Tokens {
        input: n(u, prompt).saturating_sub(n(u, cached)),
        output: n(u, output) + n(u, thoughts),
        cache_read: n(u, cached),
        cache_write: 0,
    };
    let per_call = match (v["type"].as_str(), v.get("tokens"), v.get("usageMetadata")) {
        (Some("gemini"), Some(t), _) => Some((
            t.get("total"),
            v.get("id"),
            count(t, ["input", "cached", "output", "thoughts"]),
        )),
        (Some("assistant"), _, Some(u)) => {
            let names = [
                "promptTokenCount",
                "cachedContentTokenCount",
                "candidatesTokenCount",
                "thoughtsTokenCount",
            ];
            Some((u.get("totalTokenCount"), v.get("uuid"), count(u, names)))
        }
        _ => None,
    };
    let model_of = |v: &Value| {
        v.get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    if let Some((total, id, split)) = per_call {
        let total = total.and_then(Value::as_u64)?;
        if !first_time(cur, id.and_then(Value::as_str)) || !stamped_in_run() {
            return None;
        }
        return Some((total, model_of(&v), split));
    }
    // Claude Code: one assistant message's usage, on each of its lines.
    let message = v.get("message").unwrap_or(&v);
    let (Some(usage), true) = (message.get("usage"), v["type"] == "assistant") else {
        return None;
    };
    if message.get("model").and_then(Value::as_str) == Some("<synthetic>") {
        return None;
    }
    if !first_time(cur, message.get("id").and_then(Value::as_str)) || !stamped_in_run() {
        return None;
    }
    let split = Tokens {
        input: n(usage, "input_tokens"),
        output: n(usage, "output_tokens"),
        cache_read: n(usage, "cache_read_input_tokens"),
        cache_write: n(usage, "cache_creation_input_tokens"),
    };
    Some((split.sum(), model_of(message), split))
}

/// Whether a record id is counted for the first time (no id: always), remembering it.
fn first_time(cur: &mut Cursor, id: Option<&str>) -> bool {
    let Some(id) = id else {
        return true;
    };
    if cur.ids.iter().any(|i| i == id) {
        return false;
    }
    cur.ids.push(id.to_string());
    if cur.ids.len() > IDS {
        cur.ids.remove(0);
    }
    true
}

/// The largest transcript read whole, for a user hook's input (`tokens_used`, `turn_number`).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The transcript at `raw_path`, whole, when it is at most [`MAX_BYTES`] long.
pub fn read_whole(raw_path: &str) -> Option<Vec<u8>> {
    let bytes = super::transcript::tail(raw_path, MAX_BYTES + 1)?;
    (bytes.len() as u64 <= MAX_BYTES).then_some(bytes)
}

/// The tokens the client recorded for the whole session (a user hook's `tokens_used`): every
/// record the table above counts, from the start of the file. `None` when the transcript
/// cannot be read whole or records no usage at all.
pub fn tokens_used(raw_path: &str) -> Option<u64> {
    tokens_used_in(&read_whole(raw_path)?)
}

/// [`tokens_used`] over a transcript's bytes (JSON lines).
pub fn tokens_used_in(lines: &[u8]) -> Option<u64> {
    let total = counted_in(lines).total;
    (total > 0).then_some(total)
}

/// Everything a transcript's bytes record, split by model (a session's totals).
pub fn counted_in(lines: &[u8]) -> Counted {
    let mut cur = Cursor::default();
    let mut out = Counted::default();
    for line in lines.split(|b| *b == b'\n') {
        add_line(&mut out, line, &mut cur, i64::MIN);
    }
    out
}

/// The prompts the person typed, as the transcript records them (user messages with text:
/// not tool results, not the client's own meta messages, not a subagent's). The last one's
/// text comes with the count.
pub fn prompts_in(lines: &[u8]) -> (u64, Option<String>) {
    let mut count = 0;
    let mut last = None;
    for line in lines.split(|b| *b == b'\n') {
        if !contains(line, b"\"user\"") {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        if v.get("type").and_then(Value::as_str) != Some("user")
            || v.get("isMeta").and_then(Value::as_bool) == Some(true)
            || v.get("isSidechain").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let text = match v.get("message").and_then(|m| m.get("content")) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(parts)) => {
                let texts: Vec<&str> = parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|p| p.get("text")?.as_str())
                    .collect();
                let tool = parts
                    .iter()
                    .any(|p| p.get("type").and_then(Value::as_str) == Some("tool_result"));
                (!tool && !texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => None,
        };
        if let Some(t) = text {
            count += 1;
            last = Some(t);
        }
    }
    (count, last)
}

/// `340k`, `1.2M`, `900`: a token count for people. Above millions the unit grows (`1.2B`,
/// `3T`, up to `18.4E` for the largest count a file can hold), so a huge or hostile count
/// prints as a number a person can read, never `18446744073709.5M` (issue 43).
pub fn tokens_text(n: u64) -> String {
    const UNITS: &[(u64, &str)] = &[
        (1_000_000_000_000_000_000, "E"),
        (1_000_000_000_000_000, "P"),
        (1_000_000_000_000, "T"),
        (1_000_000_000, "B"),
        (1_000_000, "M"),
    ];
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{}k", n / 1_000),
        _ => {
            let (size, unit) = UNITS
                .iter()
                .copied()
                .find(|(size, _)| n >= *size)
                .unwrap_or((1_000_000, "M"));
            let tenths = n / (size / 10);
            match tenths % 10 {
                0 => format!("{}{unit}", tenths / 10),
                t => format!("{}.{t}{unit}", tenths / 10),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Input, output, cache read, cache write.
    fn tokens(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Tokens {
        Tokens {
            input,
            output,
            cache_read,
            cache_write,
        }
    }
    use std::io::Write;

    fn claude(id: &str, ts: &str, input: u64, output: u64) -> String {
        format!(
            r#"{{"type":"assistant","timestamp":"{ts}","message":{{"id":"{id}","role":"assistant","model":"m","usage":{{"input_tokens":{input},"output_tokens":{output},"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}}}"#
        )
    }

    fn codex(ts: &str, total: u64) -> String {
        format!(
            r#"{{"timestamp":"{ts}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":1,"total_tokens":{total}}}}}}}}}"#
        )
    }

    #[test]
    fn claude_messages_count_once_each_and_only_in_the_run() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let mut f = std::fs::File::create(&p).unwrap();
        let since = crate::time::parse_iso("2026-01-01T00:00:10Z").unwrap();
        writeln!(f, "{}", claude("m0", "2026-01-01T00:00:05Z", 1000, 10)).unwrap();
        writeln!(f, "{}", claude("m1", "2026-01-01T00:00:11Z", 30000, 100)).unwrap();
        writeln!(f, "{}", claude("m1", "2026-01-01T00:00:11Z", 30000, 100)).unwrap();
        let path = p.to_str().unwrap();
        let (n, cur) = count(path, None, since).unwrap();
        assert_eq!(n, 30100);
        // Appended later: only the new lines are read; a split message still counts once.
        writeln!(f, "{}", claude("m1", "2026-01-01T00:00:11Z", 30000, 100)).unwrap();
        writeln!(f, "{}", claude("m2", "2026-01-01T00:00:12Z", 20000, 0)).unwrap();
        write!(f, "{}", &claude("m3", "2026-01-01T00:00:13Z", 5, 5)[..20]).unwrap();
        let (n, cur) = count(path, Some(&cur), since).unwrap();
        assert_eq!(n, 20000, "the half-written line waits");
        let (n, _) = count(path, Some(&cur), since).unwrap();
        assert_eq!(n, 0);
    }

    #[test]
    fn codex_totals_grow_from_the_last_one_before_the_run() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("rollout.jsonl");
        let since = crate::time::parse_iso("2026-01-01T00:00:10Z").unwrap();
        std::fs::write(
            &p,
            format!(
                "{}\n{}\n{}\n",
                codex("2026-01-01T00:00:01Z", 5000),
                codex("2026-01-01T00:00:11Z", 35000),
                codex("2026-01-01T00:00:12Z", 65000)
            ),
        )
        .unwrap();
        assert_eq!(count(p.to_str().unwrap(), None, since).unwrap().0, 60000);
    }

    #[test]
    fn gemini_and_qwen_records_count_once_per_call() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("chat.jsonl");
        let gem = |id: &str, total: u64| {
            format!(
                r#"{{"id":"{id}","timestamp":"2026-01-01T00:00:11Z","type":"gemini","content":"x","tokens":{{"input":30000,"output":5,"total":{total}}}}}"#
            )
        };
        let qwen = |uuid: &str, total: u64| {
            format!(
                r#"{{"uuid":"{uuid}","timestamp":"2026-01-01T00:00:12Z","type":"assistant","usageMetadata":{{"promptTokenCount":30000,"totalTokenCount":{total}}}}}"#
            )
        };
        let telemetry = r#"{"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"total_token_count":30005}},"usage":1}"#;
        std::fs::write(
            &p,
            format!(
                "{}
{}
{}
{}
{}
",
                gem("g1", 30005),
                gem("g1", 30005),
                qwen("q1", 30005),
                telemetry,
                qwen("q2", 10)
            ),
        )
        .unwrap();
        assert_eq!(count(p.to_str().unwrap(), None, 0).unwrap().0, 60020);
    }

    #[test]
    fn usage_is_summed_once_per_message_and_unknown_without_any() {
        let t = br#"{"type":"user","message":{"content":"hi"}}
{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}}
{"type":"assistant","message":{"id":"m1","model":"x","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}}
{"type":"assistant","message":{"id":"m2","model":"<synthetic>","usage":{"input_tokens":7}}}
{"type":"assistant","message":{"id":"m3","usage":{"input_tokens":1,"output_tokens":2}}}
"#;
        assert_eq!(tokens_used_in(t), Some(1118));
        assert_eq!(
            tokens_used_in(br#"{"type":"user","message":{"content":"hi"}}"#),
            None
        );
    }

    #[test]
    fn prompts_are_the_persons_text_messages() {
        let t = br#"{"type":"user","message":{"content":"first"}}
{"type":"user","message":{"content":[{"type":"tool_result","content":"ok"}]}}
{"type":"user","isMeta":true,"message":{"content":"caveat"}}
{"type":"user","message":{"content":[{"type":"text","text":"second"}]}}
"#;
        assert_eq!(prompts_in(t), (2, Some("second".to_string())));
    }

    #[test]
    fn the_split_by_model_and_type_for_each_client() {
        let claude = br#"{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}}
{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000}}}
"#;
        let c = counted_in(claude);
        assert_eq!(c.total, 1115);
        assert_eq!(c.by_model["claude-sonnet-4-5"], tokens(10, 5, 1000, 100));
        let codex = br#"{"type":"turn_context","payload":{"model":"gpt-5-codex"}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":400,"output_tokens":50,"total_tokens":1050}}}}
{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":3000,"cached_input_tokens":1400,"output_tokens":80,"total_tokens":3080}}}}
"#;
        let c = counted_in(codex);
        assert_eq!(c.total, 3080);
        assert_eq!(c.by_model["gpt-5-codex"], tokens(1600, 80, 1400, 0));
        let gemini = br#"{"id":"g1","type":"gemini","model":"gemini-2.5-flash","tokens":{"input":300,"output":5,"cached":100,"thoughts":7,"tool":0,"total":312}}
{"uuid":"q1","type":"assistant","model":"qwen3-coder-plus","usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":5,"thoughtsTokenCount":1,"cachedContentTokenCount":10,"totalTokenCount":36}}
"#;
        let c = counted_in(gemini);
        assert_eq!(c.total, 348);
        assert_eq!(c.by_model["gemini-2.5-flash"], tokens(200, 12, 100, 0));
        assert_eq!(c.by_model["qwen3-coder-plus"], tokens(20, 6, 10, 0));
        // An assistant message that mentions a Codex record name is still counted.
        let odd = br#"{"type":"assistant","message":{"id":"m9","model":"x","name":"turn_context","usage":{"input_tokens":4}}}"#;
        assert_eq!(counted_in(odd).total, 4);
    }

    #[test]
    fn a_cursor_set_at_the_end_counts_only_what_follows() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let path = p.to_str().unwrap();
        let mut f = std::fs::File::create(&p).unwrap();
        // Stamped as late as the run itself: only the cursor keeps it out.
        writeln!(f, "{}", claude("m0", "2026-01-01T00:00:10Z", 1000, 10)).unwrap();
        write!(f, "{}", &claude("m1", "2026-01-01T00:00:10Z", 7, 7)[..30]).unwrap();
        let cur = cursor_at_end(path).unwrap();
        assert_eq!(
            cur.offset,
            std::fs::read(&p)
                .unwrap()
                .iter()
                .rposition(|b| *b == b'\n')
                .unwrap() as u64
                + 1,
            "after the last whole line"
        );
        writeln!(f).unwrap();
        writeln!(f, "{}", claude("m2", "2026-01-01T00:00:11Z", 300, 3)).unwrap();
        let (n, _) = count(path, Some(&cur), 0).unwrap();
        assert_eq!(n, 303, "the line cut at the start is not counted, m2 is");

        // Codex: the last total before the cursor is the base.
        let r = t.path().join("rollout.jsonl");
        let rpath = r.to_str().unwrap();
        std::fs::write(
            &r,
            format!(
                "{}\n{}\n",
                codex("2026-01-01T00:00:01Z", 5000),
                codex("2026-01-01T00:00:11Z", 35000)
            ),
        )
        .unwrap();
        let cur = cursor_at_end(rpath).unwrap();
        assert_eq!(cur.total, Some(35000));
        let mut f = std::fs::OpenOptions::new().append(true).open(&r).unwrap();
        writeln!(f, "{}", codex("2026-01-01T00:00:12Z", 65000)).unwrap();
        assert_eq!(count(rpath, Some(&cur), 0).unwrap().0, 30000);
        // No total known before where the read starts: the first one is the base, not growth.
        let blind = Cursor { total: None, ..cur };
        writeln!(f, "{}", codex("2026-01-01T00:00:13Z", 70000)).unwrap();
        assert_eq!(count(rpath, Some(&blind), 0).unwrap().0, 5000);
    }

    #[test]
    fn without_a_cursor_the_records_before_the_run_are_skipped_by_bisection() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let path = p.to_str().unwrap();
        let since = crate::time::parse_iso("2026-01-01T10:00:00Z").unwrap();
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        // 4 MiB before the run: stamped lines, and unstamped ones a whole read would count
        // (the bisection stops within a window of the run's start: none in the last MiB).
        let mut i = 0;
        while f.get_ref().metadata().unwrap().len() < 4 << 20 {
            let early = f.get_ref().metadata().unwrap().len() < 3 << 20;
            for _ in 0..100 {
                writeln!(
                    f,
                    "{}",
                    claude(&format!("a{i}"), "2026-01-01T09:00:00Z", 1, 0)
                )
                .unwrap();
                if early {
                    writeln!(f, r#"{{"type":"assistant","message":{{"id":"u{i}","model":"m","usage":{{"input_tokens":1000}}}}}}"#).unwrap();
                }
                i += 1;
            }
            f.flush().unwrap();
        }
        writeln!(f, "{}", claude("run1", "2026-01-01T10:00:01Z", 300, 3)).unwrap();
        writeln!(f, "{}", claude("run2", "2026-01-01T10:00:02Z", 30, 0)).unwrap();
        drop(f);
        let (n, cur) = count(path, None, since).unwrap();
        assert_eq!(
            n, 333,
            "only the run's records, none of the unstamped ones before it"
        );
        assert_eq!(cur.offset, std::fs::metadata(&p).unwrap().len());
        // Written with spaces after the colons, as some writers do: the same.
        let spaced = t.path().join("spaced.jsonl");
        let text = std::fs::read_to_string(&p)
            .unwrap()
            .replace("\":\"", "\": \"");
        std::fs::write(&spaced, text).unwrap();
        assert_eq!(count(spaced.to_str().unwrap(), None, since).unwrap().0, 333);
        // No time stamps to bisect on: read as it is (the unstamped lines count).
        let q = t.path().join("plain.jsonl");
        let line =
            r#"{"type":"assistant","message":{"id":"x","model":"m","usage":{"input_tokens":1}}}"#;
        let mut plain = String::new();
        for k in 0..20_000 {
            plain.push_str(&line.replace("\"x\"", &format!("\"x{k}\"")));
            plain.push('\n');
        }
        std::fs::write(&q, plain).unwrap();
        assert_eq!(count(q.to_str().unwrap(), None, since).unwrap().0, 20_000);
    }

    #[test]
    fn unusable_paths_count_nothing() {
        assert_eq!(count("relative.jsonl", None, 0), None);
        assert_eq!(count("/nonexistent/t.jsonl", None, 0), None);
    }

    #[test]
    fn counts_for_people() {
        assert_eq!(tokens_text(950), "950");
        assert_eq!(tokens_text(340_500), "340k");
        assert_eq!(tokens_text(1_000_000), "1M");
        assert_eq!(tokens_text(1_250_000), "1.2M");
        assert_eq!(tokens_text(999_999_999), "999.9M");
        assert_eq!(tokens_text(3_000_000_000_000), "3T");
        assert_eq!(tokens_text(u64::MAX), "18.4E");
    }
}
