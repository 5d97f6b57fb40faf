//! Coming from oh-my-claudecode (OMC): recognising its `.omc/` directory (for `doctor`: what
//! carries over, what does not) and its hooks in Claude Code's settings (for `install`: two
//! Stop loops in one session fight each other, so OMC's are switched off on request).
//!
//! Both tools keep their state in `.omc/`, with some file names in common. What "carries over"
//! is decided by reading each file with this build's own readers, not by its name alone.

use crate::capabilities::learned_skills;
use crate::capabilities::memory::{notepad, project_memory};
use crate::capabilities::skill_guard::stack::SkillStack;
use crate::capabilities::tool_failure::ToolError;
use crate::modes::PERSISTENT;
use crate::state::files::ModeState;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The plugin name OMC's marketplace entry uses (`oh-my-claudecode@<marketplace>`).
const PLUGIN: &str = "oh-my-claudecode";

/// OMC's hook scripts whose work omc-hooks does: its keyword detector and its Stop loop. These
/// tokens of OMC's `OMC_SKIP_HOOKS` switch OMC's scripts off — and ours too, as a person
/// coming from OMC expects, unless [`OMC_ONLY_VAR`] says they are OMC's alone, which install
/// sets beside them.
pub(super) const SKIP_TOKENS: [&str; 2] = ["keyword-detector", "persistent-mode"];

/// The variable that keeps OMC's script names in `OMC_SKIP_HOOKS` from skipping our work.
pub(super) const OMC_ONLY_VAR: &str = "OMC_SKIP_HOOKS_OMC_ONLY";

/// Whether the settings' value of [`OMC_ONLY_VAR`] is on.
pub(super) fn omc_only_set(value: Option<&str>) -> bool {
    value.and_then(crate::env::flag).unwrap_or(false)
}

/// The ids of OMC plugins that are on, given the `enabledPlugins` of the settings layers in
/// the order Claude Code applies them (user, project, local: a later one wins).
pub(super) fn enabled_plugins(layers: &[Value]) -> Vec<String> {
    let mut state: Vec<(String, bool)> = Vec::new();
    for layer in layers {
        let Some(map) = layer.get("enabledPlugins").and_then(Value::as_object) else {
            continue;
        };
        for (id, on) in map {
            if id.split('@').next() != Some(PLUGIN) {
                continue;
            }
            let on = on.as_bool().unwrap_or(false);
            match state.iter_mut().find(|(i, _)| i == id) {
                Some(s) => s.1 = on,
                None => state.push((id.clone(), on)),
            }
        }
    }
    state
        .into_iter()
        .filter_map(|(id, on)| on.then_some(id))
        .collect()
}

/// OMC hook commands in a settings value (its standalone install writes them there).
pub(super) fn hook_commands(settings: &Value) -> Vec<String> {
    super::settings::merge::handlers(settings)
        .into_iter()
        .filter_map(|h| h.handler.get("command").and_then(Value::as_str))
        .filter(|c| is_omc_command(c))
        .map(str::to_string)
        .collect()
}

fn is_omc_command(c: &str) -> bool {
    c.contains(PLUGIN)
        || [
            "keyword-detector.",
            "persistent-mode.",
            "pre-tool-enforcer.",
        ]
        .iter()
        .any(|s| c.contains(s))
}

/// Whether `OMC_SKIP_HOOKS` (as a settings `env` value) already switches OMC's loops off.
pub(super) fn skip_tokens_set(value: Option<&str>) -> bool {
    let have: Vec<&str> = value.unwrap_or("").split(',').map(str::trim).collect();
    SKIP_TOKENS.iter().all(|t| have.contains(t))
}

/// `OMC_SKIP_HOOKS` with our tokens added to what was there.
pub(super) fn with_skip_tokens(value: Option<&str>) -> String {
    let mut out: Vec<String> = value
        .unwrap_or("")
        .split(',')
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    for t in SKIP_TOKENS {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    }
    out.join(",")
}

// --------------------------------------------------------------------- doctor

/// What `doctor` reports about oh-my-claudecode.
#[derive(Debug, Default)]
pub(super) struct DoctorOut {
    pub(super) line: Option<String>,
    pub(super) notes: Vec<String>,
    pub(super) problems: Vec<(String, String)>,
}

