//! `doctor`'s look at the other agents' hook files: where `install --agent` put omc-hooks,
//! whether every hook of the table is there, whether the program each runs exists, and the
//! switches that keep a client from running any hook (Gemini's `hooksConfig.enabled`, Codex's
//! `[features]`), and the trust a client wants first (Codex's, Copilot's). Silence from a client is what users of the one-agent forks complain about.

use super::layout::Layout;
use super::{agent_command, shell_words};
use crate::cli::report::Report;
use crate::env::Env;
use crate::protocol::Agent;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Adds a line per agent file that has our hooks, and a problem per thing that keeps them
/// from running.
pub(in crate::cli) fn check(r: &mut Report, env: &Env, project: Option<&Path>) {
    for agent in Agent::ALL.into_iter().filter(|a| *a != Agent::Claude) {
        let layout = Layout::of(agent);
        let mut files: Vec<(PathBuf, &str)> = Vec::new();
        if let Some(p) = project.filter(|_| agent != Agent::Kimi) {
            files.push((layout.project_file(p), ""));
        }
        if let Some(u) = layout.user_file(env) {
            files.push((u, " --user"));
        }
        for (path, flag) in files {
            check_file(r, &layout, &path, flag);
        }
    }
}

fn check_file(r: &mut Report, layout: &Layout, path: &Path, flag: &str) {
    let agent = layout.agent;
    let text = if agent == Agent::Cline {
        // A folder of hook scripts: ours are read by their marker.
        if !path.is_dir() {
            return;
        }
        String::new()
    } else {
        match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(_) => return,
        }
    };
    if layout.is_plugin() {
        check_plugin(r, layout, path, &text, flag);
        return;
    }
    let (format, parsed) = if agent == Agent::Cline {
        (
            "hook scripts",
            Some((super::cline::commands(path), Value::Null)),
        )
    } else if agent == Agent::Kimi {
        (
            "TOML",
            super::kimi::commands(&text).map(|c| (c, Value::Null)),
        )
    } else {
        let v = serde_json::from_str::<Value>(&text).ok();
        ("JSON", v.map(|v| (commands(&v), v)))
    };
    let Some((cmds, v)) = parsed else {
        if text.contains("omc-hooks") {
            r.problem(
                format!(
                    "{} is not valid {format}, so {} reads none of its hooks",
                    path.display(),
                    agent.client()
                ),
                format!("repair the {format} (a .bak-* copy beside it may help)"),
            );
        }
        return;
    };
    let mut subs: BTreeSet<&'static str> = BTreeSet::new();
    let mut programs: BTreeSet<String> = BTreeSet::new();
    for cmd in cmds {
        if let Some((a, sub)) = agent_command(&cmd)
            && a == agent
        {
            subs.insert(sub);
            if let Some(p) = shell_words(&cmd).and_then(|w| w.into_iter().next()) {
                programs.insert(p);
            }
        }
    }
    if subs.is_empty() {
        return;
    }
    let want: BTreeSet<&'static str> = layout.rows().map(|(_, _, s)| s).collect();
    let missing: Vec<&str> = want.difference(&subs).copied().collect();
    let mut status = Vec::new();
    for p in &programs {
        let ok = std::fs::metadata(p).is_ok_and(|m| crate::platform::is_executable(&m));
        status.push(format!("{p} ({})", if ok { "ok" } else { "MISSING" }));
        if !ok && !p.contains('$') {
            r.problem(
                format!(
                    "the {} hooks in {} run {p}, which is not an existing executable, so none of them runs",
                    agent.client(),
                    path.display()
                ),
                format!(
                    "run 'omc-hooks install --agent {}{flag}' with the binary you want to use",
                    agent.name()
                ),
            );
        }
    }
    if !missing.is_empty() {
        r.problem(
            format!(
                "{} lacks the {} hooks {} (an older or partial install)",
                path.display(),
                agent.client(),
                missing.join(", ")
            ),
            format!(
                "run 'omc-hooks install --agent {}{flag}' again",
                agent.name()
            ),
        );
    }
    for w in layout.warnings(&v) {
        r.problem(
            format!("{}: {w}", path.display()),
            "edit the file as it says",
        );
    }
    if agent == Agent::Codex {
        let config = path.with_file_name("config.toml");
        if let Ok(t) = std::fs::read_to_string(&config)
            && let Ok(doc) = t.parse::<toml_edit::DocumentMut>()
        {
            for key in ["hooks", "codex_hooks"] {
                if doc
                    .get("features")
                    .and_then(|f| f.get(key))
                    .and_then(toml_edit::Item::as_bool)
                    == Some(false)
                {
                    r.problem(
                        format!(
                            "{} sets [features] {key} = false: Codex runs no hooks",
                            config.display()
                        ),
                        format!("set {key} = true in {}", config.display()),
                    );
                }
            }
        }
        r.note(format!(
            "Codex skips hooks it has not been told to trust, silently: trust the omc-hooks \
             entries of {} in codex's /hooks (and trust the project for a project file)",
            path.display()
        ));
    }
    if agent == Agent::Copilot && path.ends_with(".github/hooks/omc-hooks.json") {
        r.note(format!(
            "GitHub Copilot CLI skips a repository's hooks, silently, unless the folder is \
             trusted: trust the project when copilot asks (or run `copilot -p` with \
             --trust-folder) for {} to run",
            path.display()
        ));
    }
    r.line(
        agent.name(),
        format!(
            "{}: installed, {} of {} hooks, running {}",
            path.display(),
            want.intersection(&subs).count(),
            want.len(),
            status.join(", ")
        ),
    );
}

