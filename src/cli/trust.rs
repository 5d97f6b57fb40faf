//! `omc-hooks trust`: lets the hooks of a project's `.omc/hooks.toml` run, by recording the
//! SHA-256 of its exact bytes in the user's `trusted.json`, and the verify commands of its
//! `.omc/config.json` be used, by recording the fingerprint of those lists
//! ([`crate::capabilities::verify_trust`]); `--revoke` forgets both, `--list` shows every
//! trusted file and whether it still has what was trusted.
//!
//! Trust is a person's word (contract §17): a model steered by a cloned repository must not be
//! able to switch that repository's hooks on by running this command. So it records trust only
//! after the person answers yes at a terminal, or with `--yes` (for a person's own script: no
//! hook and no text the model reads ever uses it), and never when the environment says an
//! agent's model is running it ([`AGENT_MARKERS`]) — not even at a terminal, since Gemini CLI
//! and Codex run the model's commands in a pseudo-terminal.

use super::args::{fail, parse, usage_error};
use crate::capabilities::verify_trust;
use crate::config::hooks_toml::{self as config, Kind, Origin};
use crate::env::Env;
use crate::state::trust;
use crate::state::{Store, root};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

pub(super) const HELP: &str = "\
Usage: omc-hooks trust [--project DIR] [--yes] [--revoke | --list]

Hooks in a project's .omc/hooks.toml run only once you trust that exact file, and the verify
commands of its .omc/config.json (`verify`, `<mode>.verify`: what the model is told to run
before a run may end) are used only once you trust that exact list: this command shows the
entries and the commands, asks you to confirm, and records the SHA-256 of the file's bytes
(of the verify lists, for config.json) in your trusted.json ($XDG_CONFIG_HOME/omc-hooks, else
~/.config/omc-hooks) with your user name and the time ('omc-hooks doctor' shows them). Any
change to the file, or to the verify lists, by anyone, makes it untrusted again until you run
this again. Your own hooks.toml and config.json (next to trusted.json) need no trust.

Trust covers the file, not the scripts it calls: read those too.

It needs you: it asks at a terminal, and without one it refuses unless given --yes. It
always refuses when an agent's model runs it (CLAUDECODE, CLAUDE_CODE_SESSION_ID,
CODEX_THREAD_ID, CODEX_SESSION_ID, GEMINI_CLI, QWEN_CODE, QWEN_CODE_SESSION_ID, COPILOT_CLI,
COPILOT_AGENT_SESSION_ID, CODEBUDDY, CODEBUDDY_SESSION_ID, FACTORY_DISABLE_SETTINGS_PERSISTENCE,
CLINE_CONNECTOR_CLI_LAUNCH, CURSOR_AGENT, KILO, OPENCODE, PI_CODING_AGENT or AI_AGENT set, here or in any
process above this one, or an agent's client among those processes), and when it looks
detached from whoever started it: its parent is the first process (setsid -f), no terminal
while an agent's session in this project had a hook in the last 15 minutes, a terminal
that is not its controlling one or whose session is led by trust itself or by a command
line (sh -c) rather than your interactive shell, or no HOME or TERM at a terminal. Run it in
your own terminal.

  --project DIR   the project (default: the one the current directory is in)
  --yes           trust without asking (for your own scripts; never give it to an agent)
  --revoke        forget the trust for this project's hooks file and verify commands
  --list          every trusted file, who trusted it and when, and whether it still has the
                  trusted bytes";

