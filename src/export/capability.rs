//! The `export` capability: runs after every other capability of every hook subcommand, and
//! spools the invocation for the configured sinks. With no sink configured it returns at once
//! (the cost of export off is reading a few environment entries).

use super::{ExportEvent, enqueue, sources};
use crate::capabilities::Ctx;
use crate::protocol::Answer;

/// Spools this hook invocation; never changes the answer.
pub fn run(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    // Notification sinks hear of runs and sessions (`capabilities::run_events`), not of hook
    // events — a hook named `session-end` is not the session-end notification.
    let mut sinks = sources::all(store, ctx.env);
    sinks.retain(|s| !matches!(s.kind, super::SinkKind::Notify(_)));
    if sinks.is_empty() {
        return Answer::default();
    }
    let event = ExportEvent::from_ctx(ctx);
    let done = enqueue(store, ctx.env, &event, &sinks);
    if ctx.env.debug {
        crate::diag!("export: {done:?}");
    }
    Answer::default()
}