/// OMC's state in `omc_dir` and OMC's hooks in the settings `layers` (user, project, local).
pub(super) fn doctor(omc_dir: Option<&Path>, layers: &[Value]) -> DoctorOut {
    let mut out = DoctorOut::default();
    if let Some(s) = omc_dir.and_then(survey) {
        out.line = Some(format!(
            "{} was written by oh-my-claudecode: {} file(s) carry over, {} do not",
            omc_dir.expect("surveyed").display(),
            s.carries.len(),
            s.not.len()
        ));
        for c in &s.carries {
            out.notes.push(format!("from OMC, read here: {c}"));
        }
        for n in &s.not {
            out.notes.push(format!("from OMC, not used here: {n}"));
        }
    }
    let plugins = enabled_plugins(layers);
    let commands: Vec<String> = layers.iter().flat_map(hook_commands).collect();
    let skip = layers
        .iter()
        .rev()
        .find_map(|l| l.pointer("/env/OMC_SKIP_HOOKS").and_then(Value::as_str));
    let only = layers.iter().rev().find_map(|l| {
        l.pointer(&format!("/env/{OMC_ONLY_VAR}"))
            .and_then(Value::as_str)
    });
    let ours = layers
        .iter()
        .any(|l| !super::settings::find_ours(l).is_empty())
        || layers.iter().any(|l| {
            l.get("enabledPlugins")
                .and_then(Value::as_object)
                .is_some_and(|m| {
                    m.iter()
                        .any(|(id, on)| id.starts_with("omc-hooks@") && on == &Value::Bool(true))
                })
        });
    let mut active = Vec::new();
    if !plugins.is_empty() {
        active.push(format!("the plugin {}", plugins.join(", ")));
    }
    let omc_off = skip_tokens_set(skip) && omc_only_set(only);
    if !commands.is_empty() && !omc_off {
        active.push(format!(
            "{} hook command(s) in the settings",
            commands.len()
        ));
    }
    if !active.is_empty() {
        let what = format!(
            "oh-my-claudecode's hooks are on here ({}): its keyword detector and Stop loop run \
             beside omc-hooks' and fight over the same .omc/ files",
            active.join(" and ")
        );
        let fix = "omc-hooks install --disable-omc (switches them off for this project; uninstall \
                   switches them back on)";
        if ours {
            out.problems.push((what, fix.into()));
        } else {
            out.notes
                .push(format!("{what}, once omc-hooks is installed; then: {fix}"));
        }
    }
    out
}

/// What `doctor` says about an OMC `.omc/`.
#[derive(Debug, Default)]
pub(super) struct Survey {
    /// Files this build reads, with what it reads in them.
    pub(super) carries: Vec<String>,
    /// Files it does not use, with why.
    pub(super) not: Vec<String>,
}

/// OMC's files (by name) that omc-hooks has no use for, with the reason given to the user.
const OMC_ONLY: &[(&str, &str)] = &[
    (
        "hud-state.json",
        "OMC's HUD; omc-hooks has 'omc-hooks statusline' instead",
    ),
    ("hud-stdin-cache.json", "OMC's HUD cache"),
    (
        "cancel-signal-state.json",
        "OMC's cancel signal; cancel is immediate here",
    ),
    (
        "pre-tool-advisory-throttle.json",
        "OMC's PreToolUse advisories, not done here",
    ),
    (
        "session-started.json",
        "OMC's session marker (ours: session.json)",
    ),
    (
        "last-tool-error-state.json",
        "OMC's per-session failure record (ours: last-tool-error.json); the next failure starts a new count",
    ),
    (
        "subagent-tracking-state.json",
        "OMC's subagent tracker (ours: subagents.json)",
    ),
    (
        "subagent-tracking.json",
        "OMC's subagent tracker (ours: subagents.json)",
    ),
    ("skill-sessions.json", "OMC's skill sessions"),
    ("skill-sessions-fallback-state.json", "OMC's skill sessions"),
    (
        "idle-notif-cooldown.json",
        "OMC's notifications, not done here",
    ),
    ("mission-state.json", "OMC's missions, not done here"),
    (
        "force-agent-delegation-events.json",
        "OMC's delegation audit, not done here",
    ),
    (
        "deliverables.json",
        "OMC's list of expected files, not read: here a subagent's deliverables are the files \
         its task names, checked when it stops",
    ),
    (
        "todos.json",
        "OMC's project todo list (ours are per session)",
    ),
    ("jobs.db", "OMC's job store"),
    (
        "scheduled-wakeup-state.json",
        "OMC's scheduled wake-ups, not done here",
    ),
];

