//! `install --agent opencode|kilo|pi` / `uninstall`: the agents served through a TypeScript
//! plugin get one file of our own, the plugin this repository ships (`extensions/`), with this
//! binary's absolute path and the events it passes on written in: OpenCode's
//! `.opencode/plugins/omc-hooks.js` (user: `$XDG_CONFIG_HOME/opencode/plugins/`, default
//! `~/.config`), Kilo Code's `.kilo/plugins/omc-hooks.js` (`$XDG_CONFIG_HOME/kilo/plugins/`),
//! Pi's `.pi/extensions/omc-hooks.js` (`$PI_CODING_AGENT_DIR/extensions/`, default
//! `~/.pi/agent`). Each client loads every script of that folder when it starts
//! (docs/agents-survey.md; tests/e2e/opencode-FINDINGS.md, pi-FINDINGS.md).
//!
//! The file is `core.js` (running the binary, failing open) and the host's part
//! (`opencode/plugin.js` or `pi/extension.js`) after a header that marks it as ours and a
//! `CONFIG` line: the agent, the binary, and for every row of the agents' table marked
//! installed, the event and the hook subcommand that serves it with its timeout. Nothing of
//! the person's is merged: a file there that is not ours is refused, uninstall deletes ours
//! only, and the folders install made (listed in the record beside the file) go again when
//! empty. The client's own files in those folders (OpenCode writes `package.json` and
//! `node_modules/` into `.opencode/` when it starts) are never touched.

use super::layout::{Layout, timeout_secs};
use super::{Merged, Record};
use crate::cli::args::fail;
use crate::cli::settings;
use crate::protocol::Agent;
use serde_json::{Map, Value, json};
use std::path::Path;

/// The shared core and each host's part, compiled in.
const CORE: &str = include_str!("../../../extensions/shim/core.js");
const OPENCODE: &str = include_str!("../../../extensions/opencode/plugin.js");
const PI: &str = include_str!("../../../extensions/pi/extension.js");

/// The first words of every plugin file install writes.
pub(super) const MARK: &str = "// omc-hooks plugin for ";

/// The plugin's configuration: the agent, the binary, and event → [subcommand, timeout ms].
fn config(agent: Agent, exe: &Path) -> Value {
    let mut hooks = Map::new();
    for (event, _, sub) in Layout::of(agent).rows() {
        hooks.insert(event.to_string(), json!([sub, timeout_secs(sub) * 1000]));
    }
    json!({"agent": agent.name(), "bin": exe.to_string_lossy(), "hooks": hooks})
}

/// The whole plugin file for `agent`, running the binary at `exe`.
pub(super) fn source(agent: Agent, exe: &Path) -> String {
    let part = if agent == Agent::Pi { PI } else { OPENCODE };
    format!(
        "{MARK}{client} — written by 'omc-hooks install --agent {name}'.\n\
         // 'omc-hooks uninstall --agent {name}' removes it; the source is extensions/ in the \
         omc-hooks repository.\n\
         const CONFIG = {config};\n\n{CORE}\n{part}",
        client = agent.client(),
        name = agent.name(),
        config = config(agent, exe),
    )
}

/// Whether `text` is a plugin file install wrote.
pub(super) fn is_ours(text: &str) -> bool {
    text.starts_with(MARK)
}

/// The `CONFIG` of a plugin file install wrote: (agent, binary).
pub(super) fn config_of(text: &str) -> Option<(Agent, String)> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("const CONFIG = "))?;
    let v: Value = serde_json::from_str(line.trim_end().strip_suffix(';')?).ok()?;
    Some((
        Agent::parse(v["agent"].as_str()?)?,
        v["bin"].as_str()?.to_string(),
    ))
}

/// Writes the plugin; returns what changed and whether the file did.
pub(super) fn install(
    agent: Agent,
    path: &Path,
    exe: &Path,
    record: &mut Record,
) -> Result<(Merged, bool), i32> {
    let want = source(agent, exe);
    let existing = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(fail(
                "install",
                &format!("cannot read {}: {e}", path.display()),
            ));
        }
    };
    let rows = Layout::of(agent).rows().count();
    match existing {
        Some(t) if t == want => return Ok((Merged::default(), false)),
        Some(t) if !is_ours(&t) => {
            return Err(fail(
                "install",
                &format!(
                    "{} exists and was not written by omc-hooks; nothing was changed. Move it \
                     away and run 'omc-hooks install --agent {}' again.",
                    path.display(),
                    agent.name()
                ),
            ));
        }
        _ => {}
    }
    let replaced = path.exists();
    match settings::save(path, &want) {
        Ok(created) => {
            if !replaced {
                record.created_file = true;
                record.created_levels = created.len() as u32;
            }
        }
        Err(e) => {
            return Err(fail(
                "install",
                &format!("cannot write {}: {e}", path.display()),
            ));
        }
    }
    let merged = if replaced {
        Merged {
            updated: rows,
            ..Merged::default()
        }
    } else {
        Merged {
            added: rows,
            ..Merged::default()
        }
    };
    Ok((merged, true))
}

/// Removes our plugin file (then the caller removes the record beside it and
/// [`remove_created_dirs`]). `Ok(false)`: there was none.
pub(super) fn uninstall(agent: Agent, path: &Path) -> Result<bool, i32> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => {
            return Err(fail(
                "uninstall",
                &format!("cannot read {}: {e}", path.display()),
            ));
        }
    };
    if !is_ours(&text) {
        return Err(fail(
            "uninstall",
            &format!(
                "{} was not written by omc-hooks; it was left alone. Nothing of omc-hooks for {} \
                 is there to remove.",
                path.display(),
                agent.client()
            ),
        ));
    }
    std::fs::remove_file(path).map_err(|e| {
        fail(
            "uninstall",
            &format!("cannot remove {}: {e}", path.display()),
        )
    })?;
    Ok(true)
}

/// The folders above `path` that install created, innermost first, each only when empty.
pub(super) fn remove_created_dirs(path: &Path, record: &Record) {
    let mut dir = path.parent();
    for _ in 0..record.created_levels {
        let Some(d) = dir else { break };
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_carries_the_binary_and_the_tables_events() {
        let exe = Path::new("/opt/o \"q\"/omc-hooks");
        for agent in [Agent::OpenCode, Agent::Kilo, Agent::Pi] {
            let text = source(agent, exe);
            assert!(is_ours(&text), "{agent}");
            assert_eq!(
                config_of(&text),
                Some((agent, exe.to_string_lossy().into_owned())),
                "{agent}"
            );
            let line = text
                .lines()
                .find_map(|l| l.strip_prefix("const CONFIG = "))
                .unwrap();
            let v: Value = serde_json::from_str(line.strip_suffix(';').unwrap()).unwrap();
            let hooks = v["hooks"].as_object().unwrap();
            assert_eq!(hooks.len(), Layout::of(agent).rows().count(), "{agent}");
            for (event, _, sub) in Layout::of(agent).rows() {
                assert_eq!(hooks[event][0], sub, "{agent} {event}");
                assert!(hooks[event][1].as_u64().unwrap() >= 1000, "{agent} {event}");
            }
            assert!(text.contains("function hook(event, fields)"), "the core");
            let host = if agent == Agent::Pi {
                "export default function omcHooks(pi)"
            } else {
                "export const OmcHooks = async"
            };
            assert!(text.contains(host), "{agent}");
        }
    }

    #[test]
    fn foreign_text_is_not_ours() {
        assert!(!is_ours("export const Mine = async () => ({});\n"));
        assert_eq!(config_of("const CONFIG = nope;"), None);
    }
}
