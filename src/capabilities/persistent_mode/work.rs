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
//! | anything else (a command, a search, a read) | the tool, its input (a shell command: the command alone) and its result (output or error), with the volatile shapes of [`super::volatile`] masked (temporary paths, pids, addresses, seeds, ids, ports, durations, clock times) |
//!
//! An empty result tells nothing ([`Said`]): such a call is new only when the call itself is
//! (Qwen Code now and then loses a fast command's output).
//!
//! The log also holds the verify evidence: `changes`, the count of tool calls that may have
//! written ([`super::writes`]), and the agent's runs of the verify commands ([`WorkLog::apply`]).
//!
//! Everything here is a pure function of the payload and, for an edit, the edited file; the
//! marks are SHA-256 prefixes, so the run's record of them is small and bounded
//! ([`super::progress`] keeps it). No process is spawned and no git is run.

use super::writes::Step;
pub use super::writes::normalize_command;
use crate::protocol::HookInput;
use crate::protocol::shorten::digest_without_digits;
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
    /// Tool events that may have changed the project's files ([`super::writes`]: an edit, a
    /// shell command outside the read-only table, a tool not known to only read), each counted
    /// however often it repeats: a check speaks for the workspace only while this stays as it
    /// was when the check ran.
    #[serde(default)]
    pub changes: u64,
    /// The agent's last run of each verify command.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
    /// Verify commands whose call has begun (its pre-tool event) and not yet ended, with
    /// `changes` when it began: a change while the check runs (a parallel call) voids it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub running: Vec<Running>,
    /// Stop blocks relayed from the person's own stop hooks since the last progress or prompt.
    #[serde(default)]
    pub user_blocks: u32,
    /// Set by a cancel: the person's own stop hooks are not relayed until their next prompt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub user_blocks_off: bool,
    /// Tool events judged in the run, those with new work, and failed tool calls (the run's
    /// journal takes them at each Stop: issue 42).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub events: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub new_work: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failures: u64,
    /// Files the agent edited, relative to the project where inside it; at most
    /// [`LISTED_MAX`](crate::state::files::LISTED_MAX), first ones kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Distinct shell commands run (as shown to people); at most
    /// [`LISTED_MAX`](crate::state::files::LISTED_MAX), first ones kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
    /// When it last passed in the run (this run or an earlier one of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_at: Option<String>,
}