/// OMC's directories that omc-hooks has no use for.
const OMC_ONLY_DIRS: &[(&str, &str)] = &[
    ("team", "OMC's team runs; a team run here starts afresh"),
    ("session-end-jobs", "OMC's SessionEnd jobs"),
    (
        "notepads",
        "OMC's per-plan notepads (ours: the one notepad.md)",
    ),
    ("plans", "OMC's plans, not read here"),
    ("logs", "OMC's logs"),
    ("ultragoal", "OMC's ultragoal mode, not built here"),
];

/// Looks at `omc_dir`; `None` unless something in it was written by OMC.
pub(super) fn survey(omc_dir: &Path) -> Option<Survey> {
    let mut files = Vec::new();
    walk(omc_dir, 0, &mut files);
    files.sort();
    let mut s = Survey::default();
    let mut seen_omc = false;
    let rel = |p: &Path| {
        p.strip_prefix(omc_dir)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    for (path, is_dir) in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let r = rel(path);
        if *is_dir && r == "skills" {
            let listing = crate::state::folder::read_folder(path, ".md", usize::MAX, u64::MAX);
            let n = listing
                .files
                .iter()
                .filter(|f| learned_skills::parse(&String::from_utf8_lossy(&f.bytes)).is_some())
                .count();
            if n > 0 {
                s.carries.push(format!(
                    "{r}/: {n} learned skill(s), given on their triggers"
                ));
            }
            continue;
        }
        if *is_dir && r == "wiki" {
            let n = files
                .iter()
                .filter(|(p, d)| {
                    !d && p.starts_with(path) && p.extension().is_some_and(|e| e == "md")
                })
                .count();
            if n > 0 {
                s.carries.push(format!(
                    "{r}/: {n} page(s), named to the model at session start"
                ));
            }
            continue;
        }
        if *is_dir {
            if let Some((_, why)) = OMC_ONLY_DIRS.iter().find(|(n, _)| *n == name) {
                seen_omc = true;
                s.not.push(format!("{r}/: {why}"));
            }
            continue;
        }
        if in_omc_only_dir(&r) || r.starts_with("skills/") || r.starts_with("wiki/") {
            continue;
        }
        if let Some((_, why)) = OMC_ONLY.iter().find(|(n, _)| *n == name) {
            seen_omc = true;
            s.not.push(format!("{r}: {why}"));
        } else if (name.ends_with(".lock") && !name.starts_with('.'))
            || name.ends_with(".reclaim.guard")
        {
            seen_omc = true;
            s.not
                .push(format!("{r}: a lock file OMC left behind; safe to delete"));
        } else if name.ends_with(".marker") || name.ends_with("-stop-breaker.json") {
            seen_omc = true;
            s.not.push(format!("{r}: OMC's own marker"));
        } else if name == "skill-active-state.json" {
            match read::<SkillStack>(path) {
                Some(_) => {}
                None => {
                    seen_omc = true;
                    s.not.push(format!(
                        "{r}: OMC's skill ledger, a shape this build does not read; the next \
                         hook moves it aside as corrupt (invoke the skill again to guard it)"
                    ));
                }
            }
        } else if let Some(mode) = name.strip_suffix("-state.json") {
            let (omc, line) = mode_file(path, mode, &r);
            seen_omc |= omc;
            match line {
                Ok(l) => s.carries.push(l),
                Err(l) => s.not.push(l),
            }
        } else if name == "last-tool-error.json" {
            if read::<ToolError>(path).is_some() {
                s.carries
                    .push(format!("{r}: the last tool failure and its retry count"));
            }
        } else if name == "notepad.md" && r == "notepad.md" {
            if let Ok(text) = std::fs::read_to_string(path) {
                let secs: Vec<String> = notepad::sections(&text)
                    .into_iter()
                    .map(|s| s.name)
                    .filter(|n| {
                        ["Priority Context", "Working Memory", "MANUAL"].contains(&n.as_str())
                    })
                    .collect();
                if !secs.is_empty() {
                    s.carries.push(format!("{r}: sections {}", secs.join(", ")));
                }
            }
        } else if name == "project-memory.json" && r == "project-memory.json" {
            match read::<Value>(path) {
                Some(v) => {
                    seen_omc |= v.get("version").is_some_and(|x| x == "1.0.0")
                        || v.get("techStack").is_some();
                    let n = project_memory::items(&v).len();
                    if n > 0 {
                        s.carries.push(format!("{r}: {n} facts and directives"));
                    } else {
                        s.not
                            .push(format!("{r}: no fact or directive this build reads"));
                    }
                }
                None => s.not.push(format!("{r}: not valid JSON")),
            }
        }
    }
    seen_omc.then_some(s)
}

