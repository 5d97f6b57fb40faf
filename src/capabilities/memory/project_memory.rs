//! `.omc/project-memory.json`: durable facts about the project and the user's standing
//! directives, shown at every SessionStart. A person may edit it by hand, so it is read
//! tolerantly (never quarantined: a typo is reported and the file ignored) and changed only
//! through [`add`], which keeps every key it does not know and refuses to rewrite a file it
//! cannot parse.
//!
//! Our shape (`state-schema/project-memory.schema.json`):
//! `{schema_version, facts:[{text, source, added_at}], directives:[{text, priority, added_at}],
//! updated_at}`. A file written by oh-my-claudecode is still read: its `userDirectives`,
//! `customNotes` and build commands are shown too.

use super::{clip, render};
use crate::state::files::SCHEMA_VERSION;
use crate::state::{Scope, StateFile, Store};
use serde_json::{Map, Value, json};
use std::io;

/// `.omc/project-memory.json`.
pub const FILE: &str = "project-memory.json";
/// At most this many facts and this many directives are kept (oldest dropped first).
pub const MAX_ITEMS: usize = 50;
const MAX_TEXT_CHARS: usize = 500;

const SECTION: &str = include_str!("../../../templates/memory/project-memory.md");

/// What a person or the CLI can add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Fact,
    Directive,
}

fn file() -> Option<StateFile> {
    StateFile::new(&Scope::Omc, FILE)
}

/// The file as JSON, if present and parseable (a broken file is reported and ignored).
pub fn read(store: &Store) -> Option<Value> {
    let f = file()?;
    let text = store.read_text(&f)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(v @ Value::Object(_)) => Some(v),
        Ok(_) | Err(_) => {
            crate::diag!(
                "{}: not a JSON object; ignored (fix it by hand)",
                store.path(&f).display()
            );
            None
        }
    }
}

/// The lines worth showing, directives first: ours, then oh-my-claudecode's fields.
pub fn items(v: &Value) -> Vec<String> {
    let texts = |key: &str, field: &str| -> Vec<String> {
        v.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|i| match i {
                        Value::String(s) => Some(s.as_str()),
                        o => o.get(field).and_then(Value::as_str),
                    })
                    .map(|s| clip(s, MAX_TEXT_CHARS))
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    // At most MAX_ITEMS of each kind, the newest (last written) kept, as when the file is
    // added to: a file edited by hand may hold any number (issue 43).
    let newest =
        |all: Vec<String>, what: &str, out: &mut Vec<String>, line: &dyn Fn(&str) -> String| {
            let skip = all.len().saturating_sub(MAX_ITEMS);
            if skip > 0 {
                out.push(format!(
                "- ({skip} older {what} in .omc/project-memory.json not shown: at most {MAX_ITEMS})"
            ));
            }
            out.extend(all[skip..].iter().map(|t| line(t)));
        };
    let mut out = Vec::new();
    let directives: Vec<String> = texts("directives", "text")
        .into_iter()
        .chain(texts("userDirectives", "directive"))
        .collect();
    newest(directives, "directives", &mut out, &|d| {
        format!("- Directive: {d}")
    });
    let build = v.get("build");
    for (key, label) in [("buildCommand", "build"), ("testCommand", "test")] {
        if let Some(cmd) = build.and_then(|b| b.get(key)).and_then(Value::as_str) {
            out.push(format!("- {label}: `{}`", clip(cmd, 200)));
        }
    }
    let facts: Vec<String> = texts("facts", "text")
        .into_iter()
        .chain(texts("customNotes", "content"))
        .collect();
    newest(facts, "facts", &mut out, &|f| format!("- {f}"));
    out
}

/// The SessionStart section, or `None` when there is nothing to say.
pub fn section(store: &Store) -> Option<String> {
    let v = read(store)?;
    let lines = items(&v);
    (!lines.is_empty()).then(|| render(SECTION.trim_end(), &[("items", &lines.join("\n"))]))
}

