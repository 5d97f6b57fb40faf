//! The files this session edited, with line counts, for the compaction checkpoint.
//!
//! Recorded on PostToolUse for `Edit`, `MultiEdit`, `Write` and `NotebookEdit`, from the
//! payload alone: `tool_input.file_path` is an unvalidated string, stored as data and never
//! opened. Counts come from a line diff (the `similar` crate) of what the payload carries —
//! Edit: `old_string` → `new_string` (times the occurrences for `replace_all`); Write:
//! `tool_response.originalFile` → `content` when the client sent the original, else every line
//! of `content` as added. Aggregated per file in `edits.json`, at most [`MAX_FILES`] files
//! (the least recently edited ones are dropped and counted).

use crate::capabilities::Ctx;
use crate::protocol::{Answer, HookInput};
use crate::state::files::SCHEMA_VERSION;
use crate::state::{Change, Scope, StateFile, Store};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use similar::{DiffTag, TextDiff};
use std::time::Duration;

/// `edits.json` in the session scope.
pub const FILE: &str = "edits.json";

/// At most this many files are remembered.
pub const MAX_FILES: usize = 50;
const MAX_PATH_CHARS: usize = 512;
/// Above this many bytes of text, lines are counted instead of diffed.
const MAX_DIFF_BYTES: usize = 2 * 1024 * 1024;
const DIFF_TIMEOUT: Duration = Duration::from_millis(100);

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Edits {
    #[serde(default)]
    pub schema_version: u32,
    /// Least recently edited first.
    #[serde(default)]
    pub files: Vec<EditedFile>,
    /// Files forgotten to keep the list bounded.
    #[serde(default)]
    pub dropped_files: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct EditedFile {
    pub path: String,
    pub added: u64,
    pub removed: u64,
    pub edits: u64,
    pub last_edit_at: String,
}

/// One edit's effect: the file and its added / removed line counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delta {
    pub path: String,
    pub added: u64,
    pub removed: u64,
}

/// PostToolUse: records an edit. Says nothing to the model.
pub fn record(ctx: &Ctx<'_>) -> Answer {
    let Some(delta) = delta(ctx.input) else {
        return Answer::default();
    };
    let (Some(store), Some(file)) = (&ctx.store, StateFile::new(&ctx.scope, FILE)) else {
        return Answer::default();
    };
    let now = crate::time::iso(ctx.now_ms);
    let result = store.update(&file, |cur: Option<Edits>| {
        let mut e = cur.unwrap_or_default();
        e.schema_version = SCHEMA_VERSION;
        e.add(&delta, &now);
        (Change::Write(e), ())
    });
    if let Err(e) = result {
        crate::diag!("post-tool-use: cannot record edit: {e}");
    }
    Answer::default()
}

impl Edits {
    /// Coalesces an edit into its file's entry and moves that entry to the end.
    pub fn add(&mut self, d: &Delta, now_iso: &str) {
        let mut entry = match self.files.iter().position(|f| f.path == d.path) {
            Some(i) => self.files.remove(i),
            None => EditedFile {
                path: d.path.clone(),
                added: 0,
                removed: 0,
                edits: 0,
                last_edit_at: String::new(),
            },
        };
        entry.added += d.added;
        entry.removed += d.removed;
        entry.edits += 1;
        entry.last_edit_at = now_iso.to_string();
        self.files.push(entry);
        while self.files.len() > MAX_FILES {
            self.files.remove(0);
            self.dropped_files += 1;
        }
    }
}

/// The session's edits (empty when none).
pub fn read(store: &Store, scope: &Scope) -> Edits {
    StateFile::new(scope, FILE)
        .and_then(|f| store.read(&f))
        .unwrap_or_default()
}

/// What an edit tool did, from its payload; `None` for other tools or unusable payloads.
pub fn delta(input: &HookInput) -> Option<Delta> {
    let tool = input.tool_name.as_deref()?;
    let ti = input.tool_input.as_ref()?;
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let (path, added, removed) = match tool {
        "Edit" => {
            let (old, new) = (s(ti, "old_string")?, s(ti, "new_string")?);
            let (a, r) = line_delta(&old, &new);
            let times = if ti.get("replace_all").and_then(Value::as_bool) == Some(true) {
                original_file(input)
                    .filter(|_| !old.is_empty())
                    .map_or(1, |orig| orig.matches(old.as_str()).count().max(1) as u64)
            } else {
                1
            };
            (s(ti, "file_path")?, a * times, r * times)
        }
        "MultiEdit" => {
            let mut sum = (0, 0);
            for e in ti.get("edits")?.as_array()? {
                let (a, r) = line_delta(
                    e.get("old_string").and_then(Value::as_str).unwrap_or(""),
                    e.get("new_string").and_then(Value::as_str).unwrap_or(""),
                );
                sum = (sum.0 + a, sum.1 + r);
            }
            (s(ti, "file_path")?, sum.0, sum.1)
        }
        "Write" => {
            let content = s(ti, "content")?;
            let (a, r) = match original_file(input) {
                Some(orig) => line_delta(&orig, &content),
                None => (count_lines(&content), 0),
            };
            (s(ti, "file_path")?, a, r)
        }
        "NotebookEdit" => {
            let path = s(ti, "notebook_path").or_else(|| s(ti, "file_path"))?;
            let added = match s(ti, "edit_mode").as_deref() {
                Some("delete") => 0,
                _ => count_lines(&s(ti, "new_source").unwrap_or_default()),
            };
            (path, added, 0)
        }
        _ => return None,
    };
    let path: String = path.chars().take(MAX_PATH_CHARS).collect();
    (!path.is_empty()).then_some(Delta {
        path,
        added,
        removed,
    })
}

