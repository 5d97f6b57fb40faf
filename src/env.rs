//! The process environment, read once.
//!
//! Capabilities never call `std::env` themselves: they see this table, which tests fill by
//! hand. That keeps every switch uniform across subcommands and every test hermetic.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// The switches and locations the contract (§3, §4) lets the environment set.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `DISABLE_OMC` is on ([`flag`]: `1`, `true`, `yes`, `on`…): every subcommand is a no-op.
    /// A value that is neither yes nor no counts as on (whoever set a variable named so meant
    /// to switch the hooks off) and is named in [`Env::switch_problems`].
    pub disabled: bool,
    /// `OMC_SKIP_HOOKS`: the tokens as written (split on commas, semicolons and spaces), read
    /// by [`crate::hooks::skipped_by`]: hook names or Claude Code event names, in any case.
    pub skip_hooks: Vec<String>,
    /// `OMC_SKIP_HOOKS_OMC_ONLY` is on: OMC's script names in `OMC_SKIP_HOOKS`
    /// (`keyword-detector`, …) are meant for oh-my-claudecode alone and skip nothing of ours
    /// (`install --disable-omc` sets it beside the names it adds).
    pub skip_omc_only: bool,
    /// Switch values that could not be read, each as a sentence (`DISABLE_OMC='maybe' …`),
    /// for the one diagnostic a hook prints and for `doctor`.
    pub switch_problems: Vec<String>,
    /// `OMC_TEAM_WORKER` is non-empty: keyword activation is off for this process.
    pub team_worker: bool,
    /// `OMC_NOW_MS`: the pinned clock, milliseconds since the epoch.
    pub now_ms: Option<i64>,
    /// `OMC_STATE_DIR`: an absolute directory that replaces `<project>/.omc`.
    pub state_dir: Option<PathBuf>,
    /// `CLAUDE_PROJECT_DIR`, as Claude Code exports it to every hook.
    pub project_dir: Option<PathBuf>,
    /// The process's working directory, the last fallback for the project root.
    pub process_cwd: Option<PathBuf>,
    /// `OMC_DEBUG`: extra diagnostics on stderr.
    pub debug: bool,
    /// `OMC_DURABLE` is `1` or `true`: state writes are fsynced (file and directory), durable
    /// against a power failure; otherwise they are atomic only (`state::fs::write_atomic`).
    pub durable: bool,
    /// `OMC_TRACE_FILE`: an absolute file to which every hook invocation appends one JSON line
    /// (subcommand, decoded event and session, outcome). For debugging and the real-client tests.
    pub trace_file: Option<PathBuf>,
    /// Anything else a capability may look up by name (for example `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`).
    pub extra: HashMap<String, String>,
    /// `OMC_TTY`, when set and not empty: the controlling terminal, pinned ([`Env::tty`]).
    tty: Option<String>,
    /// The controlling terminal as the system says, asked the first time [`Env::tty`] needs it
    /// (only a real process without `OMC_TTY` asks; most hooks never do).
    system_tty: std::sync::OnceLock<Option<String>>,
    /// Whether [`Env::tty`] may ask the system ([`Env::from_process`], `OMC_TTY` unset).
    ask_system_tty: bool,
    /// Set by [`Env::from_process`]: [`Env::lookup`] may also read variables not copied into
    /// `extra` (user hooks expand `${VAR}` in webhook headers from any variable).
    pub process_env: bool,
}

/// The key under which [`Env::from_process`] records this binary's own path in [`Env::extra`]
/// (not an environment variable): texts that tell the model to run `omc-hooks …` use it.
pub const EXE_VAR: &str = "omc-hooks:exe";

/// Variables copied into [`Env::extra`] because some capability reads them.
const EXTRA_VARS: &[&str] = &[
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP",
    "CLAUDE_CONFIG_DIR",
    "CLINE_DIR",
    "CODEBUDDY_CONFIG_DIR",
    "CODEBUDDY_SESSION_ID",
    "CODEX_HOME",
    "CODEX_THREAD_ID",
    "COPILOT_AGENT_SESSION_ID",
    "COPILOT_HOME",
    "FACTORY_HOME_OVERRIDE",
    "GEMINI_CLI_HOME",
    "TERM_PROGRAM",
    "TMUX",
    "HOME",
    "KIMI_SHARE_DIR",
    "OMC_RALPH_HARD_MAX",
    "OMC_STOP_BLOCK_CAP",
    "PATH",
    "PI_CODING_AGENT_DIR",
    "QODER_CLI_HOME",
    "QODER_CONFIG_DIR",
    "QWEN_CODE_SESSION_ID",
    "QWEN_CODE_STOP_HOOK_BLOCK_CAP",
    "QWEN_HOME",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
];

