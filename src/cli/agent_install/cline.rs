//! `install --agent cline` / `uninstall --agent cline`: Cline runs every executable in its hooks
//! folders whose name, less an extension it knows (`.sh`, `.bash`, `.js`, `.py`, …), is an event
//! (`PreToolUse`, `TaskStart`, … in any case), by its `#!` line — the project's
//! `.clinerules/hooks/` and the user's `$CLINE_DIR/hooks/` (`~/.cline`) (`@cline/core` 3.0.65:
//! tests/e2e/cline-FINDINGS.md).
//!
//! So install writes one small `sh` script of ours per installed event, which `exec`s this
//! binary, and a marker line that tells it from the person's scripts; a name the person
//! already uses is never taken (`PreToolUse.sh`, else `.bash`, `.zsh`, no extension). There is
//! nothing to merge: uninstall removes the scripts with our marker, the record kept in the same
//! folder, and the folders install created, when empty.

use super::layout::Layout;
use super::{Merged, RECORD, Record, agent_command, command_for, read_record, write_record};
use crate::cli::args::fail;
use crate::protocol::Agent;
use std::path::{Path, PathBuf};

/// The line that marks a hook script as ours.
const MARKER: &str = "# omc-hooks: written by 'omc-hooks install --agent cline'; \
                      'omc-hooks uninstall --agent cline' removes it";

/// The names tried for our script of an event, in order.
const SUFFIXES: [&str; 4] = [".sh", ".bash", ".zsh", ""];

/// Where the record of what install created sits: in the hooks folder, where Cline ignores a
/// `.json` file (a file beside it would be in `.clinerules/`, Cline's rules).
pub(super) fn record_path(dir: &Path) -> PathBuf {
    dir.join(RECORD)
}

/// Our script running `sub`.
fn script(exe: &Path, sub: &str) -> String {
    format!(
        "#!/bin/sh\n{MARKER}\nexec {}\n",
        command_for(exe, Agent::Cline, sub)
    )
}

/// The event a file in a hooks folder is for, as Cline matches it: its name less a known
/// extension, compared without case. `None` for a file Cline does not run.
fn event_of(name: &str, events: &[&'static str]) -> Option<&'static str> {
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) => (s, e),
        None => (name, ""),
    };
    let known = [
        "", "sh", "bash", "zsh", "js", "mjs", "cjs", "ts", "mts", "cts", "py", "ps1",
    ];
    let stem = if known.contains(&ext.to_ascii_lowercase().as_str()) {
        stem
    } else {
        return None;
    };
    let stem = if ext.is_empty() { name } else { stem };
    events
        .iter()
        .copied()
        .find(|e| e.eq_ignore_ascii_case(stem.trim()))
}

/// Every event name Cline 3.0.65 looks for.
const EVENTS: [&str; 10] = [
    "TaskStart",
    "TaskResume",
    "TaskCancel",
    "TaskComplete",
    "TaskError",
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PreCompact",
    "SessionShutdown",
];

/// The files of `dir`: (file name, event, whether it is ours), sorted by name.
fn scripts(dir: &Path) -> Vec<(String, &'static str, bool)> {
    let mut out: Vec<(String, &'static str, bool)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let event = event_of(&name, &EVENTS)?;
            let ours =
                std::fs::read_to_string(e.path()).is_ok_and(|t| t.lines().any(|l| l == MARKER));
            Some((name, event, ours))
        })
        .collect();
    out.sort();
    out
}

/// The command every hook script of `dir` runs (for `doctor`): ours by their `exec` line, the
/// person's not at all.
pub(super) fn commands(dir: &Path) -> Vec<String> {
    scripts(dir)
        .into_iter()
        .filter(|(_, _, ours)| *ours)
        .filter_map(|(name, _, _)| {
            let text = std::fs::read_to_string(dir.join(name)).ok()?;
            text.lines()
                .find_map(|l| l.strip_prefix("exec "))
                .map(str::to_string)
        })
        .collect()
}

/// Writes our scripts into `dir`; returns what changed, and whether anything did.
pub(super) fn install(dir: &Path, exe: &Path, record: &mut Record) -> Result<(Merged, bool), i32> {
    let layout = Layout::of(Agent::Cline);
    let err = |what: String| fail("install", &format!("{what}; nothing more was changed"));
    if dir.exists() && !dir.is_dir() {
        return Err(fail(
            "install",
            &format!(
                "{} is not a directory; Cline reads its hooks from a folder of that name",
                dir.display()
            ),
        ));
    }
    // The folders install makes, outermost first, so uninstall can take them back.
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    for d in &missing {
        std::fs::create_dir(d).map_err(|e| err(format!("cannot create {}: {e}", d.display())))?;
        record.created_dirs.push(d.clone());
    }
    let mut merged = Merged::default();
    let present = scripts(dir);
    let rows: Vec<(&'static str, &'static str)> =
        layout.rows().map(|(event, _, sub)| (event, sub)).collect();
    for (event, sub) in &rows {
        let want = script(exe, sub);
        let mine = present.iter().find(|(_, e, ours)| *ours && e == event);
        let name = match mine {
            Some((name, _, _)) => {
                if std::fs::read_to_string(dir.join(name)).ok().as_deref() == Some(&want) {
                    continue;
                }
                merged.updated += 1;
                name.clone()
            }
            None => {
                let free = SUFFIXES
                    .iter()
                    .map(|s| format!("{event}{s}"))
                    .find(|n| !dir.join(n).exists());
                let Some(free) = free else {
                    return Err(err(format!(
                        "{}: every name for a {event} script is taken",
                        dir.display()
                    )));
                };
                merged.added += 1;
                free
            }
        };
        let p = dir.join(&name);
        std::fs::write(&p, &want)
            .and_then(|()| crate::platform::make_executable(&p))
            .map_err(|e| err(format!("cannot write {}: {e}", p.display())))?;
    }
    // Ours for an event no longer installed (an older install) go.
    for (name, event, ours) in &present {
        if *ours && !rows.iter().any(|(e, _)| e == event) {
            let _ = std::fs::remove_file(dir.join(name));
            merged.removed += 1;
        }
    }
    let changed = merged != Merged::default() || !missing.is_empty();
    Ok((merged, changed))
}

