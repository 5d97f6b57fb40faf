//! The hook subcommands: their names (as in hooks.json), the Claude Code event each serves, and
//! their time budgets. The manifest itself is embedded so the binary and the file it ships
//! cannot disagree unnoticed (a test checks both directions).

use std::time::Duration;

/// The manifest shipped at the repository root, compiled in.
pub const MANIFEST: &str = include_str!("../hooks.json");

/// The shell command every manifest entry runs, `{sub}` standing for its subcommand. The client
/// already runs a hook's command through a shell; this finds the binary inside that one shell,
/// with built-ins only (no extra process once a binary is found), first that exists:
///
/// 1. `bin/omc-hooks` in the plugin — the prebuilt binary of a marketplace install (a link the
///    first hook makes to `bin/<target>/omc-hooks`, step 3);
/// 2. `target/release/omc-hooks` — a checkout built with `cargo build --release`;
/// 3. (a plugin with a `bin/` directory: a marketplace bundle) its `bin/<target>/omc-hooks` for
///    this machine, found once with `uname` and linked as `bin/omc-hooks` for the next hooks.
///    Before PATH, so that the bundle's own binary wins over an `omc-hooks` on PATH that may
///    be npm's Node.js launcher, which would start Node for every hook and never let the link
///    be made;
/// 4. `omc-hooks` on PATH, then `~/.cargo/bin/omc-hooks` — `cargo install omc-hooks`;
/// 5. nothing at all: exit 0 (fail open); SessionStart alone says, once per session, how to
///    get the binary (a `systemMessage`, which the person sees and the model does not).
///
/// The command ends with the subcommand's name as its last word.
///
/// On Windows the client runs the command with Git Bash (`uname -sm` says `MINGW64_NT-… x86_64`,
/// or `MSYS_NT-…`, `CYGWIN_NT-…`), the binary is `omc-hooks.exe` and each step also tries that
/// name: the bundle's `bin/x86_64-pc-windows-msvc/omc-hooks.exe`, "linked" as
/// `bin/omc-hooks.exe` (Git Bash's `ln -s` copies the file unless Windows symlinks are enabled;
/// either way the next hook finds it at step 1).
pub const LAUNCHER: &str = concat!(
    r#"o(){ r="${CLAUDE_PLUGIN_ROOT}"; "#,
    r#"for b in "$r/bin/omc-hooks" "$r/bin/omc-hooks.exe" "$r/target/release/omc-hooks" "$r/target/release/omc-hooks.exe"; do [ -x "$b" ] && exec "$b" "$@"; done; "#,
    r#"if [ -d "$r/bin" ]; then "#,
    r#"case "$(uname -sm 2>/dev/null)" in "#,
    r#""Linux x86_64") t=x86_64-unknown-linux-musl;; "#,
    r#""Linux aarch64"|"Linux arm64") t=aarch64-unknown-linux-musl;; "#,
    r#""Darwin x86_64") t=x86_64-apple-darwin;; "#,
    r#""Darwin arm64") t=aarch64-apple-darwin;; "#,
    r#"MINGW*" x86_64"|MSYS*" x86_64"|CYGWIN*" x86_64") t=x86_64-pc-windows-msvc;; "#,
    r#"*) t=none;; esac; "#,
    r#"for x in "" .exe; do if [ -x "$r/bin/$t/omc-hooks$x" ]; then ln -s "$t/omc-hooks$x" "$r/bin/omc-hooks$x" 2>/dev/null; exec "$r/bin/$t/omc-hooks$x" "$@"; fi; done; fi; "#,
    r#"command -v omc-hooks >/dev/null 2>&1 && exec omc-hooks "$@"; "#,
    r#"for b in "$HOME/.cargo/bin/omc-hooks" "$HOME/.cargo/bin/omc-hooks.exe"; do [ -x "$b" ] && exec "$b" "$@"; done; "#,
    r#"[ "$1" = session-start ] && echo '{"systemMessage":"omc-hooks is off: its binary is not installed. Run: cargo install omc-hooks (or install the plugin from its marketplace, which ships prebuilt binaries), then start a new session. omc-hooks doctor checks the setup."}'; "#,
    r#"exit 0; }; o {sub}"#
);

/// The manifest command for a hook subcommand.
pub fn launcher(sub: &str) -> String {
    LAUNCHER.replace("{sub}", sub)
}

