//! What a tool event did, as fingerprints of what can be observed (issue 34, contract §6).
//!
//! "The agent ran a tool" is not "the agent made progress": a model that runs the same `ls`
//! every turn, undoes its own edit or hits the same error again is going round in circles,
//! and a loop that counts any tool call as work keeps it going for hours. So each tool event is
//! reduced to the marks of what it observably did, and it is progress only when one of them was
//! not seen before in the run:
//!
//! | tool | mark |
//! |---|---|
//! | an edit (`Edit`, `MultiEdit`, `Write`, `NotebookEdit`) | the file and its content after the edit, read from disk (an edit undone brings back a content already seen; the content before the first edit is marked at the pre-tool event) |
//! | a todo list (`TodoWrite`, `update_plan`) | each item marked completed |
//! | anything else (a command, a search, a read) | the tool, its input (a shell command: the command alone) and its result (output or error), with durations and clock times masked |
//!
//! Everything here is a pure function of the payload and, for an edit, the edited file; the
//! marks are SHA-256 prefixes, so the run's record of them is small and bounded
//! ([`super::progress`] keeps it). No process is spawned and no git is run.

use crate::protocol::HookInput;
use crate::state::files::SCHEMA_VERSION;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::Path;

/// A result up to this long is masked and fingerprinted whole; a longer one by its masked
/// head and tail (whole lines, half of this each) and a digest of the whole without its
/// digits ([`result_key`]), so a huge output costs about what this much does.
const MAX_HASHED: usize = 128 * 1024;
/// An edited file larger than this is marked by its size and its ends.
const MAX_FILE: u64 = 8 * 1024 * 1024;
/// Characters of a command or path shown to the person.
const SHOWN: usize = 80;

/// `work.json` in the session scope.
pub const FILE: &str = "work.json";
/// Marks remembered; the oldest are forgotten first.
pub const MAX_SEEN: usize = 512;
/// Verify commands remembered.
pub const MAX_CHECKS: usize = 16;
/// Characters of a command's output kept for the model.
pub const TAIL_CHARS: usize = 1_500;

/// The session's work log.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct WorkLog {
    #[serde(default)]
    pub schema_version: u32,
    /// The start of the run the marks belong to (`started_at` of the session's top run); a
    /// run started later begins with an empty log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_started_at: Option<String>,
    /// Marks of the work seen in the run, oldest first.
    #[serde(default)]
    pub seen: Vec<String>,
    /// Tool events since the last progress that only repeated seen work.
    #[serde(default)]
    pub repeats: u32,
    /// What the last of them did, for the person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<String>,
    /// Times a file reached content not seen before in the run.
    #[serde(default)]
    pub changes: u64,
    /// The agent's last run of each verify command.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
    /// Stop blocks relayed from the person's own stop hooks since the last progress or prompt.
    #[serde(default)]
    pub user_blocks: u32,
    /// Set by a cancel: the person's own stop hooks are not relayed until their next prompt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub user_blocks_off: bool,
}

/// The agent's last run of a verify command.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Check {
    /// The verify command, as configured.
    pub command: String,
    /// `changes` when it ran: it speaks for the workspace only while no file changed since.
    pub after_change: u64,
    pub ok: bool,
    /// The end of its output.
    #[serde(default)]
    pub tail: String,
    pub at: String,
}

impl WorkLog {
    /// Whether `mark` was seen in the run.
    fn knows(&self, mark: &str) -> bool {
        self.seen.iter().any(|m| m == mark)
    }

    pub(super) fn remember(&mut self, mark: String) {
        if !self.knows(&mark) {
            self.seen.push(mark);
        }
        if self.seen.len() > MAX_SEEN {
            let excess = self.seen.len() - MAX_SEEN;
            self.seen.drain(..excess);
        }
    }

    /// Records a judged event; whether it was progress.
    pub fn record(&mut self, w: &Work) -> bool {
        let new = w.marks.iter().any(|m| !self.knows(m));
        for m in &w.marks {
            self.remember(m.clone());
        }
        if new {
            self.repeats = 0;
            self.repeat = None;
            self.user_blocks = 0;
            if w.changes_files {
                self.changes += 1;
            }
        } else {
            self.repeats = self.repeats.saturating_add(1);
            self.repeat = Some(w.repeat.clone());
        }
        new
    }

