//! The `export` capability: runs after every other capability of every hook subcommand, and
//! spools the invocation for the configured sinks (`crate::export`). With no sink configured
//! it returns at once (the cost of export off is reading a few environment entries).
//!
//! It lives here, with the other capabilities, because it is one: it reads the hook's `Ctx`
//! and the state the capabilities before it left (the session's top run, the tool-failure
//! count) and hands `crate::export` a finished [`ExportEvent`]; the export module below it
//! knows nothing of capabilities.

use super::{Ctx, tool_failure};
use crate::export::{ExportEvent, enqueue, sources};
use crate::modes;
use crate::protocol::Answer;
use crate::state::files::ModeState;
use crate::state::{Scope, StateFile, Store};

/// Spools this hook invocation; never changes the answer.
pub fn run(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    // Notification sinks hear of runs and sessions (`super::run_events`), not of hook events:
    // the hook named `session-end` is not the session-end notification.
    let mut sinks = sources::all_in(ctx.hook_files(), ctx.env);
    sinks.retain(|s| !matches!(s.kind, crate::export::SinkKind::Notify(_)));
    if sinks.is_empty() {
        return Answer::default();
    }
    let event = event_of(ctx, store);
    let done = enqueue(store, ctx.env, &event, &sinks);
    if ctx.env.debug {
        crate::diag!("export: {done:?}");
    }
    Answer::default()
}

/// The event for the hook this capability runs in, with the session's active mode and
/// iteration and the tool-failure count read from the state (after the capabilities that ran
/// before it changed them).
fn event_of(ctx: &Ctx<'_>, store: &Store) -> ExportEvent {
    // The agent the hook was installed for (`--agent`; Claude Code when none was said).
    let mut ev = ExportEvent::new(ctx.hook.name, ctx.input.agent.name(), ctx.input, ctx.now_ms);
    if let Some((mode, iteration)) = active_mode(store, &ctx.scope) {
        ev.mode = Some(mode);
        ev.iteration = Some(iteration);
    }
    ev.failure_count = StateFile::new(&ctx.scope, tool_failure::FILE)
        .and_then(|f| store.read::<tool_failure::ToolError>(&f))
        .map(|e| e.retry_count);
    ev
}

/// The highest-priority active run in the scope, from one listing and at most one read each
/// of the mode files present.
fn active_mode(store: &Store, scope: &Scope) -> Option<(String, u32)> {
    let present = store.list(scope, None);
    modes::PERSISTENT.iter().find_map(|mode| {
        let name = modes::state_file_name(mode);
        if !present.contains(&name) {
            return None;
        }
        let file = StateFile::new(scope, &name)?;
        let st: ModeState = store.read(&file)?;
        st.active.then(|| ((*mode).to_string(), st.iteration))
    })
}
