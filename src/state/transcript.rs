//! The client's transcript, read-only, its tail or its head.
//!
//! Stop needs one fact from the transcript — how full the context window is — and that fact is
//! in the last assistant message's `usage`. Transcripts grow to gigabytes, so only the last
//! [`TAIL_BYTES`] are ever read, with a seek. `transcript_path` comes from the payload and is
//! not trusted: it is opened only when it is absolute and names a regular file (not a symlink,
//! checked again on the opened handle).

use serde_json::Value;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How much of the end of the transcript is read.
pub const TAIL_BYTES: u64 = 64 * 1024;

/// The context a turn used, from the last assistant message that reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    /// `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`.
    pub tokens: u64,
    /// The message's model id, if recorded.
    pub model: Option<String>,
    /// A context window size recorded beside the usage, if any.
    pub window: Option<u64>,
}

/// Opens the file a payload's `raw_path` names, when this crate may read it: absolute, a
/// regular file (not a symlink, which the open refuses; not a FIFO or a device, which the open
/// does not wait on and the handle then shows), and not on a kernel's virtual file system (`/proc/kmsg` is a "regular file" whose read blocks until the
/// hook's deadline: issue 43).
pub fn open(raw_path: &str) -> Option<(File, std::fs::Metadata)> {
    let path = Path::new(raw_path);
    if !path.is_absolute() {
        return None;
    }
    // One open that refuses a symlink and never waits on a FIFO, then what was opened is
    // checked: no window between a check of the path and the open.
    let file =
        crate::platform::open_no_follow(std::fs::OpenOptions::new().read(true), path, true).ok()?;
    let opened = file.metadata().ok()?;
    if !opened.is_file() || crate::platform::kernel_file(&file) {
        return None;
    }
    Some((file, opened))
}

/// The last `max` bytes of the file at `raw_path`, or `None` when the path is not one this
/// crate may open (relative, missing, a symlink, not a regular file) or cannot be read.
pub fn tail(raw_path: &str, max: u64) -> Option<Vec<u8>> {
    let (mut file, opened) = open(raw_path)?;
    let len = opened.len();
    let start = len.saturating_sub(max);
    if start > 0 {
        file.seek(SeekFrom::Start(start)).ok()?;
    }
    // The length `fstat` gave: no read past it to find the end (a line written since is read
    // next time).
    let mut buf = Vec::with_capacity((len - start) as usize);
    file.take(len - start).read_to_end(&mut buf).ok()?;
    if start > 0 {
        // The first line is cut; drop it.
        let cut = buf
            .iter()
            .position(|b| *b == b'\n')
            .map_or(buf.len(), |i| i + 1);
        buf.drain(..cut);
    }
    Some(buf)
}

/// The first `max` bytes of the file at `raw_path` (whole lines only), under the same rules as
/// [`tail`]. A subagent's transcript opens with its task, which is all the deliverables check
/// reads of it.
pub fn head(raw_path: &str, max: u64) -> Option<Vec<u8>> {
    let (file, opened) = open(raw_path)?;
    let mut buf = Vec::new();
    file.take(opened.len().min(max))
        .read_to_end(&mut buf)
        .ok()?;
    if opened.len() > max {
        let end = buf.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        buf.truncate(end);
    }
    Some(buf)
}

/// The text of the first user message of a transcript (JSON lines, Claude Code's shape:
/// `{"type":"user","message":{"content": "…" | [{"type":"text","text":"…"}]}}`).
pub fn first_user_text(lines: &[u8]) -> Option<String> {
    String::from_utf8_lossy(lines).lines().find_map(|line| {
        let v: Value = serde_json::from_str(line).ok()?;
        if v.get("type")?.as_str()? != "user" {
            return None;
        }
        let content = v.get("message")?.get("content")?;
        match content {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => {
                let t: Vec<&str> = parts
                    .iter()
                    .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|p| p.get("text")?.as_str())
                    .collect();
                (!t.is_empty()).then(|| t.join("\n"))
            }
            _ => None,
        }
    })
}

/// The usage of the last assistant message in a transcript tail (JSON lines).
pub fn last_usage(tail: &[u8]) -> Option<Usage> {
    tail.split(|b| *b == b'\n').rev().find_map(usage_of_line)
}