/// Our plugin file: the binary it runs, and whether this binary would write the same file (an
/// older omc-hooks wrote another, whose events or answers may differ).
fn check_plugin(r: &mut Report, layout: &Layout, path: &Path, text: &str, flag: &str) {
    let agent = layout.agent;
    let again = format!(
        "run 'omc-hooks install --agent {}{flag}' again",
        agent.name()
    );
    if !super::plugin::is_ours(text) {
        return;
    }
    let Some((named, bin)) = super::plugin::config_of(text) else {
        r.problem(
            format!(
                "{} is an omc-hooks plugin whose CONFIG line cannot be read, so it does nothing",
                path.display()
            ),
            again,
        );
        return;
    };
    let ok = std::fs::metadata(&bin).is_ok_and(|m| crate::platform::is_executable(&m));
    if !ok {
        r.problem(
            format!(
                "the {} plugin in {} runs {bin}, which is not an existing executable, so it does \
                 nothing",
                agent.client(),
                path.display()
            ),
            format!(
                "run 'omc-hooks install --agent {}{flag}' with the binary you want to use",
                agent.name()
            ),
        );
    } else if named != agent || super::plugin::source(agent, Path::new(&bin)) != text {
        r.problem(
            format!(
                "{} was written by another version of omc-hooks (or for another agent): its \
                 events or answers may not match this binary",
                path.display()
            ),
            again,
        );
    }
    if agent == Agent::Kilo
        && let Some(project) = layout.project_of_file(path)
    {
        let opencode = Layout::of(Agent::OpenCode).project_file(project);
        if std::fs::read_to_string(&opencode).is_ok_and(|t| super::plugin::is_ours(&t)) {
            r.problem(
                format!(
                    "{} and {} are both installed: Kilo Code loads both, so every event runs \
                     twice in Kilo",
                    path.display(),
                    opencode.display()
                ),
                "keep the one for the client you use ('omc-hooks uninstall --agent opencode' \
                 or '--agent kilo')",
            );
        }
    }
    r.line(
        agent.name(),
        format!(
            "{}: plugin installed, running {bin} ({})",
            path.display(),
            if ok { "ok" } else { "MISSING" }
        ),
    );
}

/// Every command string in a hook file, in either layout (grouped or flat).
fn commands(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for entries in v["hooks"].as_object().into_iter().flat_map(|o| o.values()) {
        for e in entries.as_array().into_iter().flatten() {
            if let Some(c) = e.get("command").and_then(Value::as_str) {
                out.push(c.to_string());
            }
            for h in e
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(c) = h.get("command").and_then(Value::as_str) {
                    out.push(c.to_string());
                }
            }
        }
    }
    out
}
