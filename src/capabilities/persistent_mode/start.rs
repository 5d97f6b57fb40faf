//! Starting a persistent mode's run: the one code path behind a magic keyword, the plugin's
//! slash commands (`/omc-hooks:ultraqa <task>`) and `omc-hooks mode start <mode> "<task>"`.
//!
//! A run exists only once its state file is written. When the write fails, the caller gets the
//! cause ([`WriteProblem`]) and the model is told in one sentence that the mode did **not**
//! start and why ([`not_started`]) — never the mode's instructions, which promise a Stop hook
//! that would not come.

use crate::config::Config;
use crate::modes::{self, max_iterations, state_file_name};
use crate::state::files::ModeState;
use crate::state::health::WriteProblem;
use crate::state::{Change, Scope, StateFile, Store};

const NOT_STARTED: &str = include_str!("../../../templates/modes/not-started.md");

/// A run as written.
#[derive(Debug, Clone)]
pub struct Started {
    pub state: ModeState,
    pub file: StateFile,
}

/// Writes a fresh run of `mode` for `scope` (restarting one that is already active): iteration
/// 1, `prompt` as its task, the limit [`max_iterations`] gives (configuration, defaults and the
/// environment's hard maximum, all applied) and the time budget [`modes::max_minutes`] gives
/// (none by default). `agent` is the agent the run was started from
/// (its hooks' `--agent`), recorded for `status`; `None` from the command line.
/// `transcript` is the session file the event named (`transcript_path`): the run's token
/// count begins where it stands now ([`crate::state::usage::cursor_at_end`]).
#[allow(clippy::too_many_arguments)]
pub fn start(
    store: &Store,
    scope: &Scope,
    mode: &str,
    prompt: &str,
    now_ms: i64,
    config: &Config,
    agent: Option<&str>,
    transcript: Option<&str>,
) -> Result<Started, WriteProblem> {
    let file = StateFile::new(scope, &state_file_name(mode))
        .ok_or_else(|| WriteProblem::Other(format!("'{mode}' is not a mode name")))?;
    let state = ModeState::start(
        mode,
        scope.session_id().map(|s| s.as_str()),
        &store.project().display().to_string(),
        prompt,
        &crate::time::iso(now_ms),
        max_iterations(mode, config),
    );
    let mut state = state;
    state.set_time_budget(modes::max_minutes(mode, config), now_ms);
    state.max_tokens = modes::max_tokens(mode, config);
    state.max_cost_usd = modes::max_cost_usd(mode, config);
    state.token_cursor = transcript.and_then(crate::state::usage::cursor_at_end);
    if let Some(agent) = agent {
        state.extra.insert("agent".into(), agent.into());
    }
    let written = state.clone();
    store
        .update(&file, |_: Option<ModeState>| (Change::Write(written), ()))
        .map_err(|e| WriteProblem::from_io(&e, store.omc_dir()))?;
    Ok(Started { state, file })
}

/// Why a run could not be started when no project (so no state directory) was found.
pub fn no_project() -> WriteProblem {
    WriteProblem::Other(
        "no project directory could be found for this session (no usable working directory)".into(),
    )
}

/// The one-sentence text the model reads instead of a mode's instructions when its run could
/// not be written.
pub fn not_started(mode: &str, problem: &WriteProblem) -> String {
    modes::fill(
        NOT_STARTED,
        &[
            ("MODE", &mode.to_ascii_uppercase()),
            ("mode", mode),
            ("cause", &problem.cause()),
            ("fix", &problem.fix()),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Root;

    #[test]
    fn a_failed_write_says_the_mode_did_not_start_in_one_sentence() {
        let p = WriteProblem::ReadOnly("/p/.omc".into());
        assert_eq!(
            not_started("ralph", &p),
            "[RALPH NOT STARTED] omc-hooks could not save the ralph run because /p/.omc is on a \
             read-only filesystem, so no Stop hook will send you back: treat the request as an \
             ordinary one and tell the user that ralph did not start (fix: make the project \
             writable (remount it read-write), or set OMC_STATE_DIR to a writable directory)."
        );
    }

    #[test]
    fn start_writes_the_limit_in_force() {
        let t = tempfile::tempdir().unwrap();
        let store = Store::new(
            Root {
                project: t.path().into(),
                omc: t.path().join(".omc"),
            },
            0,
        );
        let env = crate::env::Env::from_lookup(
            |_| None,
            None,
            [("OMC_RALPH_HARD_MAX".to_string(), "3".to_string())].into(),
        );
        let config = Config::default().with_env(&env);
        let scope = Scope::for_session(Some("s1"));
        let run = start(
            &store,
            &scope,
            "ultraqa",
            "the login flow",
            0,
            &config,
            Some("codex"),
            None,
        )
        .unwrap();
        assert_eq!(run.state.max_iterations, 3);
        let back: ModeState = store.read(&run.file).unwrap();
        assert_eq!(back, run.state);
        // The agent it was started from, for `status` (kept beside OMC's fields).
        assert_eq!(back.extra["agent"], "codex");
    }
}
