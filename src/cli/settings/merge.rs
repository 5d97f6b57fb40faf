//! What `install` and `uninstall` do to one settings file, as edits of its text.
//!
//! Hooks: every entry of the embedded manifest, with its command pointed at our binary, goes in
//! a matcher group of its own at the end of the event's list; entries of ours already there are
//! updated in place. Uninstall finds ours by their command (so it works without any record)
//! and removes them with the group, event list and `hooks` object they emptied — unless the
//! [`Record`] of the install says that container was there before, in which case it is kept
//! (as it was written, `[ ]` included). Other settings install changes (`statusLine`,
//! `enabledPlugins`, `env`) are [`Change`]s: uninstall puts back the exact text they had,
//! unless the user has changed the value since.

use super::edit::{Edit, EditError, Seg, pointer};
use super::{command_for, our_handler};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// What an install did to a file beyond our hook entries, kept in the user's registry so
/// that uninstall can undo exactly that.
#[derive(Debug, Default, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Record {
    /// JSON pointers of the containers install added (`/hooks`, `/hooks/Stop`): removed again
    /// once uninstall empties them. A container not listed was there before and stays.
    #[serde(default)]
    pub(crate) created: Vec<String>,
    /// Containers that were empty before install, with their exact text when it was not the
    /// plain `{}` / `[]` (for example `[ ]`): written back when uninstall empties them.
    #[serde(default)]
    pub(crate) empty_raw: BTreeMap<String, String>,
    /// Other settings install set, oldest first.
    #[serde(default)]
    pub(crate) changes: Vec<Change>,
}

/// One setting install wrote: its path of object keys, its text before (`None`: it did not
/// exist) and the value written.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Change {
    pub(crate) path: Vec<String>,
    pub(crate) before: Option<String>,
    pub(crate) after: Value,
}

impl Record {
    /// Whether uninstall must keep the container at `ptr` once it is empty.
    fn keeps(this: Option<&Record>, ptr: &str) -> bool {
        this.is_some_and(|r| !r.created.iter().any(|c| c == ptr))
    }

    /// Remembers the document's own text when it is an empty object written other than `{}`
    /// (such as `{ }`), to give it back once uninstall empties it again.
    fn note_empty_root(&mut self, edit: &Edit) {
        if edit.len(&[]) == Some(0)
            && let Some(raw) = edit.raw(&[]).filter(|r| *r != "{}")
        {
            self.empty_raw
                .entry("/".into())
                .or_insert_with(|| raw.to_string());
        }
    }

    fn note_created(&mut self, ptr: String) {
        if !self.created.contains(&ptr) {
            self.created.push(ptr);
        }
    }

    /// Merges what a later install of the same file did into this record.
    pub(crate) fn absorb(&mut self, later: Record) {
        for c in later.created {
            self.note_created(c);
        }
        for (k, v) in later.empty_raw {
            self.empty_raw.entry(k).or_insert(v);
        }
        for c in later.changes {
            match self.changes.iter_mut().find(|o| o.path == c.path) {
                Some(o) => o.after = c.after,
                None => self.changes.push(c),
            }
        }
    }
}

/// One hook handler in a settings value, with where it is.
pub(crate) struct Handler<'a> {
    pub(crate) event: &'a str,
    pub(crate) group: usize,
    pub(crate) index: usize,
    pub(crate) matcher: Option<&'a Value>,
    pub(crate) handler: &'a Value,
}

/// Every handler of the `hooks` object (event → matcher groups → handlers), in document
/// order, skipping entries of the wrong shape.
pub(crate) fn handlers(settings: &Value) -> Vec<Handler<'_>> {
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher");
            for (i, handler) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                out.push(Handler {
                    event,
                    group: g,
                    index: i,
                    matcher,
                    handler,
                });
            }
        }
    }
    out
}

/// One handler install wants: under `event`, in a group with `matcher`.
struct Wanted {
    event: String,
    matcher: Option<Value>,
    sub: &'static str,
    handler: Value,
    placed: bool,
}