    /// Records the agent's run of a verify command.
    pub fn check(&mut self, command: &str, ok: bool, output: &str, now_iso: &str) {
        self.checks.retain(|c| c.command != command);
        self.checks.push(Check {
            command: command.to_string(),
            after_change: self.changes,
            ok,
            tail: tail(output, TAIL_CHARS),
            at: now_iso.to_string(),
        });
        if self.checks.len() > MAX_CHECKS {
            self.checks.remove(0);
        }
    }

    /// A log for a run that started at `started_at`: this one, or an empty one when it
    /// belongs to another run (relayed-block counts are the session's and stay).
    pub(super) fn for_run(self, started_at: Option<&str>) -> WorkLog {
        if self.run_started_at.as_deref() == started_at {
            return self;
        }
        WorkLog {
            schema_version: SCHEMA_VERSION,
            run_started_at: started_at.map(str::to_string),
            user_blocks: self.user_blocks,
            user_blocks_off: self.user_blocks_off,
            ..WorkLog::default()
        }
    }
}

/// The last `max` characters of `text`, from a line start where one is near. Only the end is
/// looked at (at most 4 bytes a character), so a huge text costs what a short one does.
pub fn tail(text: &str, max: usize) -> String {
    let text = text.trim_end();
    let text = &text[ceil(text, text.len().saturating_sub(max.saturating_mul(4) + 4))..];
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let cut: String = text.chars().skip(n - max).collect();
    match cut.find('\n') {
        Some(i) if i < max / 4 => format!("…{}", &cut[i..]),
        _ => format!("…{cut}"),
    }
}

/// What one tool event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Work {
    /// Fingerprints of what it did; progress when one is new to the run.
    pub marks: Vec<String>,
    /// Whether it changed a file's content (the verify evidence must come after the last).
    pub changes_files: bool,
    /// For the person, when it turns out to repeat seen work: "ran `ls` again with the same
    /// output".
    pub repeat: String,
    /// A shell command and whether it succeeded, with the end of its output.
    pub command: Option<Command>,
}

/// A shell command the agent ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub text: String,
    pub ok: bool,
    pub output: String,
}

/// Tools that edit one file, named as every adapter names them (Claude Code's names).
const EDIT_TOOLS: &[&str] = &["Edit", "MultiEdit", "Write", "NotebookEdit"];
/// Tools that keep a todo list, and the key of its items.
const TODO_TOOLS: &[(&str, &str)] = &[("TodoWrite", "todos"), ("update_plan", "plan")];

/// The file an edit tool changes, as given.
pub fn edited_path(input: &HookInput) -> Option<&str> {
    let tool = input.tool_name.as_deref()?;
    if !EDIT_TOOLS.contains(&tool) {
        return None;
    }
    let ti = input.tool_input.as_ref()?;
    ["file_path", "notebook_path", "path", "absolute_path"]
        .iter()
        .find_map(|k| ti.get(*k).and_then(Value::as_str))
        .filter(|p| !p.is_empty())
}

/// The mark of a file's content as it is now (`None` for no file path).
pub fn content_mark(input: &HookInput) -> Option<String> {
    let path = edited_path(input)?;
    let full = match (Path::new(path).is_absolute(), input.cwd.as_deref()) {
        (false, Some(cwd)) => Path::new(cwd).join(path),
        _ => Path::new(path).to_path_buf(),
    };
    let mut h = Sha256::new();
    h.update(b"file\0");
    h.update(path.as_bytes());
    h.update(b"\0");
    match read_bounded(&full) {
        Some(bytes) => h.update(&bytes),
        None => h.update(b"\0absent"),
    }
    Some(hex(h))
}

/// A file's bytes, or its size and ends when it is large; `None` when it cannot be read as a
/// regular file (missing, a FIFO, a device): such a file is marked as absent.
fn read_bounded(path: &Path) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut f = std::fs::File::open(path).ok()?;
    if meta.len() <= MAX_FILE {
        let mut buf = Vec::with_capacity(meta.len() as usize);
        f.take(MAX_FILE).read_to_end(&mut buf).ok()?;
        return Some(buf);
    }
    let mut buf = meta.len().to_le_bytes().to_vec();
    let mut end = vec![0u8; 64 * 1024];
    f.read_exact(&mut end).ok()?;
    buf.extend_from_slice(&end);
    f.seek(SeekFrom::End(-(64 * 1024))).ok()?;
    f.read_exact(&mut end).ok()?;
    buf.extend_from_slice(&end);
    Some(buf)
}

