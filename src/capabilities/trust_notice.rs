//! Tells the person, at the first session start after it, that the project's `hooks.toml`
//! was trusted (contract §17, issue 43): when, by whom, how it was confirmed, and what will
//! run. Trust is meant to come from the person; if a model found a way to give it anyway, the
//! person sees it at once instead of never. A `systemMessage` only (the person reads it; the
//! model has nothing to do about it).
//!
//! "Since the last session" needs no file of its own: the trust record's time is compared with
//! the latest start among the project's other sessions (their `session.json`) and with this
//! session's first start when it is resumed, so the message comes once, at the first start
//! after the trust.

use crate::capabilities::Ctx;
use crate::capabilities::memory::session_start::{MARKER, Marker};
use crate::config::hooks_toml::{Kind, Origin};
use crate::protocol::Answer;
use crate::state::trust;
use crate::state::{Scope, StateFile};

const TEXT: &str = include_str!("../../templates/user-hooks/trusted-since.md");

/// At most this many entries are listed; the rest are counted.
const MAX_LISTED: usize = 6;

pub fn on_session_start(ctx: &Ctx<'_>) -> Answer {
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let Some(file) = ctx
        .hook_files()
        .files
        .iter()
        .find(|f| f.origin == Origin::Project && !f.entries.is_empty())
    else {
        return Answer::default();
    };
    let trusted = trust::read(ctx.env);
    let key = trust::key(&file.path);
    let Some(record) = trust::entry_in(&trusted, &key).filter(|r| r.sha256 == file.sha256) else {
        return Answer::default();
    };
    let Some(at) = crate::time::parse_iso(&record.trusted_at) else {
        return Answer::default();
    };
    let start_of = |scope: &Scope| -> Option<Marker> {
        StateFile::new(scope, MARKER).and_then(|f| store.read::<Marker>(&f))
    };
    let own = ctx.scope.session_id().cloned();
    let mut last = store
        .sessions()
        .into_iter()
        .filter(|id| Some(id) != own.as_ref())
        .filter_map(|id| start_of(&Scope::Session(id)))
        .filter_map(|m| crate::time::parse_iso(&m.last_start_at))
        .max();
    if let Some(m) = start_of(&ctx.scope).filter(|m| m.starts > 1) {
        last = last.max(crate::time::parse_iso(&m.started_at));
    }
    if last.is_some_and(|l| l >= at) {
        return Answer::default();
    }
    let mut entries: Vec<String> = file
        .entries
        .iter()
        .filter(|e| e.enabled)
        .take(MAX_LISTED)
        .map(|e| {
            let what = match &e.kind {
                Kind::Script { command } => format!("runs `{command}`"),
                Kind::Webhook { url, .. } => format!("calls {url}"),
                Kind::Context => "adds context".to_string(),
                Kind::Export { sink_type } => format!("exports to a {sink_type} sink"),
            };
            let what = crate::redact::text(&what).map_or(what, |(t, _)| t);
            format!("{} {what}", e.events.join(", "))
        })
        .collect();
    let enabled = file.entries.iter().filter(|e| e.enabled).count();
    if enabled > MAX_LISTED {
        entries.push(format!("and {} more", enabled - MAX_LISTED));
    }
    let text = crate::modes::fill(
        TEXT.trim_end(),
        &[
            ("path", &file.path.display().to_string()),
            ("who_and_when", &record.who_and_when()),
            ("entries", &entries.join("; ")),
        ],
    );
    Answer::system_message(crate::terminal::visible(&text).into_owned())
}