fn in_omc_only_dir(rel: &str) -> bool {
    rel.split('/')
        .rev()
        .skip(1)
        .any(|c| OMC_ONLY_DIRS.iter().any(|(n, _)| *n == c))
}

/// A `<mode>-state.json`: (written by OMC?, Ok(carries) / Err(does not)).
fn mode_file(path: &Path, mode: &str, rel: &str) -> (bool, Result<String, String>) {
    let raw = read::<Value>(path);
    let omc = raw.as_ref().is_some_and(|v| {
        v.get("schema_version").is_none()
            || [
                "linked_ultrawork",
                "awaiting_confirmation",
                "original_prompt",
                "reinforcement_count",
            ]
            .iter()
            .any(|k| v.get(*k).is_some())
    });
    if !PERSISTENT.contains(&mode) {
        return (
            true,
            Err(format!(
                "{rel}: OMC's {mode} mode, which omc-hooks does not have"
            )),
        );
    }
    match raw.and_then(|v| serde_json::from_value::<ModeState>(v).ok()) {
        Some(st) => {
            let what = if st.active && st.ended_at.is_none() {
                format!(
                    "an active {mode} run (iteration {}/{}), continued by the Stop hook",
                    st.iteration, st.max_iterations
                )
            } else {
                format!("an ended {mode} run (kept for the record)")
            };
            (omc, Ok(format!("{rel}: {what}")))
        }
        None => (
            omc,
            Err(format!(
                "{rel}: a {mode} state this build cannot read; the next hook moves it aside"
            )),
        ),
    }
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    let bytes = crate::state::fs::read_regular(path).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// Every file and directory under `dir` (not following symlinks), up to a small depth.
fn walk(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, bool)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            out.push((e.path(), true));
            if depth < 4 {
                walk(&e.path(), depth + 1, out);
            }
        } else if ft.is_file() {
            out.push((e.path(), false));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plugins_follow_the_settings_precedence() {
        let user = json!({"enabledPlugins": {"oh-my-claudecode@omc": true, "other@x": true}});
        let project = json!({"enabledPlugins": {"oh-my-claudecode@omc": false}});
        assert_eq!(
            enabled_plugins(std::slice::from_ref(&user)),
            vec!["oh-my-claudecode@omc"]
        );
        assert!(enabled_plugins(&[user.clone(), project.clone()]).is_empty());
        let local = json!({"enabledPlugins": {"oh-my-claudecode@omc": true}});
        assert_eq!(enabled_plugins(&[user, project, local]).len(), 1);
    }

    #[test]
    fn skip_tokens_are_merged_once() {
        assert_eq!(with_skip_tokens(None), "keyword-detector,persistent-mode");
        assert_eq!(
            with_skip_tokens(Some(" wiki-session-start ,persistent-mode")),
            "wiki-session-start,persistent-mode,keyword-detector"
        );
        assert!(skip_tokens_set(Some("persistent-mode, keyword-detector")));
        assert!(!skip_tokens_set(Some("persistent-mode")));
        for t in SKIP_TOKENS {
            assert!(
                crate::hooks::find(t).is_none(),
                "{t} would skip one of ours"
            );
        }
    }

    #[test]
    fn omc_hook_commands_are_recognised() {
        let v = json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "node \"$HOME/.claude/hooks/persistent-mode.mjs\""},
            {"type": "command", "command": "\"/x/omc-hooks\" stop"}
        ]}]}});
        assert_eq!(hook_commands(&v).len(), 1);
    }
}
