//! Tells the user, once per session, that `.omc/config.json` has errors, and that a switch in
//! the environment (`DISABLE_OMC`, `OMC_SKIP_HOOKS`) has a value the hooks cannot read.
//!
//! The hooks keep running on the valid part of the file ([`crate::config`]), so a mistake would
//! otherwise go unnoticed: a misspelt key simply does nothing. One `systemMessage` names the
//! file, the number of problems and the first one, and points at `omc-hooks doctor`. A
//! misspelt hook name in `OMC_SKIP_HOOKS` would skip nothing just as silently: it is named
//! the same way (and on stderr by every hook, `dispatch`).
//!
//! "Once": the session's `notices.json` records a fingerprint of the problems it was told
//! about. The same problems are not repeated; a different set (the user fixed one, broke
//! another) is told again. Without a session id, or when the record cannot be written, the
//! note is repeated rather than lost.

use super::Ctx;
use crate::config::Problem;
use crate::env::Env;
use crate::protocol::Answer;
use crate::state::files::SCHEMA_VERSION;
use crate::state::{Change, StateFile};
use serde::{Deserialize, Serialize};

/// The session-scope file that remembers what the session was told.
pub const FILE: &str = "notices.json";

const TEMPLATE: &str = include_str!("../../templates/config/errors.md");
const SWITCHES: &str = include_str!("../../templates/config/switches.md");
const WITHHELD: &str = include_str!("../../templates/config/verify-untrusted.md");

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Notices {
    pub schema_version: u32,
    /// Fingerprint of the configuration problems last told, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_errors: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_errors_told_at: Option<String>,
    /// Fingerprint of the unreadable switch values last told, and when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_errors: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_errors_told_at: Option<String>,
    /// Fingerprint of the project's verify commands last told as not used (untrusted), and
    /// when.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_withheld: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_withheld_told_at: Option<String>,
}

/// Every switch value in `env` that could not be read (`DISABLE_OMC`, `OMC_SKIP_HOOKS`), as
/// sentences: for the hooks' diagnostic, the session's one notice and `doctor`.
pub fn switch_problems(env: &Env) -> Vec<String> {
    let mut out = env.switch_problems.clone();
    out.extend(crate::hooks::unknown_skip_tokens(&env.skip_hooks));
    out
}

/// SessionStart, UserPromptSubmit and Stop (events whose `systemMessage` the user sees).
pub fn run(ctx: &Ctx<'_>) -> Answer {
    let problems = ctx.config.problems();
    let switches = switch_problems(ctx.env);
    let withheld = ctx.config.withheld();
    if problems.is_empty() && switches.is_empty() && withheld.is_none() {
        return Answer::default();
    }
    let withheld_print = withheld.map(|w| {
        // The fingerprint's first 16 hex digits: the same lists, the same notice.
        let mut f = crate::capabilities::verify_trust::fingerprint(&w.lists);
        f.truncate(16);
        f
    });
    let mut tell_withheld = withheld_print.is_some();
    let config_print = (!problems.is_empty()).then(|| fingerprint(problems));
    let switch_print = (!switches.is_empty()).then(|| {
        fingerprint(
            &switches
                .iter()
                .map(|s| Problem {
                    key: String::new(),
                    problem: s.clone(),
                    fix: String::new(),
                })
                .collect::<Vec<_>>(),
        )
    });
    let (mut tell_config, mut tell_switches) = (config_print.is_some(), switch_print.is_some());
    let file = StateFile::new(&ctx.scope, FILE).filter(|_| ctx.scope.session_id().is_some());
    if let (Some(store), Some(file)) = (&ctx.store, file) {
        let now = crate::time::iso(ctx.now_ms);
        let told = store.update(&file, |n: Option<Notices>| {
            let mut n = n.unwrap_or_default();
            let new_config = config_print.is_some() && n.config_errors != config_print;
            let new_switches = switch_print.is_some() && n.switch_errors != switch_print;
            let new_withheld = withheld_print.is_some() && n.verify_withheld != withheld_print;
            if !new_config && !new_switches && !new_withheld {
                return (Change::Keep, (false, false, false));
            }
            n.schema_version = SCHEMA_VERSION;
            if new_config {
                n.config_errors.clone_from(&config_print);
                n.config_errors_told_at = Some(now.clone());
            }
            if new_switches {
                n.switch_errors.clone_from(&switch_print);
                n.switch_errors_told_at = Some(now.clone());
            }
            if new_withheld {
                n.verify_withheld.clone_from(&withheld_print);
                n.verify_withheld_told_at = Some(now);
            }
            (Change::Write(n), (new_config, new_switches, new_withheld))
        });
        match told {
            Ok(t) => (tell_config, tell_switches, tell_withheld) = t,
            Err(e) => crate::diag!("cannot record the config notice: {e}"),
        }
    }
    let mut parts = Vec::new();
    if tell_config {
        parts.push(message(ctx, problems));
    }
    if tell_switches {
        parts.push(crate::modes::fill(
            SWITCHES,
            &[("problems", &switches.join("; "))],
        ));
    }
    if let (true, Some(w)) = (tell_withheld, withheld) {
        parts.push(withheld_message(ctx, w));
    }
    if parts.is_empty() {
        return Answer::default();
    }
    Answer::system_message(parts.join("\n"))
}

/// The person's note that the project's verify commands are not used. It names the lists and
/// how many commands each holds, not the commands: on a client that shows this text to the
/// model too, an untrusted command must still not reach it (`doctor` and `trust` show them).
fn withheld_message(ctx: &Ctx<'_>, w: &crate::config::Withheld) -> String {
    let path = ctx.config.path().map_or_else(
        || ".omc/config.json".to_string(),
        |p| p.display().to_string(),
    );
    let lists = w
        .lists
        .iter()
        .map(|(key, cmds)| {
            let n = cmds.len();
            format!("`{key}`: {n} command{}", if n == 1 { "" } else { "s" })
        })
        .collect::<Vec<_>>()
        .join(", ");
    let why = if w.changed {
        "changed since you trusted them"
    } else {
        "are not trusted by you"
    };
    let user = crate::capabilities::verify_trust::user_path(ctx.env).map_or_else(
        || "your own omc-hooks config.json".to_string(),
        |p| p.display().to_string(),
    );
    crate::modes::fill(
        WITHHELD,
        &[
            ("path", &path),
            ("lists", &lists),
            ("why", why),
            ("user", &user),
        ],
    )
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