/// The embedded manifest's entries, each command replaced by `program` running its subcommand.
fn wanted(program: &str) -> Result<Vec<Wanted>, String> {
    let manifest: Value = serde_json::from_str(crate::hooks::MANIFEST)
        .map_err(|e| format!("embedded manifest: {e}"))?;
    let mut out = Vec::new();
    for h in handlers(&manifest) {
        let sub = h.handler["command"]
            .as_str()
            .and_then(crate::hooks::manifest_subcommand)
            .ok_or_else(|| format!("embedded manifest: unexpected handler {}", h.handler))?;
        let mut handler = h.handler.clone();
        handler["command"] = Value::String(command_for(program, sub));
        out.push(Wanted {
            event: h.event.to_string(),
            matcher: h.matcher.cloned(),
            sub,
            handler,
            placed: false,
        });
    }
    Ok(out)
}

/// What a merge did to a file's hooks.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Merge {
    pub(crate) added: usize,
    pub(crate) updated: usize,
    pub(crate) removed: usize,
}

fn path<'a>(keys: &'a [&'a str]) -> Vec<Seg<'a>> {
    keys.iter().map(|k| Seg::Key(k)).collect()
}

fn handler_path(event: &str, group: usize, index: usize) -> Vec<Seg<'_>> {
    vec![
        Seg::Key("hooks"),
        Seg::Key(event),
        Seg::Index(group),
        Seg::Key("hooks"),
        Seg::Index(index),
    ]
}

/// The shape errors install refuses, in words for the person.
fn check_shape(v: &Value, events: &[&str]) -> Result<(), String> {
    let obj = v
        .as_object()
        .ok_or("the settings file is not a JSON object")?;
    match obj.get("hooks") {
        None => return Ok(()),
        Some(h) if !h.is_object() => return Err("its \"hooks\" entry is not an object".into()),
        Some(h) => {
            for e in events {
                if h.get(*e).is_some_and(|g| !g.is_array()) {
                    return Err(format!("its \"hooks\".\"{e}\" entry is not an array"));
                }
            }
        }
    }
    Ok(())
}

/// Merges our hooks, running `program`, into the document. Entries already present for the
/// same event, matcher and subcommand are updated in place; ours that the manifest no longer
/// wants there are removed; missing ones are appended as groups of their own. What was
/// created is noted in `record`.
pub(crate) fn install_hooks(
    edit: &mut Edit,
    program: &str,
    record: &mut Record,
) -> Result<Merge, String> {
    let mut wanted = wanted(program)?;
    let v = edit.value();
    let events: Vec<&str> = wanted.iter().map(|w| w.event.as_str()).collect();
    check_shape(&v, &events)?;
    record.note_empty_root(edit);
    let mut merge = Merge::default();
    let mut strays = Vec::new();
    for h in handlers(&v) {
        let Some(sub) = our_handler(h.handler) else {
            continue;
        };
        let found = wanted.iter_mut().find(|w| {
            !w.placed && w.event == h.event && w.sub == sub && w.matcher.as_ref() == h.matcher
        });
        match found {
            Some(w) => {
                w.placed = true;
                if *h.handler != w.handler {
                    update_handler(edit, &h, &w.handler).map_err(|e| e.to_string())?;
                    merge.updated += 1;
                }
            }
            None => strays.push((h.event.to_string(), h.group, h.index)),
        }
    }
    for (event, g, i) in strays.into_iter().rev() {
        remove_handler(edit, &event, g, i, Some(record)).map_err(|e| e.to_string())?;
        merge.removed += 1;
    }
    for w in wanted.into_iter().filter(|w| !w.placed) {
        add_handler(edit, &w, record).map_err(|e| e.to_string())?;
        merge.added += 1;
    }
    Ok(merge)
}

/// Rewrites the members of our handler that differ from `want`, one by one.
fn update_handler(edit: &mut Edit, h: &Handler, want: &Value) -> Result<(), EditError> {
    let base = handler_path(h.event, h.group, h.index);
    let have = h.handler.as_object().cloned().unwrap_or_default();
    let want = want.as_object().cloned().unwrap_or_default();
    for (k, v) in &want {
        if have.get(k) != Some(v) {
            let mut p = base.clone();
            p.push(Seg::Key(k));
            edit.set(&p, v)?;
        }
    }
    for k in have.keys().filter(|k| !want.contains_key(*k)) {
        let mut p = base.clone();
        p.push(Seg::Key(k));
        edit.remove(&p)?;
    }
    Ok(())
}

