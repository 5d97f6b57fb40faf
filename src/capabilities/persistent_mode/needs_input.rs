//! When the model hands the turn back to the user, Stop lets it go instead of sending the
//! model back — for persistent modes and skill guards alike. The run (or guard) stays and
//! resumes with the user's next prompt.
//!
//! Two signals, both in the model's final message (`last_assistant_message`):
//!
//! * the documented marker [`NEEDS_INPUT_TOKEN`] (`<omc-needs-input/>`), anywhere, which the
//!   mode and guard texts teach;
//! * an ordinary question to the user **at the end** of the message: its last line of prose
//!   ends with `?`. A question followed by anything else ("Should I continue? I'll keep
//!   going.") is the model talking to itself and hands nothing back; so is a question inside a
//!   block quote or a code block. In a persistent mode, a bare request for permission to go on
//!   ("Should I continue?", "Want me to keep going with the tests?") is not handed back either:
//!   the user already said to keep going by starting the run, and the continuation text tells
//!   the model not to ask. A choice ("… or …") is a real question and is handed back.

/// What the model writes when it cannot go on without the user.
pub const NEEDS_INPUT_TOKEN: &str = "<omc-needs-input/>";

/// Who would otherwise send the model back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asker {
    PersistentMode,
    SkillGuard,
}

/// Why the turn goes back to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandBack {
    /// The message carries [`NEEDS_INPUT_TOKEN`].
    Marker,
    /// The message ends with a question to the user.
    Question,
}

impl HandBack {
    /// For the person's note: "the model <how>".
    pub fn how(self) -> &'static str {
        match self {
            HandBack::Marker => "says it needs your input",
            HandBack::Question => "asked you a question",
        }
    }
}

/// Whether the final message hands the turn back to the user.
pub fn hands_back(message: &str, asker: Asker) -> Option<HandBack> {
    if has_marker(message) {
        return Some(HandBack::Marker);
    }
    let last = last_prose_line(message)?;
    if last.starts_with('>') {
        return None;
    }
    let trimmed = last.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '_' | ')' | ']' | '"' | '\'' | '”' | '’' | '`')
    });
    if !(trimmed.ends_with('?') || trimmed.ends_with('？')) {
        return None;
    }
    if asker == Asker::PersistentMode && asks_permission_to_go_on(last_sentence(trimmed)) {
        return None;
    }
    Some(HandBack::Question)
}

fn has_marker(message: &str) -> bool {
    message.contains(NEEDS_INPUT_TOKEN)
        || message.contains("<omc-needs-input />")
        || message.contains("<omc-needs-input></omc-needs-input>")
}

/// The message's last non-empty line, or `None` when the message ends inside or with a code
/// block (then its last words are code, not a question to anyone).
fn last_prose_line(message: &str) -> Option<&str> {
    let mut in_fence = false;
    let mut last: Option<&str> = None;
    let mut ended_with_code = false;
    for line in message.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            ended_with_code = true;
            continue;
        }
        if t.is_empty() {
            continue;
        }
        ended_with_code = in_fence;
        if !in_fence {
            last = Some(t);
        }
    }
    if ended_with_code || in_fence {
        return None;
    }
    last
}

/// The last sentence of a line that ends with a question mark.
fn last_sentence(line: &str) -> &str {
    let body = line.trim_end_matches(['?', '？']);
    let start = body
        .char_indices()
        .rev()
        .find(|(i, c)| {
            matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | ':')
                && body[i + c.len_utf8()..].starts_with(' ')
        })
        .map_or(0, |(i, c)| i + c.len_utf8());
    line[start..].trim()
}

/// "Should I continue?", "Shall I proceed with the next step?", "Want me to keep going?" —
/// asking leave to do what the run is for. Short, and offering no alternative.
fn asks_permission_to_go_on(sentence: &str) -> bool {
    const ASKS: &[&str] = &[
        "should i ",
        "shall i ",
        "may i ",
        "can i ",
        "do you want me to ",
        "would you like me to ",
        "want me to ",
        "ok to ",
        "okay to ",
        "ready for me to ",
    ];
    const GO_ON: &[&str] = &[
        "continue",
        "proceed",
        "keep going",
        "go on",
        "carry on",
        "move on",
    ];
    let s = sentence
        .trim_start_matches(|c: char| c == '-' || c == '*' || c.is_whitespace())
        .trim_end_matches(['?', '？'])
        .to_lowercase();
    if s.contains(" or ") || s.split_whitespace().count() > 10 {
        return false;
    }
    let rest = ASKS.iter().find_map(|a| s.strip_prefix(a)).unwrap_or(&s);
    GO_ON.iter().any(|g| rest.starts_with(g))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PM: Asker = Asker::PersistentMode;
    const SG: Asker = Asker::SkillGuard;

    #[test]
    fn a_blocked_model_asking_the_user_hands_back() {
        let m = "I am blocked: the tests need a DATABASE_URL. Which database should I use?";
        assert_eq!(hands_back(m, PM), Some(HandBack::Question));
        assert_eq!(hands_back(m, SG), Some(HandBack::Question));
        let listed = "Two things before I go on:\n\n1. Which port?\n2. **Which database?**\n";
        assert_eq!(hands_back(listed, PM), Some(HandBack::Question));
        assert_eq!(
            hands_back("Postgres or SQLite？", PM),
            Some(HandBack::Question)
        );
    }

    #[test]
    fn the_marker_hands_back_anywhere() {
        let m = "<omc-needs-input/>\nI need the staging API key to run the integration tests.";
        assert_eq!(hands_back(m, PM), Some(HandBack::Marker));
        assert_eq!(
            hands_back("waiting <omc-needs-input />", SG),
            Some(HandBack::Marker)
        );
    }

    #[test]
    fn a_question_followed_by_more_work_does_not() {
        for m in [
            "Should I continue? I'll keep going with the parser.",
            "Why does the test fail? Because the fixture is stale. Fixing it now.",
            "Which database?\n\nI'll use SQLite for now, as the README suggests.",
            "Fixed two tests.",
            "",
        ] {
            assert_eq!(hands_back(m, PM), None, "{m:?}");
        }
    }

    #[test]
    fn questions_in_code_or_quotes_do_not() {
        for m in [
            "Here is the prompt I used:\n```\nWhat is wrong?\n```",
            "The user wrote:\n> Can you fix this?",
            "Still running:\n```sh\nread -p 'Continue?'",
        ] {
            assert_eq!(hands_back(m, PM), None, "{m:?}");
        }
    }

    #[test]
    fn asking_leave_to_go_on_hands_back_only_from_a_skill() {
        for m in [
            "Tests for the tokenizer pass. Should I continue?",
            "Done with step 2. Shall I proceed with step 3?",
            "Want me to keep going?",
            "- Do you want me to continue with the remaining files?",
        ] {
            assert_eq!(hands_back(m, PM), None, "{m:?}");
            assert_eq!(hands_back(m, SG), Some(HandBack::Question), "{m:?}");
        }
        // A choice is a real question, even when it starts like a request for leave.
        let choice = "Should I continue with Postgres or switch to SQLite?";
        assert_eq!(hands_back(choice, PM), Some(HandBack::Question));
    }
}