/// Variables an agent sets in the environment of the commands its model runs, and the agent
/// they name. Seen in the pinned clients (tests/e2e/FINDINGS.md §11, codex-FINDINGS.md §13,
/// gemini-FINDINGS.md §14, qwen-FINDINGS.md §14): Claude Code sets `CLAUDECODE=1` and
/// `CLAUDE_CODE_SESSION_ID` (and `AI_AGENT`), Codex `CODEX_THREAD_ID` and `CODEX_SESSION_ID`,
/// Gemini CLI `GEMINI_CLI=1`, Qwen Code `QWEN_CODE=1` and `QWEN_CODE_SESSION_ID`, GitHub
/// Copilot CLI `COPILOT_CLI=1` and `COPILOT_AGENT_SESSION_ID` (copilot-FINDINGS.md §2),
/// CodeBuddy `CODEBUDDY=1` and `CODEBUDDY_SESSION_ID` (codebuddy-FINDINGS.md §2); Factory Droid
/// sets no variable of its name, and `FACTORY_DISABLE_SETTINGS_PERSISTENCE` is the one only it
/// sets (factory-FINDINGS.md §2); Cline 3.0.65 `CLINE_CONNECTOR_CLI_LAUNCH` (cline-FINDINGS.md
/// §2; Kimi CLI 1.51.0 sets none of its own); Kilo Code 7.7.9 `KILO=1` and `OPENCODE=1`,
/// OpenCode 1.18.33 `OPENCODE=1` (both also `AGENT=1`), Pi 0.73.1 `PI_CODING_AGENT=true`
/// (kilo-FINDINGS.md §2, opencode-FINDINGS.md §5, pi-FINDINGS.md §1).
/// Cursor's agent sets `CURSOR_AGENT` (not seen here: Cursor has no pinned client in the
/// suites).
const AGENT_MARKERS: &[(&str, &str)] = &[
    ("CLAUDECODE", "Claude Code"),
    ("CLAUDE_CODE_SESSION_ID", "Claude Code"),
    ("CODEX_THREAD_ID", "Codex CLI"),
    ("CODEX_SESSION_ID", "Codex CLI"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("QWEN_CODE", "Qwen Code"),
    ("QWEN_CODE_SESSION_ID", "Qwen Code"),
    ("COPILOT_CLI", "GitHub Copilot CLI"),
    ("COPILOT_AGENT_SESSION_ID", "GitHub Copilot CLI"),
    ("CODEBUDDY", "CodeBuddy"),
    ("CODEBUDDY_SESSION_ID", "CodeBuddy"),
    ("FACTORY_DISABLE_SETTINGS_PERSISTENCE", "Factory Droid"),
    ("CLINE_CONNECTOR_CLI_LAUNCH", "Cline"),
    ("CURSOR_AGENT", "Cursor"),
    // Kilo Code sets OpenCode's variable too: its own first, so the message names it.
    ("KILO", "Kilo Code"),
    ("OPENCODE", "OpenCode"),
    ("PI_CODING_AGENT", "Pi"),
    ("AI_AGENT", "an AI agent"),
];

/// Agent clients by the program that runs them, for the processes above `trust`: a bare name
/// is compared with the process's name and with the file name of its first two arguments (a
/// client started as `node /usr/local/bin/gemini`); a package name is looked for as
/// `node_modules/<package>/` in them. The npm packages the suites install (tests/e2e).
const AGENT_CLIENTS: &[(&str, &str)] = &[
    ("claude", "Claude Code"),
    ("@anthropic-ai/claude-code", "Claude Code"),
    ("codex", "Codex CLI"),
    ("@openai/codex", "Codex CLI"),
    ("gemini", "Gemini CLI"),
    ("@google/gemini-cli", "Gemini CLI"),
    ("qwen", "Qwen Code"),
    ("@qwen-code/qwen-code", "Qwen Code"),
    ("copilot", "GitHub Copilot CLI"),
    ("@github/copilot", "GitHub Copilot CLI"),
    ("codebuddy", "CodeBuddy"),
    ("@tencent-ai/codebuddy-code", "CodeBuddy"),
    ("droid", "Factory Droid"),
    ("cline", "Cline"),
    ("cursor-agent", "Cursor"),
    ("kilo", "Kilo Code"),
    ("@kilocode/cli", "Kilo Code"),
    ("opencode", "OpenCode"),
    ("@mariozechner/pi-coding-agent", "Pi"),
];

/// A marker variable's value that says it is on.
fn marker_on(v: &str) -> bool {
    !v.trim().is_empty() && v.trim() != "0"
}

/// The first variable that says an agent's model runs this command, with the agent.
fn run_by_agent(env: &Env) -> Option<(&'static str, &'static str)> {
    AGENT_MARKERS
        .iter()
        .copied()
        .find(|(var, _)| env.lookup(var).is_some_and(|v| marker_on(&v)))
}

/// What the processes above `trust` say about who runs it.
#[derive(Debug, PartialEq)]
enum Above {
    /// An agent (or what cannot be told from one) is among them: why.
    Agent(String),
    /// None is an agent's.
    Clear,
    /// They cannot be read on this system: why.
    Unknown(String),
}

/// Judges the processes above `trust` (nearest first). An agent's client among them, or one
/// whose environment carries an agent's variable, is an agent: removing the variables from
/// `trust`'s own environment (`env -u CLAUDECODE …`) hides nothing. A process whose
/// environment cannot be read is checked by its name only when it is the first process or
/// another user's (the person's login chain: `sshd`, `login`, `sudo`); one of the person's own
/// that hides its environment is not proof of a person, and refuses.
fn judge(above: &[crate::platform::ancestry::Process]) -> Above {
    for p in above {
        let who = format!("process {} ({})", p.pid, crate::terminal::visible(&p.name));
        if let Some(agent) = client(p) {
            return Above::Agent(format!("{who} above this command is {agent}"));
        }
        match &p.env {
            Some(vars) => {
                for item in vars {
                    let (k, v) = item.split_once('=').unwrap_or((item, ""));
                    if let Some((var, agent)) = AGENT_MARKERS.iter().find(|(m, _)| *m == k)
                        && marker_on(v)
                    {
                        return Above::Agent(format!(
                            "{var} is set in {who} above this command, so {agent}'s model \
                             is running it"
                        ));
                    }
                }
            }
            None if p.pid == 1 || !p.same_user => {}
            None => {
                return Above::Agent(format!(
                    "the environment of {who}, one of your own processes above this \
                     command, cannot be read, so an agent cannot be ruled out"
                ));
            }
        }
    }
    Above::Clear
}

/// The agent whose client `p` is, if it is one ([`AGENT_CLIENTS`]).
fn client(p: &crate::platform::ancestry::Process) -> Option<&'static str> {
    let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
    let names: Vec<String> = std::iter::once(p.name.clone())
        .chain(p.args.iter().take(2).map(|a| base(a)))
        .collect();
    AGENT_CLIENTS.iter().find_map(|(c, agent)| {
        let hit = if c.contains('/') {
            let dir = format!("node_modules/{c}/");
            p.args.iter().take(3).any(|a| a.contains(&dir))
        } else {
            names.iter().any(|n| n == c)
        };
        hit.then_some(*agent)
    })
}