fn add_handler(edit: &mut Edit, w: &Wanted, record: &mut Record) -> Result<(), EditError> {
    let hooks = [Seg::Key("hooks")];
    if edit.get(&hooks).is_none() {
        edit.set(&hooks, &json!({}))?;
        record.note_created("/hooks".into());
    } else if edit.len(&hooks) == Some(0) {
        let raw = edit.raw(&hooks).unwrap_or("{}").to_string();
        if raw != "{}" {
            record.empty_raw.entry("/hooks".into()).or_insert(raw);
        }
    }
    let event = [Seg::Key("hooks"), Seg::Key(&w.event)];
    let event_ptr = pointer(&event);
    if edit.get(&event).is_none() {
        edit.set(&event, &json!([]))?;
        record.note_created(event_ptr);
    } else if edit.len(&event) == Some(0) {
        let raw = edit.raw(&event).unwrap_or("[]").to_string();
        if raw != "[]" {
            record.empty_raw.entry(event_ptr).or_insert(raw);
        }
    }
    let mut group = Map::new();
    if let Some(m) = &w.matcher {
        group.insert("matcher".into(), m.clone());
    }
    group.insert("hooks".into(), Value::Array(vec![w.handler.clone()]));
    edit.push(&event, &Value::Object(group))?;
    Ok(())
}

/// Removes one handler, then the group, event list and `hooks` object this emptied (the
/// containers `record` says were there before are kept, with their old text).
fn remove_handler(
    edit: &mut Edit,
    event: &str,
    group: usize,
    index: usize,
    record: Option<&Record>,
) -> Result<(), EditError> {
    edit.remove(&handler_path(event, group, index))?;
    let group_path = [
        Seg::Key("hooks"),
        Seg::Key(event),
        Seg::Index(group),
        Seg::Key("hooks"),
    ];
    if edit.len(&group_path) != Some(0) {
        return Ok(());
    }
    edit.remove(&group_path[..3])?;
    for p in [&group_path[..2], &group_path[..1]] {
        if edit.len(p) != Some(0) {
            return Ok(());
        }
        let ptr = pointer(p);
        if Record::keeps(record, &ptr) {
            if let Some(raw) = record.and_then(|r| r.empty_raw.get(&ptr)) {
                edit.set_raw(p, raw)?;
            }
            return Ok(());
        }
        edit.remove(p)?;
    }
    Ok(())
}

/// Removes every handler of ours (see [`remove_handler`]); returns how many.
pub(crate) fn uninstall_hooks(edit: &mut Edit, record: Option<&Record>) -> Result<usize, String> {
    let v = edit.value();
    if !v.is_object() {
        return Err("the settings file is not a JSON object".into());
    }
    if v.get("hooks").is_some_and(|h| !h.is_object()) {
        return Err("its \"hooks\" entry is not an object".into());
    }
    let ours: Vec<(String, usize, usize)> = handlers(&v)
        .into_iter()
        .filter(|h| our_handler(h.handler).is_some())
        .map(|h| (h.event.to_string(), h.group, h.index))
        .collect();
    for (event, g, i) in ours.iter().rev() {
        remove_handler(edit, event, *g, *i, record).map_err(|e| e.to_string())?;
    }
    Ok(ours.len())
}

/// Sets the setting at `keys` to `value`, creating missing parent objects, and notes the
/// change in `record` (keeping the first `before` when the same setting was changed earlier).
/// Returns whether anything changed.
pub(crate) fn apply_change(
    edit: &mut Edit,
    record: &mut Record,
    keys: &[&str],
    value: Value,
) -> Result<bool, EditError> {
    if edit.get(&path(keys)).as_ref() == Some(&value) {
        return Ok(false);
    }
    record.note_empty_root(edit);
    // The shortest prefix that does not exist yet is created whole.
    let missing = (1..=keys.len()).find(|n| edit.get(&path(&keys[..*n])).is_none());
    let (at, written) = match missing {
        Some(n) if n < keys.len() => {
            let mut v = value;
            for k in keys[n..].iter().rev() {
                v = json!({ *k: v });
            }
            (n, v)
        }
        _ => (keys.len(), value),
    };
    let p = path(&keys[..at]);
    let before = edit.raw(&p).map(str::to_string);
    edit.set(&p, &written)?;
    let change_path: Vec<String> = keys[..at].iter().map(|k| k.to_string()).collect();
    match record.changes.iter_mut().find(|c| c.path == change_path) {
        Some(c) => c.after = written,
        None => record.changes.push(Change {
            path: change_path,
            before,
            after: written,
        }),
    }
    Ok(true)
}

