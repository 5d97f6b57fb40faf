//! `install --agent kimi` / `uninstall --agent kimi`: Kimi CLI keeps its hooks as `[[hooks]]`
//! tables (`event`, `command`, `matcher`, `timeout`) in the user's `config.toml`
//! (`$KIMI_SHARE_DIR`, default `~/.kimi`) and reads no project file (kimi-cli 1.51.0's
//! `hooks/config.py` and `share.py`; docs/agents-survey.md, Kimi CLI).
//!
//! Our tables go in one block at the end of the file, between two marker comments, so that
//! uninstall can cut out exactly the bytes install appended whatever else the person's file
//! holds; the result is parsed before it is written, so a file whose `hooks` is not an array of
//! tables is refused unchanged. Matchers are regular expressions there, where an empty one
//! matches every tool, so the table's `*` is written as no matcher.

use super::layout::Layout;
use super::{Merged, Record, agent_command, command_for, read_record, record_path};
use crate::cli::args::fail;
use crate::cli::settings;
use crate::protocol::Agent;
use std::path::Path;

const BEGIN: &str =
    "# omc-hooks: begin (added by 'omc-hooks install --agent kimi'; its uninstall removes it)";
const END: &str = "# omc-hooks: end";

/// Where our block sits in `text`: the byte range from the blank line before `BEGIN` to the
/// line break after `END`.
fn block_span(text: &str) -> Option<std::ops::Range<usize>> {
    let start = text.find(&format!("\n{BEGIN}\n"))?;
    let end_at = start + text[start..].find(&format!("\n{END}\n"))? + END.len() + 2;
    Some(start..end_at)
}

/// Our block for the binary at `exe`.
fn block(layout: &Layout, exe: &Path) -> String {
    let mut out = format!("\n{BEGIN}\n");
    for (event, matcher, sub) in layout.rows() {
        let handler = layout.handler(exe, sub);
        out.push_str("[[hooks]]\n");
        out.push_str(&format!("event = {}\n", toml_edit::Value::from(event)));
        if let Some(m) = matcher.filter(|m| *m != "*") {
            out.push_str(&format!("matcher = {}\n", toml_edit::Value::from(m)));
        }
        let command = command_for(exe, Agent::Kimi, sub);
        out.push_str(&format!(
            "command = {}\n",
            toml_edit::Value::from(command.as_str())
        ));
        out.push_str(&format!(
            "timeout = {}\n",
            handler["timeout"].as_u64().unwrap_or(10)
        ));
    }
    out.push_str(END);
    out.push('\n');
    out
}

/// Every hook command in a Kimi `config.toml`, for `doctor`; `None` when it does not parse.
pub(super) fn commands(text: &str) -> Option<Vec<String>> {
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    let Some(hooks) = doc
        .get("hooks")
        .and_then(toml_edit::Item::as_array_of_tables)
    else {
        return Some(Vec::new());
    };
    Some(
        hooks
            .iter()
            .filter_map(|t| t.get("command")?.as_str().map(str::to_string))
            .collect(),
    )
}

/// Whether `text` is valid TOML whose `hooks`, if any, is an array of tables.
fn check(text: &str) -> Result<(), String> {
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("not valid TOML ({e})"))?;
    match doc.get("hooks") {
        None => Ok(()),
        Some(h) if h.is_array_of_tables() => Ok(()),
        Some(_) => Err("its `hooks` is not a list of [[hooks]] tables".into()),
    }
}

/// The new text of the file and what changed: our block replaced, or appended.
fn merged(layout: &Layout, text: &str, exe: &Path, record: &mut Record) -> (String, Merged) {
    let want = block(layout, exe);
    let n = layout.rows().count();
    if let Some(span) = block_span(text) {
        let old = &text[span.clone()];
        if old == want {
            return (text.to_string(), Merged::default());
        }
        let before = commands(old).map(|c| c.len()).unwrap_or(0);
        let mut out = text.to_string();
        out.replace_range(span, &want);
        let merged = Merged {
            added: n.saturating_sub(before),
            updated: before.min(n),
            removed: before.saturating_sub(n),
        };
        return (out, merged);
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
        record.kimi_newline = true;
    }
    out.push_str(&want);
    (
        out,
        Merged {
            added: n,
            ..Merged::default()
        },
    )
}

