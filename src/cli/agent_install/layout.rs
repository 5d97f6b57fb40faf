//! Where each agent keeps its hooks and how it wants them written: the file per scope, the
//! entry shape, the timeout unit, and what the person must still do for the client to run
//! project hooks (its trust model). What the pinned clients were seen to do is in
//! tests/e2e/codex-FINDINGS.md §3, gemini-FINDINGS.md §2 and qwen-FINDINGS.md §2, and for
//! Factory Droid, CodeBuddy and Qoder (Claude Code's format, in their own folders) in
//! docs/agents-survey.md, and for GitHub Copilot CLI (a file of our own among its hook files)
//! in tests/e2e/copilot-FINDINGS.md §1; the rest follows each client's own hook documentation
//! (Codex's hooks docs, Gemini CLI's docs/hooks/reference.md, Qwen Code's
//! docs/features/hooks.md, cursor.com/docs/agent/hooks).

use super::super::args::{fail, parse, usage_error};
use crate::env::Env;
use crate::protocol::Agent;
use crate::protocol::agents::table::{self, Install};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The file name of our plugin in a plugin client's folder (OpenCode, Kilo Code, Pi).
pub(super) const PLUGIN_FILE: &str = "omc-hooks.js";

/// One agent's hook configuration.
pub(super) struct Layout {
    pub(super) agent: Agent,
    /// Cursor and Copilot: handlers sit directly under the event (`{"stop": [{"command":
    /// …}]}`); the others group them under matchers (`{"Stop": [{"matcher": …, "hooks":
    /// [{…}]}]}`).
    pub(super) flat: bool,
}

impl Layout {
    pub(super) fn of(agent: Agent) -> Layout {
        Layout {
            agent,
            flat: matches!(agent, Agent::Cursor | Agent::Copilot),
        }
    }

