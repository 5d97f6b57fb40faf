//! An early notice of a filling context window, as OMC's post-tool verifier gives one at 70 %:
//! when a tool call leaves the context at or above `context.notice_percent` of
//! `.omc/config.json` (default [`DEFAULT_PERCENT`]; 0 switches it off), the model and the person
//! are told once — again only after the fill has dropped below the threshold (a compaction)
//! and risen to it anew. The fill is the one the Stop hold reads
//! ([`crate::capabilities::persistent_mode::guards::context_percent`]).

use super::Ctx;
use crate::capabilities::persistent_mode::guards::context_percent;
use crate::protocol::Answer;
use crate::state::{Change, StateFile};
use serde::{Deserialize, Serialize};

/// The session's record: whether the fill was last seen above the threshold.
pub const FILE: &str = "context-notice.json";
/// The threshold when the configuration sets none.
pub const DEFAULT_PERCENT: u32 = 80;

const NOTICE: &str = include_str!("../../templates/context-notice/notice.md");

#[derive(Debug, Default, Serialize, Deserialize)]
struct Seen {
    #[serde(default)]
    schema_version: u32,
    /// The fill was at or above the threshold when last read.
    #[serde(default)]
    above: bool,
    /// The fill noticed last, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    percent: Option<u64>,
}

/// PostToolUse: the notice, when the fill crossed the threshold.
pub fn on_post_tool_use(ctx: &Ctx<'_>) -> Answer {
    let threshold = ctx
        .config
        .u32_at("context/notice_percent")
        .unwrap_or(DEFAULT_PERCENT);
    if threshold == 0 {
        return Answer::default();
    }
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    let Some(percent) = context_percent(ctx.input) else {
        return Answer::default();
    };
    let above = percent >= u64::from(threshold);
    let Some(file) = StateFile::new(&ctx.scope, FILE) else {
        return Answer::default();
    };
    // Most tool calls leave the fill on the same side: read without the lock, which is only
    // taken (its lock file made, and removed again while there is no record) for a change.
    if store.read::<Seen>(&file).unwrap_or_default().above == above {
        return Answer::default();
    }
    let crossed = store.update(&file, |s: Option<Seen>| {
        let s = s.unwrap_or_default();
        if s.above == above {
            return (Change::Keep, false);
        }
        let next = Seen {
            schema_version: crate::state::files::SCHEMA_VERSION,
            above,
            percent: above.then_some(percent),
        };
        (Change::Write(next), above)
    });
    match crossed {
        Ok(true) => {
            let text = NOTICE
                .trim_end()
                .replace("{percent}", &percent.to_string())
                .replace("{threshold}", &threshold.to_string());
            Answer::context(text).with_system_message(format!(
                "omc-hooks: the context window is {percent}% full; plan a /compact soon"
            ))
        }
        Ok(false) => Answer::default(),
        Err(e) => {
            crate::diag!("context notice: cannot record the fill: {e}; no notice");
            Answer::default()
        }
    }
}