/// What a post-tool (or failure) event did. `failed` says whether the tool failed (the
/// failure event, or a failure the adapter read from the result).
pub fn of_tool_event(input: &HookInput, failed: bool) -> Option<Work> {
    let tool = input.tool_name.as_deref()?;
    if let Some(mark) = content_mark(input).filter(|_| !failed) {
        let shown = shorten(edited_path(input).unwrap_or(""));
        return Some(Work {
            marks: vec![mark],
            changes_files: true,
            repeat: format!("edited `{shown}` back to content it had before"),
            command: None,
        });
    }
    if let Some((_, key)) = TODO_TOOLS.iter().find(|(t, _)| *t == tool) {
        let items = input
            .tool_input
            .as_ref()
            .and_then(|ti| ti.get(*key))
            .and_then(Value::as_array);
        let marks = items
            .into_iter()
            .flatten()
            .filter(|i| i.get("status").and_then(Value::as_str) == Some("completed"))
            .filter_map(|i| {
                let text = ["content", "step", "title"]
                    .iter()
                    .find_map(|k| i.get(*k).and_then(Value::as_str))?;
                Some(hash_parts(&[b"todo", text.trim().as_bytes()]))
            })
            .collect();
        return Some(Work {
            marks,
            changes_files: false,
            repeat: "rewrote the todo list without completing an item".into(),
            command: None,
        });
    }
    let command = input
        .tool_input
        .as_ref()
        .and_then(|ti| ti.get("command"))
        .and_then(|c| match c {
            Value::String(s) => Some(s.clone()),
            // Codex's exec arguments: ["bash", "-lc", "ls"].
            Value::Array(a) => Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        });
    let result = result_text(input);
    let input_key = match &command {
        Some(c) => normalize_command(c),
        None => input
            .tool_input
            .as_ref()
            .map(|ti| without_volatile_keys(ti).to_string())
            .unwrap_or_default(),
    };
    let outcome: &[u8] = if failed { b"failed" } else { b"ok" };
    let mark = hash_parts(&[
        b"call",
        tool.as_bytes(),
        input_key.as_bytes(),
        outcome,
        &result_key(&result),
    ]);
    let repeat = match &command {
        Some(c) => format!(
            "ran `{}` again with the same {}",
            shorten(&normalize_command(c)),
            if failed { "error" } else { "output" }
        ),
        None => format!("called {tool} again with the same result"),
    };
    Some(Work {
        marks: vec![mark],
        changes_files: false,
        repeat,
        command: command.map(|c| Command {
            text: normalize_command(&c),
            ok: !failed,
            output: result,
        }),
    })
}

/// A pre-tool event on a client that installs no post-tool hook: the call alone (the tool and
/// its input) is all there is to judge.
pub fn of_call_alone(input: &HookInput) -> Option<Work> {
    let mut w = of_tool_event(
        &HookInput {
            tool_response: None,
            error: None,
            ..input.clone()
        },
        false,
    )?;
    if w.changes_files {
        // The file is not edited yet: the edit's own input is what is new.
        let ti = input.tool_input.as_ref().map(without_volatile_keys);
        w.marks = vec![hash_parts(&[
            b"edit-call",
            ti.map(|v| v.to_string()).unwrap_or_default().as_bytes(),
        ])];
        w.repeat = format!(
            "made the same edit to `{}` again",
            shorten(edited_path(input).unwrap_or(""))
        );
    }
    w.repeat = w.repeat.replace(" with the same output", "");
    Some(w)
}

/// The tool's result as text: the error of a failure, else its output.
fn result_text(input: &HookInput) -> String {
    if let Some(e) = input.error.as_deref() {
        return e.to_string();
    }
    match input.tool_response.as_ref() {
        Some(r) => crate::protocol::agents::outcome::output_text(r)
            .unwrap_or_else(|| without_volatile_keys(r).to_string()),
        None => String::new(),
    }
}

/// A tool input or result without the keys that vary between two identical calls (a
/// description the model words anew, timings, ids).
fn without_volatile_keys(v: &Value) -> Value {
    const VOLATILE: &[&str] = &[
        "description",
        "durationMs",
        "duration_ms",
        "duration",
        "elapsed",
        "timestamp",
        "id",
        "call_id",
        "tool_use_id",
        "callId",
    ];
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !VOLATILE.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), without_volatile_keys(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_volatile_keys).collect()),
        other => other.clone(),
    }
}