fn usage_of_line(line: &[u8]) -> Option<Usage> {
    // Cheap filter before parsing: most lines are tool results and user text.
    if !contains(line, b"\"usage\"") && !contains(line, b"\"context_window\"") {
        return None;
    }
    let v: Value = serde_json::from_slice(line).ok()?;
    let message = v.get("message").unwrap_or(&v);
    let usage = message.get("usage").or_else(|| v.get("usage"));
    let model = message
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    if model.as_deref() == Some("<synthetic>") {
        return None;
    }
    let n = |u: &Value, k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let tokens = match usage {
        Some(u) => {
            n(u, "input_tokens")
                + n(u, "cache_creation_input_tokens")
                + n(u, "cache_read_input_tokens")
        }
        None => n(&v, "input_tokens"),
    };
    let window = v.get("context_window").and_then(|w| {
        w.as_u64()
            .or_else(|| w.get("context_window_size")?.as_u64())
    });
    if tokens == 0 {
        return None;
    }
    let is_assistant = v.get("type").and_then(Value::as_str) == Some("assistant")
        || message.get("role").and_then(Value::as_str) == Some("assistant");
    (is_assistant || window.is_some()).then_some(Usage {
        tokens,
        model,
        window,
    })
}

/// Whether `needle` occurs in `hay`: the cheap look at a transcript line before it is parsed
/// (here and in [`super::usage`]).
pub(super) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn line(input: u64, cache: u64, model: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","model":"{model}","usage":{{"input_tokens":{input},"cache_creation_input_tokens":0,"cache_read_input_tokens":{cache},"output_tokens":9}}}}}}"#
        )
    }

    #[test]
    fn the_last_assistant_usage_wins() {
        let text = format!(
            "{}\n{}\n{{\"type\":\"user\",\"message\":{{\"content\":\"hi\"}}}}\n",
            line(10, 5, "m1"),
            line(100, 50, "m2")
        );
        let u = last_usage(text.as_bytes()).unwrap();
        assert_eq!(u.tokens, 150);
        assert_eq!(u.model.as_deref(), Some("m2"));
    }

    #[test]
    fn synthetic_and_empty_usages_are_skipped() {
        let text = format!("{}\n{}\n", line(100, 0, "m"), line(0, 0, "<synthetic>"));
        assert_eq!(last_usage(text.as_bytes()).unwrap().tokens, 100);
        assert_eq!(last_usage(b"garbage\n{}\n"), None);
    }

    #[test]
    fn omc_style_context_window_lines_are_read() {
        let u = last_usage(br#"{"context_window":1000,"input_tokens":960}"#).unwrap();
        assert_eq!((u.tokens, u.window), (960, Some(1000)));
    }

    #[test]
    fn only_the_tail_is_read_and_its_cut_line_dropped() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let mut f = File::create(&p).unwrap();
        // A big early line that a whole-file read would see, then a small last line.
        writeln!(f, "{}", line(1, 0, "early")).unwrap();
        writeln!(f, "{}", "x".repeat(200_000)).unwrap();
        writeln!(f, "{}", line(7, 0, "late")).unwrap();
        drop(f);
        let tail = tail(p.to_str().unwrap(), TAIL_BYTES).unwrap();
        assert!(tail.len() as u64 <= TAIL_BYTES);
        assert!(!tail.starts_with(b"x"), "the cut line is dropped");
        assert_eq!(last_usage(&tail).unwrap().model.as_deref(), Some("late"));
        // A file shorter than the tail is read whole, from its start.
        let short = t.path().join("short.jsonl");
        std::fs::write(
            &short,
            format!("{}\n{}\n", line(1, 0, "a"), line(2, 0, "b")),
        )
        .unwrap();
        let whole = super::tail(short.to_str().unwrap(), TAIL_BYTES).unwrap();
        assert_eq!(whole, std::fs::read(&short).unwrap());
        assert_eq!(head(short.to_str().unwrap(), TAIL_BYTES).unwrap(), whole);
    }

    #[test]
    fn unsafe_paths_are_not_opened() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real.jsonl");
        std::fs::write(&real, line(5, 0, "m")).unwrap();
        let link = t.path().join("link.jsonl");
        crate::platform::symlink(&real, &link).unwrap();
        assert!(tail(real.to_str().unwrap(), TAIL_BYTES).is_some());
        assert!(tail(link.to_str().unwrap(), TAIL_BYTES).is_none());
        assert!(tail("relative.jsonl", TAIL_BYTES).is_none());
        assert!(tail(t.path().to_str().unwrap(), TAIL_BYTES).is_none());
        assert!(tail("/no/such/file", TAIL_BYTES).is_none());
    }

    /// Issue 43: devices and the kernel's "regular files" (`/proc/kmsg` blocks a read until the
    /// deadline) are refused before any read; `/proc/self/status` stands for them here, since
    /// it reads without blocking.
    #[cfg(target_os = "linux")]
    #[test]
    fn devices_and_kernel_files_are_not_read() {
        for p in [
            "/dev/zero",
            "/dev/null",
            "/proc/self/status",
            "/proc/kmsg",
            "/sys/kernel/profiling",
        ] {
            assert!(tail(p, TAIL_BYTES).is_none(), "{p}");
            assert!(head(p, TAIL_BYTES).is_none(), "{p}");
            assert!(super::super::usage::count(p, None, 0).is_none(), "{p}");
        }
    }
}