pub(super) fn install(path: &Path, exe: &Path, record: &mut Record) -> Result<(Merged, bool), i32> {
    let layout = Layout::of(Agent::Kimi);
    let (text, existed) = match std::fs::read_to_string(path) {
        Ok(t) => (t, true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (String::new(), false),
        Err(e) => {
            return Err(fail(
                "install",
                &format!("cannot read {}: {e}", path.display()),
            ));
        }
    };
    let refuse = |why: String| {
        fail(
            "install",
            &format!(
                "{}: {why}; nothing was changed. Fix the file and try again.",
                path.display()
            ),
        )
    };
    check(&text).map_err(refuse)?;
    let (out, merged) = merged(&layout, &text, exe, record);
    check(&out).map_err(refuse)?;
    let changed = out != text || !existed;
    if changed {
        match settings::save(path, &out) {
            Ok(created) => {
                if !existed {
                    record.created_file = true;
                    record.created_dir |= !created.is_empty();
                }
            }
            Err(e) => {
                return Err(fail(
                    "install",
                    &format!("cannot write {}: {e}", path.display()),
                ));
            }
        }
    }
    Ok((merged, changed))
}

/// Takes our block out of the file: `None` when there is none, else how many hooks of ours
/// it held; or the exit code of an error.
pub(super) fn uninstall(path: &Path) -> Result<Option<usize>, i32> {
    let record_path = record_path(path);
    let record = read_record(&record_path).unwrap_or_default();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let _ = std::fs::remove_file(&record_path);
            return Ok(None);
        }
        Err(e) => {
            return Err(fail(
                "uninstall",
                &format!("cannot read {}: {e}", path.display()),
            ));
        }
    };
    let Some(span) = block_span(&text) else {
        let _ = std::fs::remove_file(&record_path);
        return Ok(None);
    };
    let removed = commands(&text[span.clone()])
        .unwrap_or_default()
        .iter()
        .filter(|c| agent_command(c).is_some_and(|(a, _)| a == Agent::Kimi))
        .count();
    let mut start = span.start;
    if record.kimi_newline && text[..start].ends_with('\n') {
        start -= 1;
    }
    let mut out = text.clone();
    out.replace_range(start..span.end, "");
    let written = if record.created_file && out.is_empty() {
        // The record goes first: the folder install created is removed only when empty.
        let _ = std::fs::remove_file(&record_path);
        std::fs::remove_file(path).map(|()| {
            if record.created_dir
                && let Some(dir) = path.parent()
            {
                let _ = std::fs::remove_dir(dir); // only if empty
            }
        })
    } else {
        settings::save(path, &out).map(|_| ())
    };
    written.map_err(|e| {
        fail(
            "uninstall",
            &format!("cannot write {}: {e}", path.display()),
        )
    })?;
    let _ = std::fs::remove_file(&record_path);
    Ok(Some(removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_round_trips_and_parses_as_kimi_reads_it() {
        let layout = Layout::of(Agent::Kimi);
        let exe = Path::new("/opt/omc hooks/omc-hooks");
        let user = "default_model = \"k2\"\n\n[providers.moonshot]\ntype = \"kimi\"\n";
        let mut record = Record::default();
        let (out, m) = merged(&layout, user, exe, &mut record);
        assert_eq!(m.added, layout.rows().count());
        assert!(
            out.starts_with(user),
            "the person's bytes come first, unchanged"
        );
        check(&out).unwrap();
        let doc: toml_edit::DocumentMut = out.parse().unwrap();
        let hooks = doc["hooks"].as_array_of_tables().unwrap();
        assert_eq!(hooks.len(), layout.rows().count());
        let stop = hooks
            .iter()
            .find(|t| t["event"].as_str() == Some("Stop"))
            .unwrap();
        assert_eq!(
            agent_command(stop["command"].as_str().unwrap()),
            Some((Agent::Kimi, "stop"))
        );
        assert!(stop.get("matcher").is_none());
        assert_eq!(stop["timeout"].as_integer(), Some(10));
        // Installing again with the same binary changes nothing; another binary replaces it.
        let (again, m) = merged(&layout, &out, exe, &mut record);
        assert_eq!((again.as_str(), m), (out.as_str(), Merged::default()));
        let (moved, m) = merged(&layout, &out, Path::new("/new/omc-hooks"), &mut record);
        assert_eq!(m.updated, layout.rows().count());
        assert_eq!(moved.matches(BEGIN).count(), 1);
        // The span is exactly what was appended.
        let span = block_span(&out).unwrap();
        assert_eq!(&out[..span.start], user);
        assert_eq!(span.end, out.len());
    }

    #[test]
    fn a_hooks_key_that_is_not_a_table_list_is_refused() {
        assert!(check("hooks = []\n").is_err());
        assert!(check("[hooks]\nx = 1\n").is_err());
        assert!(check("not = [toml\n").is_err());
        assert!(check("[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n").is_ok());
    }
}