/// A shell command with its spacing made regular and the client's own wrapper taken off
/// (`bash -lc 'ls'` → `ls`).
pub fn normalize_command(c: &str) -> String {
    let words: Vec<&str> = c.split_whitespace().collect();
    let joined = words.join(" ");
    for wrapper in ["bash -lc ", "bash -c ", "sh -c ", "zsh -lc ", "zsh -c "] {
        if let Some(rest) = joined.strip_prefix(wrapper) {
            let rest = rest.trim();
            let unquoted = rest
                .strip_prefix('\'')
                .and_then(|r| r.strip_suffix('\''))
                .or_else(|| rest.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
                .unwrap_or(rest);
            return unquoted.trim().to_string();
        }
    }
    joined
}

/// Masks what differs between two runs of the same command with the same result: a number
/// with a time unit (`0.53s`, `12 ms`), a clock time (`12:04:55`), an ISO date-time.
pub fn mask_volatile(text: &str) -> String {
    const UNITS: &[&str] = &[
        "ms", "µs", "us", "ns", "seconds", "second", "secs", "sec", "s", "minutes", "min", "m",
    ];
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        let starts_number = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if !starts_number {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i;
        // Digits, and the separators of a decimal, a clock time or a date-time.
        while j < b.len() && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b':' | b'-' | b'T')) {
            j += 1;
        }
        while j > start && !b[j - 1].is_ascii_digit() {
            j -= 1;
        }
        let token = &text[start..j];
        let clock = token.matches(':').count() >= 1 && token.len() >= 5;
        let after = text[j..].trim_start_matches(' ');
        let unit = UNITS.iter().find(|u| {
            after.starts_with(**u)
                && after[u.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric())
        });
        let numeric = token.bytes().all(|c| c.is_ascii_digit() || c == b'.');
        if clock || (numeric && unit.is_some()) {
            out.push_str(&text[copied..start]);
            out.push('#');
            copied = match unit {
                Some(u) if !clock => text.len() - after.len() + u.len(),
                _ => j,
            };
            j = copied;
        }
        i = j.max(i + 1);
    }
    out.push_str(&text[copied..]);
    out
}

/// What of a tool's result goes into its mark: the result with its volatile parts masked
/// ([`mask_volatile`]) when it is at most [`MAX_HASHED`] long. A longer one (a test run's 8 MiB
/// log) is marked by its head and its tail, whole lines of about half of that each, masked
/// the same way, and a digest of the whole result with every ASCII digit left out
/// ([`digest_without_digits`]): a change anywhere in it is still seen, while timings, counters,
/// pids and the like in its middle (digits) do not make every run of it new, and the length of
/// a number does not shift what follows. The price: in the middle of a huge output, a change
/// of digits alone (`3 failed` → `4 failed`) is not seen; summaries are at the ends.
fn result_key(result: &str) -> Vec<u8> {
    if result.len() <= MAX_HASHED {
        return mask_volatile(result).into_bytes();
    }
    // Masked first and cut after, at whole lines of the masked text: where a cut falls must
    // not depend on how wide the masked numbers were.
    let half = MAX_HASHED / 2;
    let head = mask_volatile(&result[..line_start_before(result, 2 * half)]);
    let head = &head[..line_start_before(&head, half)];
    let tail = mask_volatile(&result[line_start_after(result, result.len() - 2 * half)..]);
    let tail = &tail[line_start_after(&tail, tail.len().saturating_sub(half))..];
    let mut key = head.as_bytes().to_vec();
    key.push(0);
    key.extend_from_slice(&digest_without_digits(result.as_bytes()).to_le_bytes());
    key.push(0);
    key.extend_from_slice(tail.as_bytes());
    key
}

/// The start of the line that holds byte `i` of `s` or, at a line's start, `i` (a character
/// boundary when `s` has no line break before `i`).
fn line_start_before(s: &str, i: usize) -> usize {
    let i = floor(s, i.min(s.len()));
    s[..i].rfind('\n').map_or(i, |n| n + 1)
}

/// The start of the first line that begins at or after byte `i` of `s` (a character boundary
/// when no line break follows `i`).
fn line_start_after(s: &str, i: usize) -> usize {
    let i = ceil(s, i);
    if i == 0 || s.as_bytes()[i - 1] == b'\n' {
        return i;
    }
    s[i..].find('\n').map_or(i, |n| i + n + 1)
}

