//! Tells the user, once per session, that `.omc/config.json` has errors.
//!
//! The hooks keep running on the valid part of the file ([`crate::config`]), so a mistake would
//! otherwise go unnoticed: a misspelt key simply does nothing. One `systemMessage` names the
//! file, the number of problems and the first one, and points at `omc-hooks doctor`.
//!
//! "Once": the session's `notices.json` records a fingerprint of the problems it was told
//! about. The same problems are not repeated; a different set (the user fixed one, broke
//! another) is told again. Without a session id, or when the record cannot be written, the
//! note is repeated rather than lost.

use super::Ctx;
use crate::config::Problem;
use crate::protocol::Answer;
use crate::state::files::SCHEMA_VERSION;
use crate::state::{Change, StateFile};
use serde::{Deserialize, Serialize};

/// The session-scope file that remembers what the session was told.
pub const FILE: &str = "notices.json";

const TEMPLATE: &str = include_str!("../../templates/config/errors.md");

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Notices {
    pub schema_version: u32,
    /// Fingerprint of the configuration problems last told, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_errors: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_errors_told_at: Option<String>,
}

/// SessionStart, UserPromptSubmit and Stop (events whose `systemMessage` the user sees).
pub fn run(ctx: &Ctx<'_>) -> Answer {
    let problems = ctx.config.problems();
    if problems.is_empty() {
        return Answer::default();
    }
    let print = fingerprint(problems);
    let file = StateFile::new(&ctx.scope, FILE).filter(|_| ctx.scope.session_id().is_some());
    if let (Some(store), Some(file)) = (&ctx.store, file) {
        let now = crate::time::iso(ctx.now_ms);
        let told = store.update(&file, |n: Option<Notices>| {
            let mut n = n.unwrap_or_default();
            if n.config_errors.as_deref() == Some(print.as_str()) {
                return (Change::Keep, true);
            }
            n.schema_version = SCHEMA_VERSION;
            n.config_errors = Some(print.clone());
            n.config_errors_told_at = Some(now);
            (Change::Write(n), false)
        });
        match told {
            Ok(true) => return Answer::default(),
            Ok(false) => {}
            Err(e) => crate::diag!("cannot record the config notice: {e}"),
        }
    }
    Answer::system_message(message(ctx, problems))
}

fn message(ctx: &Ctx<'_>, problems: &[Problem]) -> String {
    let path = ctx.config.path().map_or_else(
        || ".omc/config.json".to_string(),
        |p| p.display().to_string(),
    );
    let more = match problems.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    crate::modes::fill(
        TEMPLATE,
        &[
            ("path", &path),
            ("count", &problems.len().to_string()),
            ("first", &problems[0].summary()),
            ("more", &more),
        ],
    )
}

/// A stable fingerprint of the problems (FNV-1a, hex): the same mistakes give the same value
/// across processes and builds.
fn fingerprint(problems: &[Problem]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in problems {
        for b in p.key.bytes().chain([0]).chain(p.problem.bytes()).chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(key: &str, problem: &str) -> Problem {
        Problem {
            key: key.into(),
            problem: problem.into(),
            fix: String::new(),
        }
    }

    #[test]
    fn the_note_is_pinned() {
        let problems = [
            p("keyword", "unknown key (did you mean `keywords`?)"),
            p("x", "y"),
        ];
        let got = crate::modes::fill(
            TEMPLATE,
            &[
                ("path", "/p/.omc/config.json"),
                ("count", "2"),
                ("first", &problems[0].summary()),
                ("more", " (and 1 more)"),
            ],
        );
        assert_eq!(
            got,
            "omc-hooks: /p/.omc/config.json has 2 error(s) — `keyword`: unknown key (did you \
             mean `keywords`?) (and 1 more). The hooks use the rest of the file; run `omc-hooks \
             doctor` for every problem and its fix."
        );
    }

    #[test]
    fn fingerprints_tell_sets_of_problems_apart() {
        let a = fingerprint(&[p("keyword", "unknown key")]);
        assert_eq!(a, fingerprint(&[p("keyword", "unknown key")]));
        assert_ne!(a, fingerprint(&[p("keywords", "unknown key")]));
        assert_ne!(a, fingerprint(&[p("keyword", "unknown key"), p("x", "y")]));
        assert_eq!(a.len(), 16);
    }
}