/// Gives an emptied document back the text it had when it was empty before install.
pub(crate) fn restore_empty_root(edit: &mut Edit, record: &Record) -> Result<(), EditError> {
    match record.empty_raw.get("/") {
        Some(raw) if edit.len(&[]) == Some(0) => edit.set_raw(&[], raw),
        _ => Ok(()),
    }
}

/// What reverting an install's changes did.
#[derive(Debug, Default)]
pub(crate) struct Reverted {
    /// Settings given back their old text (or removed), as JSON pointers.
    pub(crate) restored: Vec<String>,
    /// Settings left alone because they no longer hold what install wrote.
    pub(crate) kept: Vec<String>,
}

/// Undoes `record`'s changes, newest first.
pub(crate) fn revert_changes(edit: &mut Edit, record: &Record) -> Result<Reverted, EditError> {
    let mut out = Reverted::default();
    for c in record.changes.iter().rev() {
        let keys: Vec<&str> = c.path.iter().map(String::as_str).collect();
        let p = path(&keys);
        let ptr = pointer(&p);
        match edit.get(&p) {
            Some(now) if now == c.after => {
                match &c.before {
                    Some(raw) => edit.set_raw(&p, raw)?,
                    None => edit.remove(&p)?,
                }
                out.restored.push(ptr);
            }
            None if c.before.is_none() => {}
            _ => out.kept.push(ptr),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXE: &str = "/opt/omc hooks/bin/omc-hooks";

    fn ours(e: &Edit) -> usize {
        handlers(&e.value())
            .iter()
            .filter(|h| our_handler(h.handler).is_some())
            .count()
    }

    #[test]
    fn install_then_uninstall_restores_the_bytes() {
        let original = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"my-stop.sh\"}]}],\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"guard\"\n          }\n        ]\n      }\n    ]\n  },\n  \"permissions\": {\"allow\": []}\n}\n";
        let mut e = Edit::parse(original).unwrap();
        let mut rec = Record::default();
        let m = install_hooks(&mut e, EXE, &mut rec).unwrap();
        assert_eq!(m.added, 14);
        assert_eq!(ours(&e), 14);
        let v = e.value();
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "my-stop.sh");
        assert_eq!(
            v["hooks"]["Stop"][1]["hooks"][0]["command"],
            "\"/opt/omc hooks/bin/omc-hooks\" stop"
        );
        assert!(rec.created.contains(&"/hooks/SessionStart".to_string()));
        assert!(!rec.created.contains(&"/hooks/Stop".to_string()));
        let installed = e.text().to_string();
        let again = install_hooks(&mut e, EXE, &mut rec).unwrap();
        assert_eq!(again, Merge::default());
        assert_eq!(e.text(), installed);
        assert_eq!(uninstall_hooks(&mut e, Some(&rec)).unwrap(), 14);
        assert_eq!(e.text(), original);
        // Without the record the same bytes come back here too (nothing was empty before).
        let mut e = Edit::parse(&installed).unwrap();
        uninstall_hooks(&mut e, None).unwrap();
        assert_eq!(e.text(), original);
    }

    #[test]
    fn a_moved_binary_replaces_the_old_entries_in_place() {
        let mut e = Edit::parse("{}").unwrap();
        let mut rec = Record::default();
        install_hooks(&mut e, "/old/omc-hooks", &mut rec).unwrap();
        let m = install_hooks(&mut e, "/new/omc-hooks", &mut rec).unwrap();
        assert_eq!((m.added, m.updated, m.removed), (0, 14, 0));
        let progs: Vec<String> = super::super::find_ours(&e.value())
            .into_iter()
            .map(|f| f.program)
            .collect();
        assert_eq!(progs.len(), 14);
        assert!(progs.iter().all(|p| p == "/new/omc-hooks"));
    }

    #[test]
    fn stray_entries_of_ours_are_removed_on_install() {
        // TeammateIdle: an event Claude Code sends that no hook of ours serves.
        let original = r#"{"hooks": {"TeammateIdle": [{"hooks": [{"type": "command", "command": "/x/omc-hooks stop"}, {"type": "command", "command": "notify"}]}]}}"#;
        let mut e = Edit::parse(original).unwrap();
        let m = install_hooks(&mut e, EXE, &mut Record::default()).unwrap();
        assert_eq!(m.removed, 1);
        assert_eq!(
            e.get(&[Seg::Key("hooks"), Seg::Key("TeammateIdle")]),
            Some(json!([{"hooks": [{"type": "command", "command": "notify"}]}]))
        );
    }

    #[test]
    fn containers_that_were_there_before_are_kept_as_written() {
        for original in [
            "{\"hooks\": {\"Stop\": []}}\n",
            "{\"hooks\": {\"Stop\": [ ]}}\n",
            "{\n  \"hooks\": {}\n}",
            "{\n  \"hooks\": {\n  }\n}",
            "{\"hooks\": {\"Stop\": [{\"hooks\": []}], \"Notification\": []}}",
        ] {
            let mut e = Edit::parse(original).unwrap();
            let mut rec = Record::default();
            install_hooks(&mut e, EXE, &mut rec).unwrap();
            uninstall_hooks(&mut e, Some(&rec)).unwrap();
            assert_eq!(e.text(), original);
        }
        // Without a record, an emptied list is taken for one install created.
        let mut e = Edit::parse("{\"hooks\": {\"Stop\": []}}").unwrap();
        install_hooks(&mut e, EXE, &mut Record::default()).unwrap();
        uninstall_hooks(&mut e, None).unwrap();
        assert_eq!(e.text(), "{}");
    }

    #[test]
    fn wrong_shapes_are_refused() {
        for bad in ["[]", "{\"hooks\": []}", "{\"hooks\": {\"Stop\": {}}}"] {
            let mut e = Edit::parse(bad).unwrap();
            assert!(install_hooks(&mut e, EXE, &mut Record::default()).is_err());
            assert_eq!(e.text(), bad);
        }
        assert!(uninstall_hooks(&mut Edit::parse("{\"hooks\": 3}").unwrap(), None).is_err());
    }

    #[test]
    fn changes_are_reverted_to_their_old_text_unless_edited_since() {
        let original = "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"mine\"},\n  \"env\": {}\n}\n";
        let mut e = Edit::parse(original).unwrap();
        let mut rec = Record::default();
        let ours = json!({"type": "command", "command": "omc-hooks statusline"});
        assert!(apply_change(&mut e, &mut rec, &["statusLine"], ours.clone()).unwrap());
        assert!(!apply_change(&mut e, &mut rec, &["statusLine"], ours).unwrap());
        apply_change(&mut e, &mut rec, &["enabledPlugins", "x@y"], json!(false)).unwrap();
        apply_change(&mut e, &mut rec, &["env", "A"], json!("1")).unwrap();
        assert_eq!(
            e.get(&path(&["enabledPlugins"])),
            Some(json!({"x@y": false}))
        );
        assert_eq!(rec.changes[1].path, vec!["enabledPlugins"]);
        let r = revert_changes(&mut e, &rec).unwrap();
        assert_eq!(r.restored.len(), 3);
        assert_eq!(e.text(), original);
        // A value the user changed since is left alone.
        let mut e = Edit::parse("{}").unwrap();
        let mut rec = Record::default();
        apply_change(&mut e, &mut rec, &["env", "A"], json!("1")).unwrap();
        e.set(&path(&["env", "A"]), &json!("2")).unwrap();
        let r = revert_changes(&mut e, &rec).unwrap();
        assert_eq!(r.kept, vec!["/env"]);
    }
}