    /// The project a project-level file belongs to: the folder holding the agent's own folder
    /// (`<project>/.codex/hooks.json`, Cline's `<project>/.clinerules/hooks`), two up for
    /// Copilot's `<project>/.github/hooks/…` and a plugin's `<project>/.opencode/plugins/…`.
    pub(super) fn project_of_file<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        let levels = if self.agent == Agent::Copilot || self.is_plugin() {
            3
        } else {
            2
        };
        path.ancestors().nth(levels)
    }

    /// The record of what install added, beside the file. Copilot reads every `.json` file of
    /// its hooks folder as a hook file (and logs an error for one that is not), so there the
    /// record is a dotfile it does not read. (Cline's, in its hooks folder, is
    /// `cline::record_path`.)
    pub(super) fn record_path(&self, config: &Path) -> PathBuf {
        if self.agent == Agent::Copilot {
            config.with_file_name(".omc-hooks-install")
        } else {
            super::record_path(config)
        }
    }

    /// (agent event, matcher, hook subcommand) for every row of the table marked installed.
    pub(super) fn rows(
        &self,
    ) -> impl Iterator<Item = (&'static str, Option<&'static str>, &'static str)> {
        let clone = self.agent != Agent::Claude;
        table::rows(self.agent.wire()).filter_map(move |r| match r.install {
            _ if clone && table::CLAUDE_CODE_ONLY.contains(&r.event) => None,
            Install::No => None,
            Install::Yes => Some((r.event, None, r.hook)),
            Install::Matcher(m) => Some((r.event, Some(m), r.hook)),
        })
    }

    /// The handler object that runs `sub` on the binary at `exe`.
    pub(super) fn handler(&self, exe: &Path, sub: &str) -> Value {
        self.handler_running(super::command_for(exe, self.agent, sub), sub)
    }

    /// The handler object for `sub` with the command line given.
    pub(super) fn handler_running(&self, command: String, sub: &str) -> Value {
        let secs = timeout_secs(sub);
        match self.agent {
            // Milliseconds (its runner's setTimeout; 60 s when absent).
            Agent::Auggie => json!({"type": "command", "command": command, "timeout": secs * 1000}),
            // Milliseconds; the name is what Gemini shows and fingerprints for trust.
            Agent::Gemini => json!({
                "type": "command",
                "name": format!("omc-hooks {sub}"),
                "command": command,
                "timeout": secs * 1000,
            }),
            // Codex clamps SessionEnd to 3 s (and says so on every run when it is above).
            Agent::Codex => json!({
                "type": "command",
                "command": command,
                "timeout": if sub == "session-end" { secs.min(3) } else { secs },
            }),
            // `loop_limit: null`: Cursor's own limit of 5 follow-ups (which counts every
            // follow-up, working or not) would cut a long run short; our own cap hands back a
            // model that does no work (protocol/agents/caps.rs reads the value back).
            Agent::Cursor if sub == "stop" => json!({
                "command": command,
                "type": "command",
                "timeout": secs,
                "loop_limit": null,
            }),
            Agent::Cursor => json!({"command": command, "type": "command", "timeout": secs}),
            // `command` is Copilot's cross-platform spelling of `bash`, `timeoutSec` its timeout.
            Agent::Copilot => json!({"type": "command", "command": command, "timeoutSec": secs}),
            _ => json!({"type": "command", "command": command, "timeout": secs}),
        }
    }

    /// Settings install adds when they are absent (JSON pointer, value); uninstall takes back
    /// the ones it added.
    pub(super) fn scaffold(&self) -> Vec<(&'static str, Value)> {
        match self.agent {
            // Older Gemini CLI builds ran hooks only when switched on; the switch has been
            // renamed (tools.enableHooks, hooks.enabled, now hooksConfig.enabled, default on).
            Agent::Gemini => vec![("/hooksConfig/enabled", json!(true))],
            Agent::Cursor | Agent::Copilot => vec![("/version", json!(1))],
            // Qwen Code counts every Stop block of a prompt, tool calls or not, and ends the
            // turn at its cap (8 by default; qwen-FINDINGS.md §6): a working ralph run would
            // be cut off after 7 continuations. Its ceiling, 100, lets it go on; our own cap
            // still hands back a model that does no work after 8.
            Agent::Qwen => vec![(
                "/stopHookBlockingCap",
                json!(crate::protocol::agents::caps::QWEN_MAX_CAP),
            )],
            _ => Vec::new(),
        }
    }

    /// The configuration file `install`/`uninstall` acts on, or the exit code of an error.
    pub(super) fn target(
        &self,
        command: &str,
        help: &str,
        args: &[String],
        env: &Env,
    ) -> Result<PathBuf, i32> {
        let p = parse(args, &["user"], &["project"], false)
            .map_err(|e| usage_error(command, help, &e))?;
        if self.agent == Agent::Kimi && !p.flag("user") {
            return Err(usage_error(
                command,
                help,
                "Kimi CLI reads hooks only from your config.toml, not from a project: use --user",
            ));
        }
        match (p.flag("user"), p.value("project")) {
            (true, Some(_)) => Err(usage_error(
                command,
                help,
                "choose one of --project DIR and --user",
            )),
            (true, None) => self.user_file(env).ok_or_else(|| {
                fail(
                    command,
                    "cannot find your home directory: set HOME and try again",
                )
            }),
            (false, Some(dir)) => {
                let dir = PathBuf::from(dir);
                let dir = match (dir.is_absolute(), &env.process_cwd) {
                    (false, Some(cwd)) => cwd.join(dir),
                    _ => dir,
                };
                if dir.is_dir() {
                    Ok(self.project_file(&dir))
                } else {
                    Err(fail(
                        command,
                        &format!(
                            "{} is not a directory; pass an existing project directory",
                            dir.display()
                        ),
                    ))
                }
            }
            (false, None) => crate::state::root::resolve(env, None)
                .map(|r| self.project_file(&r.project))
                .ok_or_else(|| {
                    fail(
                        command,
                        "cannot tell which project this is; run it inside the project or pass --project DIR",
                    )
                }),
        }
    }

    /// Whether the agent gets our plugin file rather than entries in a configuration file.
    pub(super) fn is_plugin(&self) -> bool {
        crate::protocol::agents::table::via_plugin(self.agent.wire())
    }

    pub(super) fn project_file(&self, project: &Path) -> PathBuf {
        match self.agent {
            Agent::Codex => project.join(".codex/hooks.json"),
            Agent::Gemini => project.join(".gemini/settings.json"),
            Agent::Qwen => project.join(".qwen/settings.json"),
            Agent::Cursor => project.join(".cursor/hooks.json"),
            Agent::Factory => project.join(".factory/settings.json"),
            Agent::CodeBuddy => project.join(".codebuddy/settings.json"),
            Agent::Qoder => project.join(".qoder/settings.json"),
            // A folder of hook scripts, one per event.
            Agent::Cline => project.join(".clinerules/hooks"),
            Agent::Auggie => project.join(".augment/settings.json"),
            // A file of our own among the repository's hook files (every `*.json` there is
            // read): nothing of the person's to merge into.
            Agent::Copilot => project.join(".github/hooks/omc-hooks.json"),
            // Kimi reads no project file: `target` refuses a project install, and this is only
            // where `doctor` would look.
            Agent::Kimi => project.join(".kimi/config.toml"),
            Agent::OpenCode => project.join(".opencode/plugins").join(PLUGIN_FILE),
            Agent::Kilo => project.join(".kilo/plugins").join(PLUGIN_FILE),
            Agent::Pi => project.join(".pi/extensions").join(PLUGIN_FILE),
            _ => project.join(".claude/settings.json"),
        }
    }

    /// The user-level file: `$CODEX_HOME/hooks.json`, `$GEMINI_CLI_HOME/.gemini/settings.json`
    /// (Gemini's home replaces `~`), `$QWEN_HOME/settings.json`, `~/.cursor/hooks.json`;
    /// Droid's `$FACTORY_HOME_OVERRIDE/.factory/settings.json` (the override replaces `~`),
    /// CodeBuddy's `$CODEBUDDY_CONFIG_DIR/settings.json` (the variable replaces `~/.codebuddy`),
    /// Qoder's `$QODER_CONFIG_DIR/settings.json`, else `$QODER_CLI_HOME/.qoder/settings.json`;
    /// Kimi's `$KIMI_SHARE_DIR/config.toml` (default `~/.kimi`); Cline's hooks folder
    /// `$CLINE_DIR/hooks` (default `~/.cline`); the plugin of OpenCode and Kilo Code in
    /// `$XDG_CONFIG_HOME/{opencode,kilo}/plugins/` (default `~/.config`), Pi's extension in
    /// `$PI_CODING_AGENT_DIR/extensions/` (default `~/.pi/agent`); Copilot's
    /// `$COPILOT_HOME/hooks/omc-hooks.json` (default `~/.copilot`) (as each pinned client's code
    /// resolves them, docs/agents-survey.md).
    pub(super) fn user_file(&self, env: &Env) -> Option<PathBuf> {
        let var = |k: &str| {
            env.var(k)
                .filter(|v| !v.trim().is_empty())
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        let home = var("HOME");
        Some(match self.agent {
            Agent::Codex => var("CODEX_HOME")
                .or_else(|| home.map(|h| h.join(".codex")))?
                .join("hooks.json"),
            Agent::Gemini => var("GEMINI_CLI_HOME")
                .or(home)?
                .join(".gemini/settings.json"),
            Agent::Qwen => var("QWEN_HOME")
                .or_else(|| home.map(|h| h.join(".qwen")))?
                .join("settings.json"),
            Agent::Cursor => home?.join(".cursor/hooks.json"),
            Agent::Factory => var("FACTORY_HOME_OVERRIDE")
                .or(home)?
                .join(".factory/settings.json"),
            Agent::CodeBuddy => var("CODEBUDDY_CONFIG_DIR")
                .or_else(|| home.map(|h| h.join(".codebuddy")))?
                .join("settings.json"),
            Agent::Qoder => var("QODER_CONFIG_DIR")
                .or_else(|| var("QODER_CLI_HOME").or(home).map(|h| h.join(".qoder")))?
                .join("settings.json"),
            Agent::Kimi => var("KIMI_SHARE_DIR")
                .or_else(|| home.map(|h| h.join(".kimi")))?
                .join("config.toml"),
            Agent::Cline => var("CLINE_DIR")
                .or_else(|| home.map(|h| h.join(".cline")))?
                .join("hooks"),
            Agent::Auggie => home?.join(".augment/settings.json"),
            Agent::OpenCode | Agent::Kilo => var("XDG_CONFIG_HOME")
                .or_else(|| home.map(|h| h.join(".config")))?
                .join(if self.agent == Agent::Kilo {
                    "kilo/plugins"
                } else {
                    "opencode/plugins"
                })
                .join(PLUGIN_FILE),
            // Pi expands a leading `~/` in its variable; an absolute one is taken as is here.
            Agent::Pi => var("PI_CODING_AGENT_DIR")
                .or_else(|| home.map(|h| h.join(".pi/agent")))?
                .join("extensions")
                .join(PLUGIN_FILE),
            Agent::Copilot => var("COPILOT_HOME")
                .or_else(|| home.map(|h| h.join(".copilot")))?
                .join("hooks/omc-hooks.json"),
            _ => return None,
        })
    }

    /// Settings in the file that keep the client from running any hook.
    pub(super) fn warnings(&self, value: &Value) -> Vec<String> {
        let mut out = Vec::new();
        match self.agent {
            Agent::Gemini if value.pointer("/hooksConfig/enabled") == Some(&json!(false)) => {
                out.push(
                    "\"hooksConfig\": {\"enabled\": false} in this file switches every hook \
                     off; set it to true for omc-hooks to run"
                        .into(),
                );
            }
            Agent::Qwen => {
                if value.get("disableAllHooks") == Some(&json!(true)) {
                    out.push(
                        "\"disableAllHooks\": true in this file switches every hook off".into(),
                    );
                }
                let max = crate::protocol::agents::caps::QWEN_MAX_CAP;
                if let Some(n) = value
                    .get("stopHookBlockingCap")
                    .and_then(Value::as_f64)
                    .filter(|n| *n < f64::from(max))
                {
                    out.push(format!(
                        "\"stopHookBlockingCap\": {n} in this file ends a run's turn after {} \
                         continuations, working or not; omc-hooks hands back a model that does \
                         no work after 8 by itself, so {max} (Qwen Code's ceiling) lets working \
                         runs go on",
                        (n.floor() as i64 - 1).max(1)
                    ));
                }
            }
            Agent::Qoder if value.get("disableAllHooks") == Some(&json!(true)) => {
                out.push("\"disableAllHooks\": true in this file switches every hook off".into());
            }
            _ => {}
        }
        out
    }

    /// What the person must still do before the client runs these hooks.
    pub(super) fn trust_note(&self, path: &Path) -> String {
        let project = self
            .project_of_file(path)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        match self.agent {
            Agent::Codex => format!(
                "Codex runs hooks only once you trust them, and skips untrusted ones without a \
                 word: start codex, open /hooks and trust the omc-hooks entries (they are keyed \
                 by this file's absolute path, so moving it needs a new review). A project's \
                 .codex/hooks.json is read only in a trusted project (trust {project} when codex \
                 asks, or `codex exec --trust` once)."
            ),
            Agent::Gemini => "Gemini CLI names project hooks on first use and remembers them \
                 in ~/.gemini/trusted_hooks.json; with folder trust on \
                 (security.folderTrust.enabled) the folder must be trusted too. Start a new \
                 gemini session for the hooks to load."
                .to_string(),
            Agent::Qwen => "Qwen Code reads a project's .qwen/settings.json only in a trusted \
                 folder when folder trust is on (it is off by default); --safe-mode, --bare and \
                 disableAllHooks switch hooks off. Start a new qwen session for them to load."
                .to_string(),
            Agent::Cursor => "Cursor runs project hooks (.cursor/hooks.json) only in a trusted \
                 workspace; reload the window for them to load."
                .to_string(),
            Agent::Factory => "Factory Droid reads these hooks when a session starts; start a \
                 new droid session for them to load. Its one-shot `droid exec \"…\"` sends no \
                 prompt event, so a keyword typed there starts nothing (a session driven over \
                 JSON-RPC, `droid exec --input-format stream-jsonrpc`, does), and a command that \
                 fails runs no hook, so failures are not escalated."
                .to_string(),
            Agent::CodeBuddy => "CodeBuddy reads these hooks when a session starts; start a \
                 new codebuddy session for them to load. It continues a run only in a session \
                 that keeps its input open (the interactive client, or `codebuddy -p \
                 --input-format stream-json`): a plain `codebuddy -p \"…\"` exits before the \
                 continuation runs."
                .to_string(),
            Agent::Kimi => "Kimi CLI reads these hooks when it starts; start a new kimi session. \
                 It shows the model no hook context and continues a turn once per prompt: a \
                 keyword starts its run in state, and each prompt's end-of-turn continuation \
                 carries the task."
                .to_string(),
            Agent::Cline => "Cline looks for hook scripts when a task starts (no trust step). \
                 It awaits only the tool hooks: omc-hooks adds its guidance after a tool \
                 (failure escalation) and runs your user hooks on tool calls — a refusal there \
                 ends the whole task — but Cline continues no turn and shows nothing at a \
                 prompt, so keywords and persistent modes do not work in it."
                .to_string(),
            Agent::Auggie => "Auggie reads these hooks when a session starts. It awaits only \
                 its tool hooks (0.36): omc-hooks can add guidance after a failing tool and run \
                 your user hooks on tool calls, but Auggie continues no turn and reads nothing \
                 at a prompt, so keywords and persistent modes do not work in it. None of this \
                 was run here: Auggie talks only to Augment's service."
                .to_string(),
            Agent::Copilot if path.ends_with(".github/hooks/omc-hooks.json") => format!(
                "GitHub Copilot CLI runs a repository's hooks only in a trusted folder, and \
                 skips them without a word otherwise: trust {project} when copilot asks (it is \
                 remembered in ~/.copilot/config.json, trustedFolders); `copilot -p` runs them \
                 only for a trusted folder, with --trust-folder, or with COPILOT_ALLOW_ALL=true. \
                 Hooks installed with --user need no trust. Copilot also runs the hooks of this \
                 project's .claude/settings.json: an omc-hooks entry there (Claude Code's \
                 install) stands down under Copilot, so Copilot is served once, by this file."
            ),
            Agent::Copilot => "GitHub Copilot CLI runs your own hooks (this folder) without \
                 asking; start a new copilot session for them to load. It also runs the hooks \
                 of a trusted project's .claude/settings.json: an omc-hooks entry there (Claude \
                 Code's install) stands down under Copilot, so Copilot is served once."
                .to_string(),
            Agent::Qoder => "Qoder reads these hooks when a session starts (\"disableAllHooks\": \
                 true switches them off); start a new qodercli session for them to load."
                .to_string(),
            Agent::OpenCode => "OpenCode loads the scripts of this folder when it starts, without \
                 asking: restart opencode (or opencode serve) for the plugin to load. On its \
                 first start OpenCode writes its own package.json and node_modules/ into the \
                 .opencode folder; uninstall leaves those. Kilo Code loads a project's \
                 .opencode/plugins too: in a project used with both, install for one of them."
                .to_string(),
            Agent::Kilo => "Kilo Code loads the scripts of this folder when it starts, without \
                 asking: restart kilo for the plugin to load. It also loads a project's \
                 .opencode/plugins: do not install for OpenCode in the same project, or every \
                 event runs twice."
                .to_string(),
            Agent::Pi => "Pi loads the extensions of this folder when it starts (or on /reload), \
                 without asking; --no-extensions switches them off."
                .to_string(),
            _ => String::new(),
        }
    }
}