pub(super) fn run(args: &[String], env: &Env) -> i32 {
    let p = match parse(args, &["revoke", "list", "yes"], &["project"], false) {
        Ok(p) => p,
        Err(e) => return usage_error("trust", HELP, &e),
    };
    if p.flag("revoke") && p.flag("list") {
        return usage_error("trust", HELP, "--revoke and --list do not go together");
    }
    if p.flag("list") {
        if p.value("project").is_some() {
            return usage_error("trust", HELP, "--list shows every project; drop --project");
        }
        return list(env);
    }
    // Revoking and listing take trust away or show it: anyone may. Giving it needs a person.
    if !p.flag("revoke")
        && let Some((var, agent)) = run_by_agent(env)
    {
        return fail(
            "trust",
            &format!(
                "refused: {var} is set, so {agent}'s model is running this command, and trust \
                 must come from you. Read .omc/hooks.toml and run 'omc-hooks trust' in your own \
                 terminal."
            ),
        );
    }
    // Nor when a process above it belongs to an agent (its variables removed for `trust`
    // alone do not make a person).
    let checked = if p.flag("revoke") {
        ""
    } else {
        match crate::platform::ancestry::ancestors().map_or_else(Above::Unknown, |a| judge(&a)) {
            Above::Agent(why) => {
                return fail(
                    "trust",
                    &format!(
                        "refused: {why}, and trust must come from you. Read .omc/hooks.toml \
                         and run 'omc-hooks trust' in your own terminal."
                    ),
                );
            }
            Above::Clear => ", no agent above",
            Above::Unknown(why) => {
                crate::diag!("trust: the processes above this one are not checked: {why}");
                ", parents not checked"
            }
        }
    };
    let mut env = env.clone();
    if let Some(dir) = p.value("project") {
        match crate::platform::canonicalize(&PathBuf::from(dir)) {
            Ok(d) if d.is_dir() => env.project_dir = Some(d),
            _ => return fail("trust", &format!("{dir} is not a directory")),
        }
    }
    let Some(root) = root::resolve(&env, None) else {
        return fail(
            "trust",
            "cannot tell which project this is; run it in the project or pass --project DIR",
        );
    };
    let store = Store::new(root, env.now_ms());
    let path = store.omc_dir().join(config::FILE_NAME);
    let config_path = store.omc_dir().join(crate::config::FILE);
    // What a model that hid its variables and left the agent's process tree cannot hide.
    if !p.flag("revoke")
        && let Some(why) = super::trust_evidence::judge(&super::trust_evidence::gather(
            &env,
            &store,
            std::io::stdin().is_terminal(),
        ))
    {
        return fail(
            "trust",
            &format!(
                "refused: {why}, and trust must come from you. Read .omc/hooks.toml and run \
                 'omc-hooks trust' in your own terminal."
            ),
        );
    }
    if p.flag("revoke") {
        let mut code = 0;
        for (file, what) in [
            (&path, "its hooks do not run"),
            (&config_path, "its verify commands are not used"),
        ] {
            match trust::revoke(&env, file) {
                Ok(true) => println!("{} is no longer trusted; {what}.", file.display()),
                Ok(false) => println!("{} was not trusted.", file.display()),
                Err(e) => code = fail("trust", &format!("cannot update the trust store: {e}")),
            }
        }
        return code;
    }
    let hooks = match store.read_person_file(config::FILE_NAME) {
        Ok(Some(b)) if b.len() <= config::MAX_FILE_BYTES => {
            Some(config::parse_file(Origin::Project, path.clone(), &b))
        }
        Ok(Some(_)) => {
            return fail(
                "trust",
                &format!("{} is larger than 256 KiB; not trusted", path.display()),
            );
        }
        Ok(None) => None,
        Err(e) => {
            return fail(
                "trust",
                &format!("cannot read {}: {e}; not trusted", path.display()),
            );
        }
    };
    // The project's verify commands (contract §6): put to the model once trusted.
    let lists = verify_trust::lists(&crate::config::Config::read(&store));
    if hooks.is_none() && lists.is_empty() {
        return fail(
            "trust",
            &format!(
                "there is no {} and {} names no verify commands: nothing to trust",
                path.display(),
                config_path.display()
            ),
        );
    }
    // Show exactly what is recorded: the hooks file's bytes, the verify lists.
    if let Some(file) = &hooks {
        print!("{}", describe(file));
    }
    if !lists.is_empty() {
        print!("{}", describe_verify(&config_path, &lists));
    }
    let confirmed = if p.flag("yes") {
        "--yes"
    } else if std::io::stdin().is_terminal() {
        let question = match (hooks.is_some(), lists.is_empty()) {
            (true, true) => "Trust this file, so that these hooks run?",
            (false, _) => "Trust these verify commands, so that a run is held to them?",
            (true, false) => {
                "Trust this file and these verify commands, so that these hooks run and a run \
                 is held to them?"
            }
        };
        match ask(&format!("\n{question} [y/N] ")) {
            Ok(true) => "terminal",
            Ok(false) => {
                println!("Not trusted; nothing recorded.");
                return 1;
            }
            Err(e) => {
                return fail(
                    "trust",
                    &format!("cannot read your answer: {e}; not trusted"),
                );
            }
        }
    } else {
        return fail(
            "trust",
            "not trusted: there is no terminal to ask you at. Run it in a terminal, or add \
             --yes if it is you running it from a script of yours.",
        );
    };
    let confirmed = format!("{confirmed}{checked}");
    let mut recorded = Vec::new();
    if let Some(file) = &hooks {
        recorded.push(trust::record(&env, &path, &file.sha256, &confirmed));
    }
    if !lists.is_empty() {
        let print = verify_trust::fingerprint(&lists);
        recorded.push(trust::record(&env, &config_path, &print, &confirmed));
    }
    match recorded.into_iter().collect::<Result<Vec<_>, _>>() {
        Ok(paths) => {
            let store_path = paths
                .first()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            println!(
                "\nTrusted (recorded in {store_path}). Any change to the hooks file, or to the verify \
                 commands, makes it untrusted again."
            );
            0
        }
        Err(e) => fail("trust", &format!("cannot record the trust: {e}")),
    }
}