fn original_file(input: &HookInput) -> Option<String> {
    input
        .tool_response
        .as_ref()?
        .get("originalFile")?
        .as_str()
        .map(str::to_string)
}

fn count_lines(s: &str) -> u64 {
    s.lines().count() as u64
}

/// (added, removed) lines between two texts.
pub fn line_delta(old: &str, new: &str) -> (u64, u64) {
    if old.len() + new.len() > MAX_DIFF_BYTES {
        return (count_lines(new), count_lines(old));
    }
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    diff.ops().iter().fold((0, 0), |(a, r), op| {
        let (o, n) = (op.old_range().len() as u64, op.new_range().len() as u64);
        match op.tag() {
            DiffTag::Equal => (a, r),
            DiffTag::Delete => (a, r + o),
            DiffTag::Insert => (a + n, r),
            DiffTag::Replace => (a + n, r + o),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(v: Value) -> HookInput {
        HookInput::from_map(v.as_object().unwrap().clone())
    }

    #[test]
    fn line_deltas() {
        assert_eq!(line_delta("two", "three"), (1, 1));
        assert_eq!(line_delta("a\nb\nc\n", "a\nc\nd\ne\n"), (2, 1));
        assert_eq!(line_delta("", "x\ny\n"), (2, 0));
        assert_eq!(line_delta("same", "same"), (0, 0));
    }

    #[test]
    fn edit_write_multiedit_notebook() {
        let e = delta(&input(json!({"tool_name":"Edit","tool_input":
            {"file_path":"/p/a.rs","old_string":"a\nb","new_string":"a\nc\nd"}})))
        .unwrap();
        assert_eq!((e.path.as_str(), e.added, e.removed), ("/p/a.rs", 2, 1));

        let w = delta(&input(json!({"tool_name":"Write","tool_input":
            {"file_path":"/p/h.txt","content":"one\ntwo\n"},
            "tool_response":{"originalFile":null}})))
        .unwrap();
        assert_eq!((w.added, w.removed), (2, 0));

        let w2 = delta(&input(json!({"tool_name":"Write","tool_input":
            {"file_path":"/p/h.txt","content":"one\nthree\n"},
            "tool_response":{"originalFile":"one\ntwo\n"}})))
        .unwrap();
        assert_eq!((w2.added, w2.removed), (1, 1));

        let m = delta(&input(json!({"tool_name":"MultiEdit","tool_input":
            {"file_path":"/p/m","edits":[{"old_string":"x","new_string":"y"},
                                         {"old_string":"","new_string":"z\nq"}]}})))
        .unwrap();
        assert_eq!((m.added, m.removed), (3, 1));

        let n = delta(&input(json!({"tool_name":"NotebookEdit","tool_input":
            {"notebook_path":"/p/n.ipynb","new_source":"a\nb"}})))
        .unwrap();
        assert_eq!((n.path.as_str(), n.added), ("/p/n.ipynb", 2));

        let all = delta(&input(json!({"tool_name":"Edit","tool_input":
            {"file_path":"/p/r","old_string":"x","new_string":"y","replace_all":true},
            "tool_response":{"originalFile":"x\nx\nz\nx\n"}})))
        .unwrap();
        assert_eq!((all.added, all.removed), (3, 3));
    }

    #[test]
    fn other_tools_and_bad_payloads_are_ignored() {
        assert_eq!(
            delta(&input(
                json!({"tool_name":"Bash","tool_input":{"command":"ls"}})
            )),
            None
        );
        assert_eq!(
            delta(&input(
                json!({"tool_name":"Edit","tool_input":{"file_path":5}})
            )),
            None
        );
        assert_eq!(
            delta(&input(json!({"tool_name":"Write","tool_input":
                {"file_path":"","content":"x"}}))),
            None
        );
    }

    #[test]
    fn coalesces_and_stays_bounded() {
        let mut e = Edits::default();
        let d = |p: &str| Delta {
            path: p.into(),
            added: 1,
            removed: 2,
        };
        e.add(&d("a"), "t1");
        e.add(&d("b"), "t2");
        e.add(&d("a"), "t3");
        assert_eq!(e.files.len(), 2);
        assert_eq!(e.files[1].path, "a");
        assert_eq!(
            (e.files[1].added, e.files[1].removed, e.files[1].edits),
            (2, 4, 2)
        );
        for i in 0..MAX_FILES + 5 {
            e.add(&d(&format!("f{i}")), "t");
        }
        assert_eq!(e.files.len(), MAX_FILES);
        assert_eq!(e.dropped_files, 7);
    }
}