/// The variables by which a terminal says which of its sessions, tabs or panes a process runs
/// in, with how a person names that place: the first one set is the session's locator
/// ([`Env::terminal_locator`]), recorded in `session.json` and quoted by notifications so a
/// person can find the session. Ghostty and Warp put no such id in the environment (only
/// `TERM_PROGRAM`, kept beside it); a terminal's title is not in the environment either.
pub const TERMINAL_LOCATORS: &[(&str, &str)] = &[
    ("TMUX_PANE", "tmux pane"),
    ("ZELLIJ_PANE_ID", "zellij pane"),
    ("WEZTERM_PANE", "WezTerm pane"),
    ("KITTY_WINDOW_ID", "kitty window"),
    ("ITERM_SESSION_ID", "iTerm2 session"),
    ("TERM_SESSION_ID", "Terminal session"),
    ("WT_SESSION", "Windows Terminal session"),
];

/// The names of the export switches (`OMC_EXPORT_*`), read by `crate::export::sources` and the
/// flusher. Named here, with every other variable the table holds, so that the ground floor
/// does not reach up into export to learn which variables to copy.
pub mod export_vars {
    /// `1`/`true`/`on`, or a base URL: OTLP export of every event.
    pub const OTLP: &str = "OMC_EXPORT_OTLP";
    /// `name=value,…` headers for the OTLP sink (values may hold `${VAR}`).
    pub const OTLP_HEADERS: &str = "OMC_EXPORT_OTLP_HEADERS";
    /// A URL: batch webhook of every event.
    pub const WEBHOOK_URL: &str = "OMC_EXPORT_WEBHOOK_URL";
    /// `name=value,…` headers for the webhook sink.
    pub const WEBHOOK_HEADERS: &str = "OMC_EXPORT_WEBHOOK_HEADERS";
    /// The webhook signing key itself (read by the flusher at delivery time, never stored).
    pub const WEBHOOK_SECRET: &str = "OMC_EXPORT_WEBHOOK_SECRET";
    /// Batch size and flush interval of the environment's sinks.
    pub const BATCH_SIZE: &str = "OMC_EXPORT_BATCH_SIZE";
    pub const FLUSH_INTERVAL_MS: &str = "OMC_EXPORT_FLUSH_INTERVAL_MS";
    /// `0`/`false`/`off`: the environment's sinks export payloads unredacted.
    pub const REDACT: &str = "OMC_EXPORT_REDACT";

    /// How long the flusher stays after the spools are empty (ms; read by the flusher).
    pub const LINGER_MS: &str = "OMC_EXPORT_LINGER_MS";

    /// Every export variable, as copied into the hook's [`super::Env`] and handed to the flusher.
    pub const VARS: &[&str] = &[
        OTLP,
        OTLP_HEADERS,
        WEBHOOK_URL,
        WEBHOOK_HEADERS,
        WEBHOOK_SECRET,
        BATCH_SIZE,
        FLUSH_INTERVAL_MS,
        REDACT,
        LINGER_MS,
    ];
}

impl Env {
    /// Reads the real process environment.
    pub fn from_process() -> Env {
        let get = |k: &str| std::env::var_os(k).map(os_to_string);
        let mut extra = HashMap::new();
        for name in EXTRA_VARS
            .iter()
            .chain(TERMINAL_LOCATORS.iter().map(|(n, _)| n))
        {
            if let Some(v) = get(name) {
                extra.insert((*name).to_string(), v);
            }
        }
        if !extra.contains_key("HOME")
            && let Some(v) = crate::platform::HOME_FALLBACK.and_then(get)
        {
            extra.insert("HOME".to_string(), v);
        }
        // The export switches: looked up by name, which is cheaper than
        // copying the whole environment to find a prefix.
        for name in export_vars::VARS {
            if let Some(v) = get(name) {
                extra.insert((*name).to_string(), v);
            }
        }
        if let Ok(exe) = std::env::current_exe() {
            extra.insert(EXE_VAR.to_string(), exe.to_string_lossy().into_owned());
        }
        let mut env = Env::from_lookup(|k| get(k), std::env::current_dir().ok(), extra);
        env.process_env = true;
        // OMC_TTY set, even empty (none), is the answer; else the system is asked, if needed.
        env.ask_system_tty = get("OMC_TTY").is_none();
        env
    }