/// Removes our scripts, the record and the folders install made (when empty): `None` when
/// nothing of ours was there, else how many scripts went; or the exit code of an error.
pub(super) fn uninstall(dir: &Path) -> Result<Option<usize>, i32> {
    let record_path = record_path(dir);
    let record = read_record(&record_path).unwrap_or_default();
    let mut removed = 0;
    for (name, _, ours) in scripts(dir) {
        if !ours {
            continue;
        }
        let p = dir.join(&name);
        // Only a script that runs omc-hooks for Cline, as install wrote it.
        let runs_us = commands_of(&p)
            .is_some_and(|c| agent_command(&c).is_some_and(|(a, _)| a == Agent::Cline));
        if !runs_us {
            continue;
        }
        std::fs::remove_file(&p)
            .map_err(|e| fail("uninstall", &format!("cannot remove {}: {e}", p.display())))?;
        removed += 1;
    }
    let _ = std::fs::remove_file(&record_path);
    for d in record.created_dirs.iter().rev() {
        let _ = std::fs::remove_dir(d); // only if empty
    }
    Ok((removed > 0 || !record.created_dirs.is_empty()).then_some(removed))
}

/// The command of one script of ours (its `exec` line).
fn commands_of(p: &Path) -> Option<String> {
    let text = std::fs::read_to_string(p).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("exec "))
        .map(str::to_string)
}

/// Saves the record beside the scripts (or removes it when install created nothing).
pub(super) fn save_record(dir: &Path, record: &Record) -> std::io::Result<()> {
    write_record(&record_path(dir), record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_match_events_as_cline_does() {
        assert_eq!(event_of("PreToolUse", &EVENTS), Some("PreToolUse"));
        assert_eq!(event_of("pretooluse.sh", &EVENTS), Some("PreToolUse"));
        assert_eq!(event_of("TaskStart.py", &EVENTS), Some("TaskStart"));
        assert_eq!(event_of("PreToolUse.txt", &EVENTS), None);
        assert_eq!(event_of("omc-hooks-install.json", &EVENTS), None);
        assert_eq!(event_of("README", &EVENTS), None);
    }

    #[test]
    fn a_name_the_person_uses_is_never_taken_and_theirs_stay() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(".clinerules/hooks");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("PreToolUse.sh"), "#!/bin/sh\necho mine\n").unwrap();
        let exe = Path::new("/opt/omc-hooks");
        let mut record = Record::default();
        let (m, changed) = install(&dir, exe, &mut record).unwrap();
        assert!(changed);
        assert_eq!(m.added, Layout::of(Agent::Cline).rows().count());
        assert!(record.created_dirs.is_empty(), "the folder was there");
        let ours = std::fs::read_to_string(dir.join("PreToolUse.bash")).unwrap();
        assert!(ours.starts_with("#!/bin/sh\n"));
        assert!(ours.ends_with("exec \"/opt/omc-hooks\" --agent cline pre-tool-use\n"));
        assert_eq!(
            std::fs::read_to_string(dir.join("PreToolUse.sh")).unwrap(),
            "#!/bin/sh\necho mine\n"
        );
        let meta = std::fs::metadata(dir.join("PostToolUse.sh")).unwrap();
        #[cfg(unix)]
        assert_eq!(crate::platform::mode_of(&meta), Some(0o755));
        assert!(crate::platform::is_executable(&meta));
        // Again: nothing changes; another binary: every script is updated in place.
        let (m, changed) = install(&dir, exe, &mut record).unwrap();
        assert_eq!((m, changed), (Merged::default(), false));
        let (m, _) = install(&dir, Path::new("/new/omc-hooks"), &mut record).unwrap();
        assert_eq!(m.updated, Layout::of(Agent::Cline).rows().count());
        assert!(commands(&dir).iter().all(|c| c.contains("/new/omc-hooks")));
        assert_eq!(
            uninstall(&dir).unwrap(),
            Some(Layout::of(Agent::Cline).rows().count())
        );
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, vec!["PreToolUse.sh".to_string()]);
    }
}
