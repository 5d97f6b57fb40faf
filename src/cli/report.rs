//! What `doctor` found, as it goes: one line per thing looked at, notes, and problems each with
//! its fix. A type of its own so that the checks `doctor` calls in other files
//! (`agent_install/check.rs`, `agent_trace.rs`) write into it without reaching back into
//! `doctor.rs`, which calls them.

#[derive(Default)]
pub(super) struct Report {
    pub(super) lines: Vec<(String, String)>,
    pub(super) notes: Vec<String>,
    pub(super) problems: Vec<(String, String)>,
}

impl Report {
    pub(super) fn line(&mut self, key: &str, text: impl Into<String>) {
        self.lines.push((key.to_string(), text.into()));
    }
    pub(super) fn problem(&mut self, what: impl Into<String>, fix: impl Into<String>) {
        self.problems.push((what.into(), fix.into()));
    }
    pub(super) fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    /// The report as `doctor` prints it.
    pub(super) fn render(&self) -> String {
        let mut s = String::from("omc-hooks doctor\n\n");
        for (k, v) in &self.lines {
            s.push_str(&format!("  {k:<9} {v}\n"));
        }
        if !self.notes.is_empty() {
            s.push_str("\nNotes:\n");
            for n in &self.notes {
                s.push_str(&format!("  - {n}\n"));
            }
        }
        if self.problems.is_empty() {
            s.push_str("\nNo problems found.\n");
        } else {
            let n = self.problems.len();
            s.push_str(&format!(
                "\n{n} problem{} found:\n",
                if n == 1 { "" } else { "s" }
            ));
            for (i, (what, fix)) in self.problems.iter().enumerate() {
                s.push_str(&format!("  {}. {what}\n     fix: {fix}\n", i + 1));
            }
        }
        s
    }
}