    /// Builds the table from any lookup function; used by tests and by [`Env::from_process`].
    pub fn from_lookup(
        get: impl Fn(&str) -> Option<String>,
        process_cwd: Option<PathBuf>,
        extra: HashMap<String, String>,
    ) -> Env {
        let truthy = |v: Option<String>| v.as_deref().and_then(flag).unwrap_or(false);
        let mut switch_problems = Vec::new();
        let disabled = match get("DISABLE_OMC") {
            None => false,
            Some(v) => flag(&v).unwrap_or_else(|| {
                switch_problems.push(format!(
                    "DISABLE_OMC='{}' is neither yes (1, true, yes, on) nor no (0, false, no, \
                     off, empty); read as on: every hook is off",
                    v.trim()
                ));
                true
            }),
        };
        let abs_dir = |v: Option<String>| {
            v.filter(|s| !s.trim().is_empty())
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        Env {
            disabled,
            skip_hooks: get("OMC_SKIP_HOOKS")
                .map(|s| {
                    s.split(|c: char| c == ',' || c == ';' || c.is_whitespace())
                        .filter(|t| !t.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            skip_omc_only: get("OMC_SKIP_HOOKS_OMC_ONLY")
                .as_deref()
                .and_then(flag)
                .unwrap_or(false),
            switch_problems,
            team_worker: get("OMC_TEAM_WORKER").is_some_and(|s| !s.trim().is_empty()),
            now_ms: get("OMC_NOW_MS").and_then(|s| s.trim().parse::<i64>().ok()),
            state_dir: abs_dir(get("OMC_STATE_DIR")),
            project_dir: abs_dir(get("CLAUDE_PROJECT_DIR")),
            process_cwd,
            debug: truthy(get("OMC_DEBUG")),
            durable: truthy(get("OMC_DURABLE")),
            trace_file: get("OMC_TRACE_FILE")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute()),
            tty: get("OMC_TTY").filter(|t| !t.trim().is_empty()),
            system_tty: std::sync::OnceLock::new(),
            ask_system_tty: false,
            extra,
            process_env: false,
        }
    }

    /// Milliseconds since the epoch: the pinned clock if set, else the system clock.
    pub fn now_ms(&self) -> i64 {
        self.now_ms.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0)
        })
    }

    /// Where the session is in its terminal: the first of [`TERMINAL_LOCATORS`] that is set,
    /// as `<place> <id>` (`tmux pane %3`, `iTerm2 session w0t1p0:…`), the tmux server's socket
    /// added for a tmux pane (`TMUX`'s first part), at most 160 characters.
    pub fn terminal_locator(&self) -> Option<String> {
        let (name, place) = TERMINAL_LOCATORS
            .iter()
            .find(|(n, _)| self.var(n).is_some_and(|v| !v.trim().is_empty()))?;
        let id = self.var(name)?.trim();
        let mut s = format!("{place} {id}");
        if *name == "TMUX_PANE"
            && let Some(socket) = self
                .var("TMUX")
                .and_then(|t| t.split(',').next())
                .filter(|t| !t.is_empty())
        {
            s.push_str(&format!(" ({socket})"));
        }
        Some(s.chars().filter(|c| !c.is_control()).take(160).collect())
    }

    /// A variable copied into [`Env::extra`].
    pub fn var(&self, name: &str) -> Option<&str> {
        self.extra.get(name).map(String::as_str)
    }

    /// The controlling terminal of this process (inherited from the agent), such as
    /// `/dev/pts/3`, where the system says (Linux: `/proc/self/stat`, read once, when first
    /// asked); `OMC_TTY` pins it (empty: none).
    pub fn tty(&self) -> Option<&str> {
        if self.ask_system_tty {
            return self.system_tty.get_or_init(controlling_tty).as_deref();
        }
        self.tty.as_deref()
    }

    /// Any variable: [`Env::extra`] first, then, for the real process only, its environment.
    pub fn lookup(&self, name: &str) -> Option<String> {
        if let Some(v) = self.extra.get(name) {
            return Some(v.clone());
        }
        if self.process_env {
            return std::env::var_os(name).map(os_to_string);
        }
        None
    }
}

/// The controlling terminal's device, from field 7 (`tty_nr`) of `/proc/self/stat`: a pseudo
/// terminal (`/dev/pts/N`) or a console (`/dev/ttyN`); `None` without one, or elsewhere.
fn controlling_tty() -> Option<String> {
    // One read: the file is a few hundred bytes (52 numbers at most), and `read_to_string` of
    // a file whose size the kernel gives as 0 reads it 32 bytes at first, in six calls.
    let mut buf = [0u8; 4096];
    let n =
        std::io::Read::read(&mut std::fs::File::open("/proc/self/stat").ok()?, &mut buf).ok()?;
    let stat = std::str::from_utf8(&buf[..n]).ok()?;
    // The command name, in parentheses, may hold spaces: count fields after its end.
    let rest = &stat[stat.rfind(')')? + 1..];
    let tty_nr: u64 = rest.split_whitespace().nth(4)?.parse().ok()?;
    let major = (tty_nr >> 8) & 0xfff;
    let minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
    match major {
        0 => None,
        136..=143 => Some(format!("/dev/pts/{}", (major - 136) * 256 + minor)),
        4 if minor < 64 => Some(format!("/dev/tty{minor}")),
        _ => None,
    }
}

