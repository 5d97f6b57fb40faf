//! Telling the person, once, that a hooks file is not running as written: a project file that
//! is not trusted (or changed since it was), or entries disabled by a mistake.
//!
//! "Once" is per session and per version of the file: the session's `user-hooks-notice.json`
//! (`state-schema/user-hooks-notice.schema.json`) remembers the hashes it has announced, so the
//! next hook of the session stays quiet and an edit of the file is announced afresh. The text
//! goes out as a `systemMessage` (the person sees it; the model does not).

use crate::config::hooks_toml::{HookFile, Severity};
use crate::state::trust::Status;
use crate::state::{Change, Scope, StateFile, Store};
use serde::{Deserialize, Serialize};

pub const FILE: &str = "user-hooks-notice.json";

const UNTRUSTED: &str = include_str!("../../templates/user-hooks/untrusted.md");
const CHANGED: &str = include_str!("../../templates/user-hooks/changed.md");
const DISABLED: &str = include_str!("../../templates/user-hooks/disabled.md");

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Notices {
    schema_version: u32,
    announced: Vec<Announced>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Announced {
    path: String,
    sha256: String,
    at: String,
}

/// At most this many remembered announcements per session (oldest dropped).
const KEEP: usize = 32;

/// The text to show for `file` in its trust state, if anything is worth saying.
pub fn text(file: &HookFile, status: Status) -> Option<String> {
    let path = file.path.display().to_string();
    let count = file.entries.len();
    let plural = |n: usize| if n == 1 { "y" } else { "ies" };
    match status {
        Status::Untrusted | Status::Changed if count > 0 => {
            let template = if status == Status::Untrusted {
                UNTRUSTED
            } else {
                CHANGED
            };
            Some(render(
                template,
                &[
                    ("path", &path),
                    ("count", &count.to_string()),
                    ("ies", plural(count)),
                ],
            ))
        }
        Status::Untrusted | Status::Changed => None,
        Status::Trusted => {
            let errors: Vec<_> = file
                .problems
                .iter()
                .filter(|p| p.severity == Severity::Error)
                .collect();
            let first = errors.first()?;
            Some(render(
                DISABLED,
                &[
                    ("path", &path),
                    ("count", &errors.len().to_string()),
                    ("ies", plural(errors.len())),
                    ("first", &first.describe()),
                ],
            ))
        }
    }
}

fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = template.trim_end().to_string();
    for (k, v) in vars {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// Whether this session has not yet been told about this version of the file; records that it
/// now has. `false` when it cannot be recorded (better silent than repeated on every hook).
pub fn first_time(store: &Store, scope: &Scope, file: &HookFile, now_ms: i64) -> bool {
    let Some(state) = StateFile::new(scope, FILE) else {
        return false;
    };
    let path = file.path.to_string_lossy().into_owned();
    let sha = file.sha256.clone();
    let said = |n: &Notices| {
        n.announced
            .iter()
            .any(|a| a.path == path && a.sha256 == sha)
    };
    // Every later hook of the session only reads (no lock, no directory to create).
    if store.read::<Notices>(&state).is_some_and(|n| said(&n)) {
        return false;
    }
    let at = crate::time::iso(now_ms);
    let result = store.update(&state, |cur: Option<Notices>| {
        let mut n = cur.unwrap_or_default();
        if n.announced
            .iter()
            .any(|a| a.path == path && a.sha256 == sha)
        {
            return (Change::Keep, false);
        }
        n.schema_version = 1;
        n.announced.push(Announced {
            path,
            sha256: sha,
            at,
        });
        let extra = n.announced.len().saturating_sub(KEEP);
        n.announced.drain(..extra);
        (Change::Write(n), true)
    });
    match result {
        Ok(first) => first,
        Err(e) => {
            crate::diag!("cannot record the user hooks notice: {e}");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::hooks_toml::{Origin, parse_file};
    use std::path::PathBuf;

    const ONE: &[u8] = b"[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncommand = \"true\"\n";

    #[test]
    fn the_texts_as_the_person_reads_them() {
        let f = parse_file(Origin::Project, PathBuf::from("/p/.omc/hooks.toml"), ONE);
        assert_eq!(
            text(&f, Status::Untrusted).unwrap(),
            "omc-hooks: /p/.omc/hooks.toml is not trusted, so its 1 hook entry will not run. \
             Read it (and any script it calls), then run `omc-hooks trust` in the project to let \
             it run."
        );
        assert_eq!(
            text(&f, Status::Changed).unwrap(),
            "omc-hooks: /p/.omc/hooks.toml has changed since you trusted it, so its 1 hook entry \
             will not run. Read the change, then run `omc-hooks trust` in the project again."
        );
        assert_eq!(text(&f, Status::Trusted), None);
        let bad = parse_file(
            Origin::User,
            PathBuf::from("/u/hooks.toml"),
            b"[[hooks]]\nevent = \"stop\"\ntype = \"script\"\ncomand = \"x\"\n\n[[hooks]]\ntype = \"x\"\n",
        );
        assert_eq!(
            text(&bad, Status::Trusted).unwrap(),
            "omc-hooks: /u/hooks.toml: 2 hook entries disabled by a mistake in the file (line 4: \
             entry 1: unknown key `comand`; entry disabled). `omc-hooks doctor` lists them all."
        );
    }

    #[test]
    fn once_per_session_and_version() {
        let t = tempfile::tempdir().unwrap();
        let store = Store::new(
            crate::state::Root {
                project: t.path().to_path_buf(),
                omc: t.path().join(".omc"),
            },
            0,
        );
        let scope = Scope::for_session(Some("s1"));
        let f = parse_file(Origin::Project, t.path().join(".omc/hooks.toml"), ONE);
        assert!(first_time(&store, &scope, &f, 0));
        assert!(!first_time(&store, &scope, &f, 1));
        assert!(first_time(&store, &Scope::for_session(Some("s2")), &f, 2));
        let edited = parse_file(Origin::Project, f.path.clone(), b"# edited\n");
        assert!(first_time(&store, &scope, &edited, 3));
    }
}