/// The verify lists being trusted, command by command, as they will be put to the model.
fn describe_verify(path: &std::path::Path, lists: &[(String, Vec<String>)]) -> String {
    let mut s = format!(
        "{} — verify commands (the model is told to run them before a run may end):\n",
        crate::terminal::visible(&path.display().to_string())
    );
    for (key, cmds) in lists {
        for c in cmds {
            let c = crate::redact::text(c).map_or_else(|| c.clone(), |(t, _)| t);
            s.push_str(&format!(
                "  {}: {}\n",
                crate::terminal::visible(key),
                crate::terminal::visible(&c)
            ));
        }
    }
    s
}

/// Asks `question` on stdout and reads one line of the answer from stdin (a terminal): yes
/// only for `y` or `yes`, in any case.
fn ask(question: &str) -> std::io::Result<bool> {
    let mut out = std::io::stdout().lock();
    out.write_all(question.as_bytes())?;
    out.flush()?;
    drop(out);
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let a = line.trim().to_ascii_lowercase();
    Ok(a == "y" || a == "yes")
}

/// What is being trusted, entry by entry.
fn describe(file: &config::HookFile) -> String {
    let mut s = format!(
        "{} (sha256 {}):\n",
        crate::terminal::visible(&file.path.display().to_string()),
        &file.sha256[..16]
    );
    if file.entries.is_empty() {
        s.push_str("  no usable entries\n");
    }
    for e in &file.entries {
        let what = match &e.kind {
            Kind::Script { command } => format!("runs: {command}"),
            Kind::Webhook { url, .. } => format!("calls: {url}"),
            Kind::Context => format!(
                "adds context: {}",
                e.additional_context.as_deref().unwrap_or("")
            ),
            Kind::Export { sink_type } => format!(
                "{sink_type} to {}",
                e.raw
                    .get("url")
                    .or_else(|| e.raw.get("endpoint"))
                    .and_then(|v| v.as_str())
                    .unwrap_or("the OTEL_EXPORTER_OTLP_* endpoint")
            ),
        };
        // Exactly what will run, control characters written out: an escape sequence in a
        // command must not hide or rewrite part of it on the person's terminal. A literal
        // credential in the file is not echoed (doctor names it as a problem).
        let what = crate::redact::text(&what).map_or(what, |(t, _)| t);
        s.push_str(&format!(
            "  entry {} (line {}){}: {} — {}\n",
            e.index,
            e.line,
            if e.enabled { "" } else { " [enabled = false]" },
            crate::terminal::visible(&e.events.join(", ")),
            crate::terminal::visible(&what)
        ));
    }
    for p in &file.problems {
        s.push_str(&format!(
            "  note: {}\n",
            crate::terminal::visible(&p.describe())
        ));
    }
    s
}