/// A 128-bit digest of `bytes` with every ASCII digit left out, fast enough for a whole output
/// of many megabytes (not a cryptographic hash: it tells one output of a command from the
/// next). The bytes are taken eight at a time; a word without a digit (found with bit
/// arithmetic) is copied whole into a compacted buffer, others byte by byte without their
/// digits; the buffer is hashed as 64-bit words in four lanes.
fn digest_without_digits(bytes: &[u8]) -> u128 {
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
            for &b in w {
                buf[n] = b;
                n += usize::from(!b.is_ascii_digit());
            }
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
struct LaneHash {
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
    fn write(&mut self, bytes: &[u8]) {
        for quad in bytes.chunks_exact(32) {
            for (lane, w) in self.lanes.iter_mut().zip(quad.chunks_exact(8)) {
                let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
                *lane = (*lane ^ w).wrapping_mul(Self::K).rotate_left(29);
            }
        }
        self.len += bytes.len() as u64;
    }

    fn finish(mut self, rest: &[u8]) -> u128 {
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

fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn shorten(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= SHOWN {
        return one_line;
    }
    let cut: String = one_line.chars().take(SHOWN - 1).collect();
    format!("{cut}…")
}

fn hash_parts(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    hex(h)
}

/// The first 8 bytes of the digest, as 16 hex digits.
fn hex(h: Sha256) -> String {
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(v: Value) -> HookInput {
        HookInput::decode(v.to_string().as_bytes()).unwrap()
    }

    fn bash(cmd: &str, stdout: &str) -> HookInput {
        input(json!({
            "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": cmd, "description": "x"},
            "tool_response": {"stdout": stdout, "stderr": ""}
        }))
    }

    /// A test run's log of about `bytes`, its timings from `seed`, and in its middle third
    /// (not at its ends, which the masking of issue 41 looks after) numbers of any kind too.
    fn test_log(bytes: usize, seed: usize) -> String {
        let lines = bytes / 40;
        let mut out = String::new();
        for i in 0..lines {
            let ms = (i * 7919 + seed * 104_729) % 1000;
            let middle = (lines / 3..lines * 2 / 3).contains(&i);
            let pid = if middle { seed * 1000 + i } else { i };
            out.push_str(&format!("test case_{i} ... ok (pid {pid}, {ms} ms)\n"));
        }
        out.push_str(&format!(
            "test result: ok. {lines} passed; finished in 0.{seed}s\n"
        ));
        out
    }

    #[test]
    fn a_huge_output_is_marked_by_its_ends_and_its_whole_without_digits() {
        let mark = |out: &str| {
            of_tool_event(&bash("cargo test", out), false)
                .unwrap()
                .marks
        };
        let a = test_log(1 << 20, 1);
        assert!(a.len() > MAX_HASHED);
        // Another run with other timings, pids and number widths: the same work.
        assert_eq!(mark(&a), mark(&test_log(1 << 20, 22)));
        // A word changed deep in the middle, or one line more at either end: new.
        let middle = a.len() / 2;
        let at = middle + a[middle..].find("ok").unwrap();
        let changed = format!("{}FAILED{}", &a[..at], &a[at + 2..]);
        assert_ne!(mark(&a), mark(&changed));
        assert_ne!(mark(&a), mark(&format!("warning: slow\n{a}")));
        assert_ne!(mark(&a), mark(&format!("{a}1 test FAILED\n")));
        // The ends are masked as a short output is: only their times differ here.
        let b = format!("took 12:04:55\n{a}");
        assert_eq!(mark(&b), mark(&format!("took 12:07:01\n{a}")));
    }

    #[test]
    fn the_tail_of_a_huge_output_is_its_last_characters() {
        let long = format!("{}é last line é\n", "line of output\n".repeat(500_000));
        assert_eq!(tail(&long, 13), "…é last line é");
        assert_eq!(tail(&long, 20), "…output\né last line é");
        let wide = "é".repeat(100);
        assert_eq!(tail(&wide, 100), wide, "exactly max characters: whole");
        assert_eq!(tail(&wide, 99), format!("…{}", "é".repeat(99)));
    }

    #[test]
    fn the_digest_without_digits_is_that_of_the_text_without_them() {
        // Whatever the digits and where they fall against the words read eight at a time.
        let text = test_log(40_000, 3).replace("case", "cas\u{e9}");
        let bytes = text.as_bytes();
        for cut in [0, 1, 5, 8, 13] {
            let part = &bytes[cut..];
            let without: Vec<u8> = part
                .iter()
                .copied()
                .filter(|b| !b.is_ascii_digit())
                .collect();
            let mut h = LaneHash::default();
            let whole = without.len() / 32 * 32;
            h.write(&without[..whole]);
            assert_eq!(
                digest_without_digits(part),
                h.finish(&without[whole..]),
                "cut {cut}"
            );
        }
        assert_ne!(digest_without_digits(b"abc"), digest_without_digits(b"abd"));
        assert_ne!(digest_without_digits(b""), digest_without_digits(b"\0"));
    }

    #[test]
    fn the_same_command_with_the_same_output_is_the_same_mark() {
        let a = of_tool_event(&bash("ls", "a\nb"), false).unwrap();
        let mut again = bash("ls  ", "a\nb");
        again.tool_input.as_mut().unwrap()["description"] = json!("list again");
        let b = of_tool_event(&again, false).unwrap();
        assert_eq!(a.marks, b.marks);
        assert_eq!(b.repeat, "ran `ls` again with the same output");
        // Another output, another command, or a failure is something new.
        for other in [bash("ls", "a\nb\nc"), bash("ls -a", "a\nb")] {
            assert_ne!(of_tool_event(&other, false).unwrap().marks, a.marks);
        }
        assert_ne!(
            of_tool_event(&bash("ls", "a\nb"), true).unwrap().marks,
            a.marks
        );
    }

    #[test]
    fn durations_and_clock_times_do_not_make_a_result_new() {
        assert_eq!(
            mask_volatile("Ran 3 tests in 0.012s\nFAILED at 12:04:55 (took 120 ms)"),
            "Ran 3 tests in #\nFAILED at # (took #)"
        );
        // Counts are not durations: 3 failing tests differ from 2.
        assert_eq!(mask_volatile("3 failed, 2 passed"), "3 failed, 2 passed");
        assert_eq!(mask_volatile("v1.2.3 x2"), "v1.2.3 x2");
        let a = of_tool_event(&bash("pytest", "1 failed in 0.51s"), true).unwrap();
        let b = of_tool_event(&bash("pytest", "1 failed in 0.48s"), true).unwrap();
        assert_eq!(a.marks, b.marks);
        assert_eq!(b.repeat, "ran `pytest` again with the same error");
    }

    #[test]
    fn an_edit_is_marked_by_the_content_it_leaves() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("app.py");
        let edit = |old: &str, new: &str| {
            input(json!({
                "hook_event_name": "PostToolUse", "tool_name": "Edit",
                "cwd": t.path(),
                "tool_input": {"file_path": "app.py", "old_string": old, "new_string": new},
            }))
        };
        std::fs::write(&f, "x = 1\n").unwrap();
        let before = content_mark(&edit("1", "2")).unwrap();
        std::fs::write(&f, "x = 2\n").unwrap();
        let made = of_tool_event(&edit("1", "2"), false).unwrap();
        assert!(made.changes_files);
        assert_ne!(made.marks[0], before);
        std::fs::write(&f, "x = 1\n").unwrap();
        let undone = of_tool_event(&edit("2", "1"), false).unwrap();
        assert_eq!(
            undone.marks[0], before,
            "undoing an edit brings back a seen content"
        );
        assert_eq!(
            undone.repeat,
            "edited `app.py` back to content it had before"
        );
    }

    #[test]
    fn only_completed_todos_mark_a_todo_list() {
        let todos = |items: Value| {
            input(
                json!({"hook_event_name": "PostToolUse", "tool_name": "TodoWrite",
                         "tool_input": {"todos": items}}),
            )
        };
        let none = of_tool_event(
            &todos(json!([{"content": "a", "status": "in_progress"}])),
            false,
        )
        .unwrap();
        assert!(none.marks.is_empty());
        let one = of_tool_event(
            &todos(json!([{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}])),
            false,
        )
        .unwrap();
        assert_eq!(one.marks.len(), 1);
    }

    #[test]
    fn a_wrapped_command_is_the_command() {
        assert_eq!(
            normalize_command("bash -lc 'python3  check.py'"),
            "python3 check.py"
        );
        assert_eq!(normalize_command("  ls   -la "), "ls -la");
    }
}