/// An on/off switch as people type it: `1`, `true`, `yes`, `y`, `on` are on; `0`, `false`,
/// `no`, `n`, `off` and an empty value are off; any case, spaces around ignored. `None` for
/// anything else.
pub fn flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "y" | "on" => Some(true),
        "0" | "false" | "no" | "n" | "off" | "" => Some(false),
        _ => None,
    }
}

fn os_to_string(s: OsString) -> String {
    s.to_string_lossy().into_owned()
}

/// The user's configuration directory for omc-hooks: `$XDG_CONFIG_HOME/omc-hooks` (an absolute
/// `XDG_CONFIG_HOME` only, as the XDG spec says), else `$HOME/.config/omc-hooks`.
pub fn user_config_dir(env: &Env) -> Option<PathBuf> {
    let xdg = env
        .var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let base = xdg.or_else(|| {
        env.var("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| std::path::Path::new(h).join(".config"))
    })?;
    Some(base.join("omc-hooks"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_terminal_locator_set_names_the_place() {
        let env = |pairs: &[(&str, &str)]| {
            Env::from_lookup(
                |_| None,
                None,
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )
        };
        assert_eq!(env(&[]).terminal_locator(), None);
        assert_eq!(
            env(&[("KITTY_WINDOW_ID", "4"), ("TERM_SESSION_ID", "X")]).terminal_locator(),
            Some("kitty window 4".into())
        );
        assert_eq!(
            env(&[("TMUX_PANE", "%1"), ("TMUX", "/tmp/s,1,0")]).terminal_locator(),
            Some("tmux pane %1 (/tmp/s)".into())
        );
        assert_eq!(
            env(&[("WEZTERM_PANE", " ")]).terminal_locator(),
            None,
            "a blank value is no locator"
        );
    }

    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> Env {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env::from_lookup(|k| map.get(k).cloned(), None, HashMap::new())
    }

    #[test]
    fn disable_accepts_what_people_type() {
        for v in [
            "1", "true", "TRUE", " True ", "yes", "YES", "on", " On ", "y",
        ] {
            let env = env_of(&[("DISABLE_OMC", v)]);
            assert!(env.disabled, "{v}");
            assert!(env.switch_problems.is_empty(), "{v}");
        }
        for v in ["0", "false", "no", "off", "OFF", "", "  "] {
            let env = env_of(&[("DISABLE_OMC", v)]);
            assert!(!env.disabled, "{v}");
            assert!(env.switch_problems.is_empty(), "{v}");
        }
        // Unreadable: on (the variable's name says what was meant), and named.
        let env = env_of(&[("DISABLE_OMC", " maybe ")]);
        assert!(env.disabled);
        assert_eq!(env.switch_problems.len(), 1);
        assert!(env.switch_problems[0].starts_with("DISABLE_OMC='maybe' is neither yes"));
        assert!(!env_of(&[]).disabled);
    }

    #[test]
    fn skip_hooks_is_a_list_in_any_separator() {
        let env = env_of(&[("OMC_SKIP_HOOKS", " stop , ,pre-tool-use;Stop  SessionEnd")]);
        assert_eq!(
            env.skip_hooks,
            ["stop", "pre-tool-use", "Stop", "SessionEnd"]
        );
    }

    #[cfg(unix)] // Unix paths (`/abs`); on Windows an absolute path has a drive.
    #[test]
    fn relative_state_dir_is_ignored() {
        assert!(env_of(&[("OMC_STATE_DIR", "rel/dir")]).state_dir.is_none());
        assert!(env_of(&[("OMC_STATE_DIR", "/abs")]).state_dir.is_some());
    }

    #[test]
    fn durable_writes_are_asked_for_like_the_other_switches() {
        assert!(env_of(&[("OMC_DURABLE", "1")]).durable);
        assert!(env_of(&[("OMC_DURABLE", "TRUE")]).durable);
        assert!(!env_of(&[("OMC_DURABLE", "0")]).durable);
        assert!(!env_of(&[]).durable);
    }

    #[test]
    fn pinned_clock_wins() {
        assert_eq!(env_of(&[("OMC_NOW_MS", "1234")]).now_ms(), 1234);
    }
}