fn list(env: &Env) -> i32 {
    let t = trust::read(env);
    if t.files.is_empty() {
        println!("No project hooks file or verify commands are trusted.");
        return 0;
    }
    for f in &t.files {
        // A project's config.json is trusted for its verify commands alone.
        let verify = f.path.ends_with(crate::config::FILE);
        let hash = |b: &[u8]| {
            if verify {
                let text = String::from_utf8_lossy(b);
                verify_trust::fingerprint(&verify_trust::lists(&crate::config::Config::parse(
                    &text,
                )))
            } else {
                config::sha256_hex(b)
            }
        };
        let now = match std::fs::symlink_metadata(&f.path) {
            Ok(m) if m.is_file() => match std::fs::read(&f.path) {
                Ok(b) if hash(&b) == f.sha256 && verify => "verify commands unchanged, used",
                Ok(b) if hash(&b) == f.sha256 => "unchanged, runs",
                Ok(_) if verify => "verify commands CHANGED since, not used",
                Ok(_) => "CHANGED since, does not run",
                Err(_) => "unreadable",
            },
            Ok(_) => "not a regular file, does not run",
            Err(_) => "missing",
        };
        println!(
            "{}  trusted {}  {now}",
            crate::terminal::visible(&f.path),
            crate::terminal::visible(&f.who_and_when())
        );
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::ancestry::Process;

    fn proc(pid: u32, name: &str, args: &[&str], env: Option<&[&str]>, same_user: bool) -> Process {
        Process {
            pid,
            name: name.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            env: env.map(|e| e.iter().map(|s| s.to_string()).collect()),
            same_user,
        }
    }

    #[test]
    fn an_agent_above_trust_is_seen_by_its_variables_or_its_client() {
        let shell = proc(
            30,
            "bash",
            &["bash"],
            Some(&["HOME=/h", "TERM=xterm"]),
            true,
        );
        let sshd = proc(20, "sshd", &["sshd: alice"], None, false);
        let init = proc(1, "systemd", &["/sbin/init"], None, true);
        assert_eq!(
            judge(&[shell.clone(), sshd.clone(), init.clone()]),
            Above::Clear
        );
        // A parent shell that still carries the agent's variable.
        let marked = proc(31, "bash", &["bash"], Some(&["CLAUDECODE=1"]), true);
        let got = judge(&[shell.clone(), marked, init.clone()]);
        assert!(
            matches!(&got, Above::Agent(w) if w.contains("CLAUDECODE is set in process 31")),
            "{got:?}"
        );
        // A switched-off marker is not one.
        let off = proc(31, "bash", &["bash"], Some(&["GEMINI_CLI=0"]), true);
        assert_eq!(judge(&[off, init.clone()]), Above::Clear);
        // The clients themselves, however started.
        for p in [
            proc(40, "claude", &["claude"], Some(&[]), true),
            proc(
                40,
                "node",
                &["node", "/usr/local/bin/gemini"],
                Some(&[]),
                true,
            ),
            proc(
                40,
                "node",
                &["node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"],
                Some(&[]),
                true,
            ),
            proc(40, "MainThread", &["/opt/qwen"], Some(&[]), true),
            // Another user's, environment unread: still seen by name.
            proc(40, "codex", &["codex"], None, false),
        ] {
            let got = judge(&[shell.clone(), p.clone(), init.clone()]);
            assert!(matches!(got, Above::Agent(_)), "{p:?}: {got:?}");
        }
        // One of the person's own processes that hides its environment proves nothing.
        let hidden = proc(32, "helper", &["helper"], None, true);
        assert!(matches!(judge(&[shell, hidden, sshd]), Above::Agent(_)));
    }
}
