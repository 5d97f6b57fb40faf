//! An entry's `matcher`: which tool (or source, reason, trigger, agent type) it runs for.
//!
//! Deliberately small: `|`-separated alternatives, each an exact, case-sensitive name in which
//! `*` stands for any run of characters (`mcp__github__*`). No regular expressions — Claude
//! Code's unanchored regexes are a known source of surprises (`Edit` also matching
//! `NotebookEdit`), and a hook that fires for the wrong tool is worse than one that does not.

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matcher {
    /// Empty means "everything".
    alternatives: Vec<String>,
}

impl Matcher {
    pub fn any() -> Matcher {
        Matcher {
            alternatives: Vec::new(),
        }
    }

    pub fn parse(text: &str) -> Result<Matcher, String> {
        let alternatives: Vec<String> = text.split('|').map(|a| a.trim().to_string()).collect();
        if alternatives.iter().any(|a| a == "*") || text.trim().is_empty() {
            return Ok(Matcher::any());
        }
        if alternatives.iter().any(String::is_empty) {
            return Err(format!("{text:?} has an empty alternative"));
        }
        Ok(Matcher { alternatives })
    }

    pub fn is_any(&self) -> bool {
        self.alternatives.is_empty()
    }

    /// Whether the matcher accepts `subject`. With no subject (an event that has none) every
    /// matcher accepts, as Claude Code ignores matchers there.
    pub fn accepts(&self, subject: Option<&str>) -> bool {
        match subject {
            _ if self.is_any() => true,
            None => true,
            Some(s) => self.alternatives.iter().any(|a| glob(a, s)),
        }
    }
}

/// What a matcher is compared with on `event`, by name of the payload field.
pub fn subject_of(event: &str) -> Option<&'static str> {
    match event {
        "pre-tool-use"
        | "permission-request"
        | "permission-denied"
        | "post-tool-use"
        | "post-tool-use-failure" => Some("tool_name"),
        "session-start" => Some("source"),
        "session-end" => Some("reason"),
        "pre-compact" => Some("trigger"),
        "subagent-start" | "subagent-stop" => Some("agent_type"),
        "stop-failure" => Some("error"),
        "notification" => Some("notification_type"),
        _ => None,
    }
}

/// `*` matches any run of characters; everything else literally.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    if !text.ends_with(last) {
        return false;
    }
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Matcher {
        Matcher::parse(s).unwrap()
    }

    #[test]
    fn exact_alternatives_and_star() {
        assert!(m("Bash").accepts(Some("Bash")));
        assert!(!m("Bash").accepts(Some("bash")));
        assert!(!m("Edit").accepts(Some("NotebookEdit")));
        assert!(m("Edit | Write").accepts(Some("Write")));
        assert!(m("*").accepts(Some("anything")));
        assert!(m("").accepts(Some("anything")));
        assert!(m("Bash|*").is_any());
        assert!(Matcher::parse("Bash||Edit").is_err());
    }

    #[test]
    fn globs() {
        assert!(m("mcp__github__*").accepts(Some("mcp__github__create_issue")));
        assert!(!m("mcp__github__*").accepts(Some("mcp__gitlab__x")));
        assert!(m("*Edit").accepts(Some("NotebookEdit")));
        assert!(m("a*b*c").accepts(Some("aXbYc")));
        assert!(!m("a*b*c").accepts(Some("aXcYb")));
        assert!(!m("ab*ba").accepts(Some("aba")));
    }

    #[test]
    fn events_without_a_subject_ignore_the_matcher() {
        assert_eq!(subject_of("stop"), None);
        assert!(m("Bash").accepts(None));
        assert!(!m("Bash").accepts(Some("")));
    }
}