/// The hook subcommand a manifest command runs: its last word, when that names one.
pub fn manifest_subcommand(command: &str) -> Option<&'static str> {
    find(command.split_whitespace().last()?).map(|h| h.name)
}

/// The Rust target names the release builds, as `bin/<target>/omc-hooks` in the plugin bundle
/// and in [`LAUNCHER`]'s choice by `uname -sm`.
pub const RELEASE_TARGETS: [&str; 5] = [
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
];

/// One hook subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hook {
    /// The subcommand name, as it appears in hooks.json and in `OMC_SKIP_HOOKS`.
    pub name: &'static str,
    /// The Claude Code event it answers.
    pub event: &'static str,
    /// The internal deadline: past it the hook answers with a no-op. Well under the manifest
    /// timeout, and for SessionEnd under the client's 1.5 s shared budget.
    pub deadline: Duration,
}

const DEFAULT_DEADLINE: Duration = Duration::from_millis(2_500);

/// Every hook subcommand, in lifecycle order.
pub const HOOKS: [Hook; 14] = [
    hook("session-start", "SessionStart", DEFAULT_DEADLINE),
    hook("user-prompt-submit", "UserPromptSubmit", DEFAULT_DEADLINE),
    hook("pre-tool-use", "PreToolUse", DEFAULT_DEADLINE),
    hook("permission-request", "PermissionRequest", DEFAULT_DEADLINE),
    hook("permission-denied", "PermissionDenied", DEFAULT_DEADLINE),
    hook("post-tool-use", "PostToolUse", DEFAULT_DEADLINE),
    hook(
        "post-tool-use-failure",
        "PostToolUseFailure",
        DEFAULT_DEADLINE,
    ),
    hook("notification", "Notification", DEFAULT_DEADLINE),
    hook("subagent-start", "SubagentStart", DEFAULT_DEADLINE),
    hook("subagent-stop", "SubagentStop", DEFAULT_DEADLINE),
    hook("pre-compact", "PreCompact", DEFAULT_DEADLINE),
    hook("stop", "Stop", DEFAULT_DEADLINE),
    hook("stop-failure", "StopFailure", DEFAULT_DEADLINE),
    hook("session-end", "SessionEnd", Duration::from_millis(900)),
];

const fn hook(name: &'static str, event: &'static str, deadline: Duration) -> Hook {
    Hook {
        name,
        event,
        deadline,
    }
}

pub fn find(name: &str) -> Option<Hook> {
    HOOKS.iter().copied().find(|h| h.name == name)
}

/// What one `OMC_SKIP_HOOKS` token names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipToken {
    /// One of our hooks, by its subcommand or its Claude Code event.
    Hook(Hook),
    /// `all` or `*`: every hook.
    All,
    /// A token of oh-my-claudecode's own hook scripts, which shares the variable: it skips
    /// the work of ours that does that script's job ([`OMC_SCRIPTS`]), unless
    /// `OMC_SKIP_HOOKS_OMC_ONLY` is on.
    Omc,
    /// Nothing we know.
    Unknown,
}

/// What one of OMC's own script names in `OMC_SKIP_HOOKS` skips here: the work of ours that
/// does the job of that script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OmcWork {
    /// These capabilities (by their registry names), wherever they run.
    Capabilities(&'static [&'static str]),
    /// All our capabilities of this hook subcommand (OMC's script is the whole of its event's
    /// work), but not the person's own `hooks.toml` entries for it (they are not OMC's) nor
    /// the guards that keep trust the person's ([`crate::hooks::UNSKIPPABLE`]).
    Hook(&'static str),
    /// Nothing: we do no such work.
    Nothing,
}

/// OMC's script names (`OMC_SKIP_HOOKS` tokens of oh-my-claudecode's hooks, contract §13), and
/// what each skips of ours. A name of OMC's that is also one of our hook subcommands
/// (`pre-tool-use`, `session-start`, `pre-compact`, …) is read as that hook.
pub const OMC_SCRIPTS: &[(&str, OmcWork)] = &[
    ("keyword-detector", OmcWork::Capabilities(&["keywords"])),
    ("skill-injector", OmcWork::Capabilities(&["learned-skills"])),
    (
        "persistent-mode",
        OmcWork::Capabilities(&["persistent_mode"]),
    ),
    (
        "stop-continuation",
        OmcWork::Capabilities(&["persistent_mode"]),
    ),
    ("subagent-tracker", OmcWork::Capabilities(&["subagents"])),
    ("pre-tool-enforcer", OmcWork::Hook("pre-tool-use")),
    ("post-tool-verifier", OmcWork::Hook("post-tool-use")),
    (
        "post-tool-rules-injector",
        OmcWork::Capabilities(&["project-rules"]),
    ),
    ("workflow-drift-guard", OmcWork::Nothing),
];

