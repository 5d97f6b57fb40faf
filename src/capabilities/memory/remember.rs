//! `<remember>` notes: a subagent (or a tool it ran) that writes `<remember>…</remember>` in
//! what it hands back asks for the note to outlive the context — as OMC's post-tool verifier
//! does with Task output. `<remember priority>…</remember>` goes to the notepad's Priority
//! Context (shown at every session start), a plain one to a dated Working Memory entry
//! (pruned as every entry there is). Notes already in their section are not added again; the
//! notepad's writes are redacted like every state write.
//!
//! Read from PostToolUse of the subagent tools (`Task`, `Agent`) and from SubagentStop's last
//! message. Says nothing to the model.

use super::notepad::{self, Note};
use crate::capabilities::Ctx;
use crate::protocol::Answer;
use serde_json::Value;

/// The tools whose result is a subagent's report.
const SUBAGENT_TOOLS: &[&str] = &["Task", "Agent"];
/// At most this many notes are taken from one output.
pub const MAX_NOTES: usize = 10;
/// A note is cut to this many characters.
pub const MAX_NOTE_CHARS: usize = 500;
/// At most this much of an output is searched.
const MAX_SCAN_BYTES: usize = 1024 * 1024;

/// PostToolUse: notes in a subagent tool's result.
pub fn on_post_tool_use(ctx: &Ctx<'_>) -> Answer {
    let tool = ctx.input.tool_name.as_deref().unwrap_or("");
    if !SUBAGENT_TOOLS.contains(&tool) {
        return Answer::default();
    }
    let mut text = String::new();
    if let Some(r) = &ctx.input.tool_response {
        strings(r, &mut text);
    }
    save(ctx, &text)
}

/// SubagentStop: notes in the subagent's last message.
pub fn on_subagent_stop(ctx: &Ctx<'_>) -> Answer {
    let text = ctx.input.last_assistant_message.clone().unwrap_or_default();
    save(ctx, &text)
}

fn save(ctx: &Ctx<'_>, text: &str) -> Answer {
    let notes = notes(text);
    if notes.is_empty() {
        return Answer::default();
    }
    let Some(store) = &ctx.store else {
        return Answer::default();
    };
    if let Err(e) = notepad::add_notes(store, ctx.now_ms, &notes) {
        crate::diag!("{}: <remember> notes not saved: {e}", ctx.hook.name);
    }
    Answer::default()
}

/// Every string in a JSON value, joined by newlines, up to [`MAX_SCAN_BYTES`].
fn strings(v: &Value, out: &mut String) {
    if out.len() >= MAX_SCAN_BYTES {
        return;
    }
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The `<remember>` and `<remember priority>` notes of `text`, in order, trimmed, each cut
/// to [`MAX_NOTE_CHARS`], empty ones and repeats left out, at most [`MAX_NOTES`].
pub fn notes(text: &str) -> Vec<Note> {
    let text = &text[..floor(text, MAX_SCAN_BYTES)];
    let mut out: Vec<Note> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("<remember") {
        let after = &rest[i + "<remember".len()..];
        let Some(close) = after.find('>') else { break };
        let attrs = after[..close].trim();
        if !(attrs.is_empty() || attrs == "priority") {
            rest = after;
            continue;
        }
        let body = &after[close + 1..];
        let Some(end) = body.find("</remember>") else {
            break;
        };
        let note: String = body[..end].trim().chars().take(MAX_NOTE_CHARS).collect();
        let note = note.trim().to_string();
        let n = Note {
            priority: attrs == "priority",
            text: note,
        };
        if !n.text.is_empty() && !out.contains(&n) {
            out.push(n);
        }
        if out.len() == MAX_NOTES {
            break;
        }
        rest = &body[end + "</remember>".len()..];
    }
    out
}

fn floor(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut i = max;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kinds_in_order_without_repeats_or_strangers() {
        let t = "done.\n<remember priority>Deploys need VPN</remember> and \
                 <remember>\n  the cache lives in /var/c \n</remember>\
                 <remember>the cache lives in /var/c</remember><remember foo>x</remember>\
                 <remember></remember><remember>unclosed";
        assert_eq!(
            notes(t),
            vec![
                Note {
                    priority: true,
                    text: "Deploys need VPN".into()
                },
                Note {
                    priority: false,
                    text: "the cache lives in /var/c".into()
                },
            ]
        );
        let many: String = (0..20)
            .map(|i| format!("<remember>n{i}</remember>"))
            .collect();
        assert_eq!(notes(&many).len(), MAX_NOTES);
        let long = format!("<remember>{}</remember>", "é".repeat(900));
        assert_eq!(notes(&long)[0].text.chars().count(), MAX_NOTE_CHARS);
    }
}
