//! The plugin's slash commands, `/omc-hooks:ultraqa <task>`, `/omc-hooks:team <task>` and
//! `/omc-hooks:pipeline <task>`, on UserPromptSubmit.
//!
//! These three modes have no magic keyword (oh-my-claudecode starts them only as skills), so the
//! plugin ships one command each in `commands/`. Claude Code hands the UserPromptSubmit hook the
//! prompt exactly as typed, with the session id (tests/e2e/FINDINGS.md §11), and expands the
//! command's Markdown into the message the model reads. The run is started here — the same
//! code path as `omc-hooks mode start` — and the context says whether it started, with the
//! mode's instructions, or that it did not and why.
//!
//! Why not a `!`-command in the Markdown calling `omc-hooks mode start` itself: the client
//! pastes `$ARGUMENTS` into such a command line unescaped, so a task containing a quote breaks
//! it and one containing `$(…)` runs it (FINDINGS §11).

use super::start::{self, Started};
use crate::capabilities::Ctx;
use crate::modes::{self, ULTRAQA_MAX_CYCLES};
use crate::protocol::Answer;

const NO_TASK: &str = include_str!("../../../templates/modes/no-task.md");

/// The plugin's name in `.claude-plugin/plugin.json`: Claude Code's namespace for its commands.
pub const NAMESPACE: &str = "omc-hooks";

/// The modes with a slash command, and their instructions.
pub const COMMAND_MODES: [(&str, &str); 3] = [
    (
        "ultraqa",
        include_str!("../../../templates/modes/ultraqa.md"),
    ),
    ("team", include_str!("../../../templates/modes/team.md")),
    (
        "pipeline",
        include_str!("../../../templates/modes/pipeline.md"),
    ),
];

/// `(mode, task)` when the prompt is one of our commands: `/omc-hooks:<mode>` at its very start,
/// then whitespace or the end. The task may be empty.
pub fn parse(prompt: &str) -> Option<(&'static str, &str)> {
    let rest = prompt.trim_start().strip_prefix('/')?;
    let rest = rest.strip_prefix(NAMESPACE)?.strip_prefix(':')?;
    COMMAND_MODES.iter().find_map(|(mode, _)| {
        let after = rest.strip_prefix(mode)?;
        (after.is_empty() || after.starts_with(char::is_whitespace)).then(|| (*mode, after.trim()))
    })
}

/// UserPromptSubmit: start the commanded run and say what happened.
pub fn on_prompt(ctx: &Ctx<'_>) -> Answer {
    let Some((mode, task)) = ctx.input.prompt.as_deref().and_then(parse) else {
        return Answer::default();
    };
    let header = format!("[OMC-HOOKS COMMAND: {}]", mode.to_ascii_uppercase());
    if task.is_empty() {
        let text = modes::fill(
            NO_TASK,
            &[("MODE", &mode.to_ascii_uppercase()), ("mode", mode)],
        );
        return Answer::context(format!("{header}\n\n{text}"));
    }
    if ctx.env.team_worker {
        return Answer::default();
    }
    let started = match &ctx.store {
        Some(store) => start::start(
            store,
            &ctx.scope,
            mode,
            &crate::capabilities::keywords::stored_prompt(task),
            ctx.now_ms,
            &ctx.config,
            Some(ctx.input.agent.name()),
            ctx.input.transcript_path.as_deref(),
        ),
        None => Err(start::no_project()),
    };
    match started {
        Ok(run) => Answer::context(format!("{header}\n\n{}", instructions(ctx, mode, &run))),
        Err(problem) => {
            crate::diag!("cannot start {mode}: {}", problem.cause());
            Answer::context(format!(
                "{header}\n\n{}",
                start::not_started(mode, &problem)
            ))
        }
    }
}

/// The mode's instructions with this run's numbers.
fn instructions(ctx: &Ctx<'_>, mode: &str, run: &Started) -> String {
    let template = COMMAND_MODES
        .iter()
        .find(|(m, _)| *m == mode)
        .map_or("", |(_, t)| t);
    let session_flag = ctx
        .scope
        .session_id()
        .map(|id| format!(" --session {id}"))
        .unwrap_or_default();
    modes::fill(
        template,
        &[
            ("max_iterations", &run.state.max_iterations.to_string()),
            ("max_cycles", &ULTRAQA_MAX_CYCLES.to_string()),
            ("bin", &super::bin(ctx)),
            ("session_flag", &session_flag),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_commands_at_the_start_of_the_prompt() {
        assert_eq!(
            parse("/omc-hooks:ultraqa the login flow"),
            Some(("ultraqa", "the login flow"))
        );
        assert_eq!(
            parse("  /omc-hooks:team\tbuild it "),
            Some(("team", "build it"))
        );
        assert_eq!(parse("/omc-hooks:pipeline"), Some(("pipeline", "")));
        for not_ours in [
            "/omc-hooks:ultraqax the login",
            "/omc-hooks:ralph fix it",
            "/omc:ultraqa the login",
            "please /omc-hooks:ultraqa the login",
            "/other:ultraqa x",
            "ultraqa the login flow",
        ] {
            assert_eq!(parse(not_ours), None, "{not_ours}");
        }
    }

    /// Compares `got` with `snapshots/<name>`; `OMC_UPDATE_SNAPSHOTS=1` rewrites the file.
    #[track_caller]
    fn snapshot(name: &str, got: &str) {
        crate::capabilities::snapshot("src/capabilities/persistent_mode/snapshots", name, got);
    }

    #[test]
    fn the_command_texts_are_pinned() {
        for (mode, template) in COMMAND_MODES {
            let got = modes::fill(
                template,
                &[
                    ("max_iterations", "30"),
                    ("max_cycles", "10"),
                    ("bin", "omc-hooks"),
                    ("session_flag", " --session s1"),
                ],
            );
            assert!(!got.contains("{{"), "{mode}: {got}");
            snapshot(&format!("{mode}-command.txt"), &got);
        }
        let p = crate::state::health::WriteProblem::Symlink("/p/.omc/state".into());
        snapshot(
            "not-started-symlink.txt",
            &start::not_started("ultraqa", &p),
        );
    }

    #[test]
    fn every_command_mode_is_persistent_and_its_text_says_how_to_end() {
        for (mode, text) in COMMAND_MODES {
            assert!(modes::is_persistent(mode), "{mode}");
            assert!(text.contains("{{max_iterations}}"), "{mode}");
            assert!(
                text.contains("cancelomc") && text.contains("<omc-needs-input/>"),
                "{mode}"
            );
            assert!(
                modes::KEYWORD_CHAIN.iter().all(|k| k != &mode),
                "{mode} has a keyword; it needs no command"
            );
        }
    }
}