fn skip_key(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// What OMC's script name `token` skips, if it is one.
pub fn omc_work(token: &str) -> Option<OmcWork> {
    let t = skip_key(token);
    OMC_SCRIPTS
        .iter()
        .find(|(name, _)| skip_key(name) == t)
        .map(|(_, w)| *w)
}

/// The capabilities (registry names) OMC's script names among `tokens` skip; none when
/// `omc_only` (`OMC_SKIP_HOOKS_OMC_ONLY`) says those names are for OMC alone.
pub fn skipped_capabilities(tokens: &[String], omc_only: bool) -> Vec<&'static str> {
    if omc_only {
        return Vec::new();
    }
    tokens
        .iter()
        .filter_map(|t| match omc_work(t) {
            Some(OmcWork::Capabilities(c)) => Some(c.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect()
}

/// Reads a token as people write it: a hook subcommand (`pre-tool-use`) or a Claude Code
/// event (`PreToolUse`), in any case, with `-`, `_` or nothing between the words
/// (`pre_tool_use`, `PRETOOLUSE`).
pub fn read_skip_token(token: &str) -> SkipToken {
    let key = skip_key;
    let t = key(token);
    if t == "all" || t == "*" {
        return SkipToken::All;
    }
    if let Some(h) = HOOKS.iter().find(|h| key(h.name) == t || key(h.event) == t) {
        return SkipToken::Hook(*h);
    }
    if omc_work(token).is_some() {
        return SkipToken::Omc;
    }
    SkipToken::Unknown
}

/// Whether `OMC_SKIP_HOOKS`'s `tokens` skip `hook` as a whole, the person's own `hooks.toml`
/// entries included: by its name or event, or `all`. An OMC script name never does (issue
/// 43: `pre-tool-enforcer` had switched off the person's own blocking rules as well, silently);
/// see [`omc_skips_hook_work`].
pub fn skipped_by(tokens: &[String], hook: Hook) -> bool {
    tokens.iter().any(|t| match read_skip_token(t) {
        SkipToken::All => true,
        SkipToken::Hook(h) => h.name == hook.name,
        SkipToken::Omc | SkipToken::Unknown => false,
    })
}

/// Capabilities no OMC script name skips: a cloned repository's `.claude/settings.json` can
/// set `OMC_SKIP_HOOKS=pre-tool-enforcer` for OMC's sake, and that must not switch off the
/// refusal of `omc-hooks trust` (contract §17). Naming the hook itself (`pre-tool-use`) or
/// `all` still skips everything: that is the person's own word about our hooks.
pub const UNSKIPPABLE: &[&str] = &["trust-guard"];

/// Whether an OMC script name among `tokens` stands for all of `hook`'s work of ours
/// (`pre-tool-enforcer` for `pre-tool-use`), unless `omc_only`: our capabilities of that hook
/// are skipped, except [`UNSKIPPABLE`], and the person's own hooks still run.
pub fn omc_skips_hook_work(tokens: &[String], hook: Hook, omc_only: bool) -> bool {
    !omc_only
        && tokens
            .iter()
            .any(|t| omc_work(t) == Some(OmcWork::Hook(hook.name)))
}

/// The tokens of `OMC_SKIP_HOOKS` that name nothing, each as a sentence for a diagnostic.
pub fn unknown_skip_tokens(tokens: &[String]) -> Vec<String> {
    tokens
        .iter()
        .filter(|t| read_skip_token(t) == SkipToken::Unknown)
        .map(|t| {
            format!(
                "OMC_SKIP_HOOKS: '{t}' names no hook (one of {}, or their events such as \
                 Stop; 'all' for every one); ignored",
                HOOKS.iter().map(|h| h.name).collect::<Vec<_>>().join(", ")
            )
        })
        .collect()
}

/// Every event name Claude Code sends (`hook_event_name`), as of the pinned client. A payload
/// naming one of these is known to be about that event, so a subcommand serving another event
/// must not act on it.
pub const CLAUDE_EVENTS: &[&str] = &[
    "SessionStart",
    "Setup",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "PreToolUse",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "StopFailure",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
    "ConfigChange",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "WorktreeCreate",
    "WorktreeRemove",
    "Elicitation",
    "ElicitationResult",
    "MessageDisplay",
];

/// Whether `hook` should act on a payload whose `hook_event_name` is `event`: yes when the name
/// is absent (older clients, hand-written payloads) or is the event the hook serves; no when it
/// is another event Claude Code is known to send (a mistyped or stale manifest entry, e.g. `stop`
/// mapped under `SubagentStop`, must not advance a run); yes for a name Claude Code does not use
/// (another agent's event, which an adapter maps onto the neutral hook before this check).
pub fn serves(hook: Hook, event: Option<&str>) -> bool {
    match event.map(str::trim) {
        None | Some("") => true,
        Some(e) if e == hook.event => true,
        Some(e) => !CLAUDE_EVENTS.contains(&e),
    }
}

/// The (event, subcommand, timeout seconds) triples the manifest declares.
pub fn manifest_commands() -> Result<Vec<(String, String, f64)>, String> {
    let v: serde_json::Value = serde_json::from_str(MANIFEST).map_err(|e| e.to_string())?;
    let events = v
        .get("hooks")
        .and_then(|h| h.as_object())
        .ok_or("manifest has no hooks object")?;
    let mut out = Vec::new();
    for (event, groups) in events {
        for group in groups.as_array().ok_or("event entry is not an array")? {
            for handler in group
                .get("hooks")
                .and_then(|h| h.as_array())
                .ok_or("group has no hooks array")?
            {
                let command = handler
                    .get("command")
                    .and_then(|c| c.as_str())
                    .ok_or("handler has no command")?;
                let sub = command
                    .split_whitespace()
                    .last()
                    .ok_or("empty command")?
                    .to_string();
                let timeout = handler
                    .get("timeout")
                    .and_then(|t| t.as_f64())
                    .unwrap_or(600.0);
                out.push((event.clone(), sub, timeout));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_and_subcommands_agree() {
        let cmds = manifest_commands().unwrap();
        for (event, sub, timeout) in &cmds {
            let h = find(sub).unwrap_or_else(|| panic!("manifest names unknown subcommand {sub}"));
            assert_eq!(h.event, event, "{sub} is mapped under the wrong event");
            assert!(
                h.deadline.as_secs_f64() * 2.0 <= *timeout,
                "{sub}: internal deadline must be well under the manifest timeout"
            );
        }
        for h in HOOKS {
            assert!(
                cmds.iter().any(|(_, s, _)| s == h.name),
                "hook subcommand {} is missing from hooks.json",
                h.name
            );
        }
    }

    #[test]
    fn a_hook_serves_its_own_event_and_no_other_known_one() {
        let stop = find("stop").unwrap();
        assert!(serves(stop, None));
        assert!(serves(stop, Some("")));
        assert!(serves(stop, Some("Stop")));
        assert!(!serves(stop, Some("SubagentStop")));
        assert!(!serves(stop, Some("Notification")));
        // Another agent's name for its own event: not ours to refuse.
        assert!(serves(stop, Some("AfterAgent")));
        for h in HOOKS {
            assert!(CLAUDE_EVENTS.contains(&h.event), "{}", h.event);
            assert!(serves(h, Some(h.event)));
        }
    }

    #[test]
    fn every_manifest_command_is_the_launcher_for_its_subcommand() {
        let v: serde_json::Value = serde_json::from_str(MANIFEST).unwrap();
        let mut n = 0;
        for groups in v["hooks"].as_object().unwrap().values() {
            for g in groups.as_array().unwrap() {
                for h in g["hooks"].as_array().unwrap() {
                    let cmd = h["command"].as_str().unwrap();
                    let sub = manifest_subcommand(cmd).expect("names a hook subcommand");
                    assert_eq!(cmd, launcher(sub));
                    n += 1;
                }
            }
        }
        assert_eq!(n, HOOKS.len());
        for t in RELEASE_TARGETS {
            assert!(LAUNCHER.contains(&format!(") t={t};;")), "{t}");
        }
    }
}