/// A verify command's call that has begun.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Running {
    pub command: String,
    /// `changes` when it began.
    pub after_change: u64,
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

    /// Notes what a judged event did for the report: counts, the file it changed, the command
    /// it ran (each list bounded, first entries kept).
    pub fn tally(&mut self, progressed: bool, failed: bool, file: Option<String>, w: &Work) {
        self.events = self.events.saturating_add(1);
        if progressed {
            self.new_work = self.new_work.saturating_add(1);
        }
        if failed || w.command.as_ref().is_some_and(|c| !c.ok) {
            self.failures = self.failures.saturating_add(1);
        }
        let max = crate::state::files::LISTED_MAX;
        // Any edit the agent made counts as a file it changed, new content or not (an edit
        // undone still touched the file).
        if let Some(f) = file.filter(|_| w.changes_files && !failed)
            && !self.files.contains(&f)
            && self.files.len() < max
        {
            self.files.push(f);
        }
        if let Some(c) = &w.command {
            let shown = crate::protocol::output::truncate_chars(c.text.trim(), 200);
            if !shown.is_empty() && !self.commands.contains(&shown) && self.commands.len() < max {
                self.commands.push(shown);
            }
        }
    }

    /// Records a judged event; whether it was progress.
    pub fn record(&mut self, w: &Work) -> bool {
        let any_new = w.marks.iter().any(|m| !self.knows(m));
        let new = match &w.said {
            None => any_new,
            Some(Said { ran, told: None }) => !self.knows(ran),
            Some(Said {
                ran,
                told: Some(told),
            }) => any_new && (!self.knows(ran) || self.knows(told)),
        };
        for m in &w.marks {
            self.remember(m.clone());
        }
        if let Some(s) = &w.said {
            self.remember(s.ran.clone());
            if let Some(t) = &s.told {
                self.remember(t.clone());
            }
        }
        if new {
            self.repeats = 0;
            self.repeat = None;
            self.user_blocks = 0;
        } else {
            self.repeats = self.repeats.saturating_add(1);
            self.repeat = Some(w.repeat.clone());
        }
        new
    }

    /// Applies what a tool call did to the evidence ([`super::writes::Step`]), in order. At
    /// its pre-tool event (`outcome` `None`) a write is counted and a check's start noted; at
    /// its post-tool event the writes are counted again (harmless: a count only grows) and
    /// each check recorded with its outcome, void when anything may have changed a file since
    /// it began.
    pub fn apply(&mut self, steps: &[Step], outcome: Option<&Command>, now_iso: &str) {
        let at_start = self.changes;
        for step in steps {
            match (step, outcome) {
                (Step::Write, _) => self.changes += 1,
                (Step::Check(cmd), None) => {
                    self.running.retain(|r| r.command != *cmd);
                    self.running.push(Running {
                        command: cmd.clone(),
                        after_change: self.changes,
                    });
                    if self.running.len() > MAX_CHECKS {
                        self.running.remove(0);
                    }
                }
                (Step::Check(cmd), Some(c)) => {
                    let began = self
                        .running
                        .iter()
                        .position(|r| r.command == *cmd)
                        .map(|i| self.running.remove(i).after_change);
                    let after = match began {
                        // Something may have written while it ran: it speaks for no state.
                        // (`b` lies behind the count, which never comes back to it.)
                        Some(b) if b != at_start => {
                            if b >= self.changes {
                                self.changes = b + 1;
                            }
                            b
                        }
                        _ => self.changes,
                    };
                    self.check(cmd, after, c.ok, &c.output, now_iso);
                }
            }
        }
    }

    /// Records the agent's run of a verify command, made when `changes` was `after_change`.
    pub fn check(
        &mut self,
        command: &str,
        after_change: u64,
        ok: bool,
        output: &str,
        now_iso: &str,
    ) {
        let passed_before = self
            .checks
            .iter()
            .find(|c| c.command == command)
            .and_then(|c| c.passed_at.clone());
        self.checks.retain(|c| c.command != command);
        self.checks.push(Check {
            command: command.to_string(),
            after_change,
            ok,
            tail: tail(output, TAIL_CHARS),
            at: now_iso.to_string(),
            passed_at: if ok {
                Some(now_iso.to_string())
            } else {
                passed_before
            },
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
    /// Whether it is an edit of one file (its content is the mark).
    pub changes_files: bool,
    /// For the person, when it turns out to repeat seen work: "ran `ls` again with the same
    /// output".
    pub repeat: String,
    /// A shell command and whether it succeeded, with the end of its output.
    pub command: Option<Command>,
    /// For a call judged by its result: the marks that make an empty result tell nothing.
    pub said: Option<Said>,
}

/// A call's result, beside its full mark: an empty result (`""`, or the `(empty)` Gemini CLI
/// and Qwen Code put in its place) tells nothing about the work, and Qwen Code loses a fast
/// command's output now and then (qwen-FINDINGS.md §13): the same `cat notes.txt` comes back
/// once in a while as `(empty)`. So a call with an empty result is new only when the call (the
/// tool, its input and its outcome) is, and a call's first non-empty result after it only came
/// back empty is no progress either; after that, a new result is progress as before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The call ran, with this outcome.
    pub ran: String,
    /// It ran and said something: `None` when this result is empty.
    pub told: Option<String>,
}

/// Whether a result says nothing: empty, `(empty)`, or Gemini CLI's and Qwen Code's shell
/// result (`Command: …`, `Directory: …`, `Output: (empty)`, `Error: (none)`, `Exit Code: …`,
/// with its `Output: ` label taken off, `protocol::agents::outcome::output_text`) saying so.
fn tells_nothing(result: &str) -> bool {
    let t = result.trim();
    if matches!(t, "" | "(empty)") {
        return true;
    }
    t.starts_with("Command: ")
        && t.lines().any(|l| l.trim() == "(empty)")
        && t.lines().any(|l| l.trim() == "Error: (none)")
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
        let shown = shown_path(input);
        return Some(Work {
            marks: vec![mark],
            changes_files: true,
            repeat: format!("edited `{shown}` back to content it had before"),
            said: None,
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
            said: None,
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
    // An empty result is short: a huge one is never read whole for it.
    let empty = result.len() <= MAX_HASHED && tells_nothing(&result);
    let said = Said {
        ran: hash_parts(&[b"ran", tool.as_bytes(), input_key.as_bytes(), outcome]),
        told: (!empty)
            .then(|| hash_parts(&[b"told", tool.as_bytes(), input_key.as_bytes(), outcome])),
    };
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
        marks: if said.told.is_some() {
            vec![mark]
        } else {
            vec![]
        },
        changes_files: false,
        repeat,
        said: Some(said),
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
        w.repeat = format!("made the same edit to `{}` again", shown_path(input));
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

/// Masks what differs between two runs of the same command with the same result: the table of
/// volatile shapes ([`super::volatile::SHAPES`]: temporary paths, pids, addresses, seeds,
/// UUIDs and request ids, local ports, durations and clock times).
pub fn mask_volatile(text: &str) -> String {
    super::volatile::mask(text)
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

/// The edited file as the person reads it: relative to the project (the payload's `cwd`) when
/// it lies inside, as the README shows it (`edited \`src/app.py\` back …`), shortened.
fn shown_path(input: &HookInput) -> String {
    let path = edited_path(input).unwrap_or("");
    let inside = input
        .cwd
        .as_deref()
        .and_then(|cwd| Path::new(path).strip_prefix(cwd).ok())
        .filter(|rel| !rel.as_os_str().is_empty());
    match inside {
        Some(rel) => shorten(&rel.to_string_lossy()),
        None => shorten(path),
    }
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
    use crate::protocol::shorten::LaneHash;
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
        // Named by its absolute path (as Claude Code does): shown relative to the project.
        let absolute = input(json!({
            "hook_event_name": "PostToolUse", "tool_name": "Edit", "cwd": t.path(),
            "tool_input": {"file_path": f, "old_string": "2", "new_string": "1"},
        }));
        assert_eq!(
            of_tool_event(&absolute, false).unwrap().repeat,
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
    fn an_empty_result_tells_nothing() {
        let qwen = |cmd: &str, shown: &str| {
            input(json!({
                "hook_event_name": "PostToolUse", "tool_name": "run_shell_command",
                "tool_input": {"command": cmd},
                "tool_response": {"llmContent": format!(
                    "Command: {cmd}\nDirectory: (root)\nOutput: {}\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: (none)",
                    if shown.is_empty() { "(empty)" } else { shown }), "returnDisplay": shown}
            }))
        };
        let said = |cmd: &str, shown: &str| of_tool_event(&qwen(cmd, shown), false).unwrap();
        // Qwen Code losing the output of a command it ran before: no progress, whichever came
        // first (qwen-FINDINGS.md §13).
        let mut log = WorkLog::default();
        assert!(log.record(&said("cat notes.txt", "the notes")));
        assert!(!log.record(&said("cat notes.txt", "")));
        assert!(!log.record(&said("cat notes.txt", "the notes")));
        let mut log = WorkLog::default();
        assert!(log.record(&said("ls", "")));
        assert!(!log.record(&said("ls", "notes.txt")));
        assert!(!log.record(&said("ls", "")));
        assert!(!log.record(&said("ls", "notes.txt")));
        // Once it has said something, something else is progress; a new command too, empty
        // or not.
        assert!(log.record(&said("ls", "notes.txt\nnew.txt")));
        assert!(log.record(&said("touch a", "")));
        assert!(log.record(&said("touch b", "")));
        assert!(!log.record(&said("touch b", "")));
    }

    #[test]
    fn a_write_after_or_during_a_passing_check_voids_it() {
        let v = vec!["pytest -q".to_string()];
        let ok = Command {
            text: "pytest -q".into(),
            ok: true,
            output: "1 passed".into(),
        };
        let steps = |l: &str| super::super::writes::of_line(l, &v);
        let valid = |log: &WorkLog| {
            log.checks
                .iter()
                .any(|c| c.after_change == log.changes && c.ok)
        };
        // pre, post of the check: valid; a `sed -i` after it (pre and post): void.
        let mut log = WorkLog::default();
        log.apply(&steps("pytest -q"), None, "t");
        log.apply(&steps("pytest -q"), Some(&ok), "t");
        assert!(valid(&log));
        log.apply(&steps("sed -i s/2/3/ app.py"), None, "t");
        assert!(!valid(&log));
        // The same write again, repeating seen work, still counts.
        log.apply(&steps("pytest -q"), Some(&ok), "t");
        assert!(valid(&log));
        log.apply(&steps("sed -i s/2/3/ app.py"), None, "t");
        log.apply(&steps("sed -i s/2/3/ app.py"), None, "t");
        assert!(!valid(&log));
        // A write while the check ran (a parallel call): void, however the events interleave.
        let mut log = WorkLog::default();
        log.apply(&steps("pytest -q"), None, "t");
        log.apply(&steps("rm x"), None, "t");
        log.apply(&steps("rm x"), Some(&ok), "t");
        log.apply(&steps("pytest -q"), Some(&ok), "t");
        assert!(!valid(&log));
        // A write before the check in its own chain is before it; after it, after it.
        let mut log = WorkLog::default();
        let chain = steps("sed -i s/2/3/ app.py && pytest -q");
        log.apply(&chain, None, "t");
        log.apply(&chain, Some(&ok), "t");
        assert!(valid(&log));
        let chain = steps("pytest -q && sed -i s/2/3/ app.py");
        log.apply(&chain, None, "t");
        log.apply(&chain, Some(&ok), "t");
        assert!(!valid(&log));
        // Reading does not void it.
        log.apply(&steps("pytest -q"), Some(&ok), "t");
        log.apply(&steps("git diff && cat app.py | head"), None, "t");
        assert!(valid(&log));
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