/// Adds a fact or a directive (deduplicated by text). Creates the file when missing; refuses
/// to touch a file that does not parse, so a person's half-edited file is never clobbered.
pub fn add(store: &Store, kind: Kind, text: &str, source: &str, now_ms: i64) -> io::Result<bool> {
    let text = clip(text, MAX_TEXT_CHARS);
    if text.is_empty() {
        return Ok(false);
    }
    let Some(f) = file() else { return Ok(false) };
    let now = crate::time::iso(now_ms);
    let mut refused = None;
    let written = store.update_text(&f, |cur| {
        let mut v = match cur.map(serde_json::from_str::<Value>) {
            None => Value::Object(Map::new()),
            Some(Ok(v @ Value::Object(_))) => v,
            Some(_) => {
                refused = Some("is not a JSON object; fix it by hand first");
                return None;
            }
        };
        let obj = v.as_object_mut()?;
        obj.entry("schema_version").or_insert(json!(SCHEMA_VERSION));
        let (key, item) = match kind {
            Kind::Fact => (
                "facts",
                json!({"text": text, "source": source, "added_at": now}),
            ),
            Kind::Directive => (
                "directives",
                json!({"text": text, "priority": "high", "added_at": now}),
            ),
        };
        let list = obj.entry(key).or_insert_with(|| json!([]));
        let Some(arr) = list.as_array_mut() else {
            refused = Some("has a non-list facts/directives field; fix it by hand first");
            return None;
        };
        if arr
            .iter()
            .any(|i| i.get("text").and_then(Value::as_str) == Some(text.as_str()))
        {
            return None;
        }
        arr.push(item);
        while arr.len() > MAX_ITEMS {
            arr.remove(0);
        }
        obj.insert("updated_at".into(), json!(now));
        let mut s = serde_json::to_string_pretty(&v).ok()?;
        s.push('\n');
        Some(s)
    })?;
    match refused {
        Some(why) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} {why}", store.path(&f).display()),
        )),
        None => Ok(written),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_fifty_directives_and_facts_are_given() {
        let many = |n: usize, what: &str| -> Vec<Value> {
            (0..n)
                .map(|i| serde_json::json!({"text": format!("{what} {i}")}))
                .collect()
        };
        let v = serde_json::json!({"directives": many(60, "directive"), "facts": many(55, "fact")});
        let lines = items(&v);
        let directives = lines
            .iter()
            .filter(|l| l.starts_with("- Directive: "))
            .count();
        assert_eq!(directives, MAX_ITEMS, "{lines:?}");
        assert_eq!(lines.len(), 2 * MAX_ITEMS + 2, "{lines:?}");
        assert_eq!(
            lines[0],
            "- (10 older directives in .omc/project-memory.json not shown: at most 50)"
        );
        assert_eq!(lines[1], "- Directive: directive 10");
        assert!(lines.contains(&"- fact 54".to_string()));
        assert!(!lines.contains(&"- fact 4".to_string()));
    }

    #[test]
    fn items_directives_first_and_omc_fields_read() {
        let v = json!({
            "facts": [{"text": "Uses pnpm workspaces"}],
            "directives": [{"text": "Never push to main"}],
            "userDirectives": [{"directive": "Ask before deleting files"}],
            "customNotes": [{"content": "[env] Requires LOCAL_API_BASE"}],
            "build": {"buildCommand": "pnpm build", "testCommand": "pnpm test"}
        });
        assert_eq!(
            items(&v),
            vec![
                "- Directive: Never push to main",
                "- Directive: Ask before deleting files",
                "- build: `pnpm build`",
                "- test: `pnpm test`",
                "- Uses pnpm workspaces",
                "- [env] Requires LOCAL_API_BASE",
            ]
        );
        assert!(items(&json!({})).is_empty());
    }

    #[test]
    fn section_text_is_pinned() {
        let text = render(SECTION.trim_end(), &[("items", "- a")]);
        assert_eq!(
            text,
            "[PROJECT MEMORY] Durable facts and standing directives for this project \
             (.omc/project-memory.json). Follow the directives unless the user says otherwise.\n- a"
        );
    }
}