/// The Claude Code manifest's timeout (seconds) for a hook subcommand: the same budget on
/// every agent.
pub(super) fn timeout_secs(sub: &str) -> u64 {
    crate::hooks::manifest_commands()
        .ok()
        .and_then(|cmds| {
            cmds.into_iter()
                .find(|(_, s, _)| s == sub)
                .map(|(_, _, t)| t as u64)
        })
        .unwrap_or(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_in_each_agents_unit() {
        let exe = Path::new("/x/omc-hooks");
        assert_eq!(
            Layout::of(Agent::Gemini).handler(exe, "stop")["timeout"],
            10_000
        );
        assert_eq!(Layout::of(Agent::Qwen).handler(exe, "stop")["timeout"], 10);
        assert_eq!(
            Layout::of(Agent::Codex).handler(exe, "session-end")["timeout"],
            2
        );
        assert_eq!(
            Layout::of(Agent::Cursor).handler(exe, "stop")["timeout"],
            10
        );
        assert_eq!(
            Layout::of(Agent::Gemini).handler(exe, "stop")["name"],
            "omc-hooks stop"
        );
    }

    #[cfg(unix)] // Unix paths (`/h`); on Windows an absolute path has a drive.
    #[test]
    fn user_files_follow_each_clients_home_variable() {
        let env = Env::from_lookup(
            |_| None,
            None,
            [
                ("HOME".to_string(), "/h".to_string()),
                ("CODEX_HOME".to_string(), "/c".to_string()),
                ("GEMINI_CLI_HOME".to_string(), "/g".to_string()),
            ]
            .into_iter()
            .collect(),
        );
        let f = |a| Layout::of(a).user_file(&env).unwrap();
        assert_eq!(f(Agent::Codex), PathBuf::from("/c/hooks.json"));
        assert_eq!(f(Agent::Gemini), PathBuf::from("/g/.gemini/settings.json"));
        assert_eq!(f(Agent::Qwen), PathBuf::from("/h/.qwen/settings.json"));
        assert_eq!(f(Agent::Cursor), PathBuf::from("/h/.cursor/hooks.json"));
        assert_eq!(
            f(Agent::Factory),
            PathBuf::from("/h/.factory/settings.json")
        );
        assert_eq!(
            f(Agent::CodeBuddy),
            PathBuf::from("/h/.codebuddy/settings.json")
        );
        assert_eq!(f(Agent::Qoder), PathBuf::from("/h/.qoder/settings.json"));
    }

    #[cfg(unix)] // Unix paths (`/h`); on Windows an absolute path has a drive.
    #[test]
    fn the_claude_format_clients_homes_follow_their_variables() {
        let env = Env::from_lookup(
            |_| None,
            None,
            [
                ("HOME", "/h"),
                ("FACTORY_HOME_OVERRIDE", "/f"),
                ("CODEBUDDY_CONFIG_DIR", "/cb"),
                ("QODER_CLI_HOME", "/qh"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        );
        let f = |a| Layout::of(a).user_file(&env).unwrap();
        assert_eq!(
            f(Agent::Factory),
            PathBuf::from("/f/.factory/settings.json")
        );
        assert_eq!(f(Agent::CodeBuddy), PathBuf::from("/cb/settings.json"));
        assert_eq!(f(Agent::Qoder), PathBuf::from("/qh/.qoder/settings.json"));
        // QODER_CONFIG_DIR names the folder itself and wins over QODER_CLI_HOME.
        let env = Env::from_lookup(
            |_| None,
            None,
            [
                ("HOME", "/h"),
                ("QODER_CLI_HOME", "/qh"),
                ("QODER_CONFIG_DIR", "/qc"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        );
        assert_eq!(
            Layout::of(Agent::Qoder).user_file(&env).unwrap(),
            PathBuf::from("/qc/settings.json")
        );
    }

    #[test]
    fn the_claude_format_clients_get_claude_code_entries_in_their_own_folder() {
        let exe = Path::new("/x/omc-hooks");
        for (agent, dir) in [
            (Agent::Factory, ".factory"),
            (Agent::CodeBuddy, ".codebuddy"),
            (Agent::Qoder, ".qoder"),
        ] {
            let l = Layout::of(agent);
            assert_eq!(
                l.project_file(Path::new("/p")),
                PathBuf::from(format!("/p/{dir}/settings.json"))
            );
            assert!(!l.flat);
            assert!(l.scaffold().is_empty());
            let h = l.handler(exe, "stop");
            assert_eq!(h["type"], "command");
            assert_eq!(h["timeout"], 10, "{agent}: seconds");
            assert!(!l.trust_note(Path::new("/p/x/settings.json")).is_empty());
        }
        assert_eq!(
            Layout::of(Agent::Qoder)
                .warnings(&json!({"disableAllHooks": true}))
                .len(),
            1
        );
    }
}
