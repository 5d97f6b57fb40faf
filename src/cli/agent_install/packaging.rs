//! The packages the agents' own ecosystems install, beside the Claude Code plugin: a Codex
//! plugin (`.codex-plugin/plugin.json`, whose `hooks` names `extensions/codex/hooks.json`) and a
//! Gemini CLI extension (`extensions/gemini/`: `gemini-extension.json` and `hooks/hooks.json`;
//! Gemini reads an extension's hooks only from there, and that path is not at the repository
//! root because Claude Code loads a plugin's `hooks/hooks.json` on its own).
//!
//! The checkout is also its own Codex marketplace (`.agents/plugins/marketplace.json`, one
//! local plugin at `./`): `codex plugin marketplace add <checkout>` then `codex plugin add
//! omc-hooks@omc-hooks` installs the plugin (Codex copies the checkout into its plugin cache).
//!
//! Their hook files are generated from the agents' event table, like `install --agent`'s
//! entries, and reach the checkout's release build through each ecosystem's variable:
//! `${PLUGIN_ROOT}` (an environment variable Codex gives plugin hooks) and `${extensionPath}`
//! (substituted by Gemini; for a linked extension it is the checkout's directory). A unit test
//! keeps the shipped files identical to what is generated here.

use super::layout::Layout;
use crate::protocol::Agent;
use serde_json::{Map, Value, json};

/// The Codex plugin's hook file: every installed row of Codex's table.
pub(super) fn codex_hooks() -> Value {
    hooks(Agent::Codex, "\"${PLUGIN_ROOT}/target/release/omc-hooks\"")
}

/// The Gemini CLI extension's `hooks/hooks.json`.
pub(super) fn gemini_hooks() -> Value {
    hooks(
        Agent::Gemini,
        "\"${extensionPath}${/}..${/}..${/}target${/}release${/}omc-hooks\"",
    )
}

/// The Codex plugin manifest.
pub(super) fn codex_manifest() -> Value {
    json!({
        "name": "omc-hooks",
        "version": env!("CARGO_PKG_VERSION"),
        "description": DESCRIPTION,
        "hooks": "./extensions/codex/hooks.json",
    })
}

/// The Codex marketplace that lists the checkout itself as its one local plugin (Codex resolves
/// `path` against the directory holding `.agents/`).
pub(super) fn codex_marketplace() -> Value {
    json!({
        "name": "omc-hooks",
        "plugins": [{
            "name": "omc-hooks",
            "source": {"source": "local", "path": "./"},
        }],
    })
}

/// The Gemini CLI extension manifest (hooks are not declared in it: Gemini reads
/// `hooks/hooks.json` beside it).
pub(super) fn gemini_manifest() -> Value {
    json!({
        "name": "omc-hooks",
        "version": env!("CARGO_PKG_VERSION"),
        "description": DESCRIPTION,
    })
}

const DESCRIPTION: &str = "Magic keywords, persistent modes that keep working until done, \
    tool-failure escalation and memory that survives compaction, as one native binary \
    (build it first: cargo build --release).";

fn hooks(agent: Agent, program: &str) -> Value {
    let layout = Layout::of(agent);
    let mut events: Map<String, Value> = Map::new();
    for (event, matcher, sub) in layout.rows() {
        let command = format!("{program} --agent {} {sub}", agent.name());
        let mut group = Map::new();
        if let Some(m) = matcher {
            group.insert("matcher".into(), json!(m));
        }
        group.insert(
            "hooks".into(),
            Value::Array(vec![layout.handler_running(command, sub)]),
        );
        events
            .entry(event.to_string())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("an array")
            .push(Value::Object(group));
    }
    json!({ "hooks": events })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Compares a shipped file with what is generated; `OMC_UPDATE_SNAPSHOTS=1` rewrites it.
    fn same(rel: &str, want: &Value) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        let mut text = serde_json::to_string_pretty(want).unwrap();
        text.push('\n');
        if std::env::var_os("OMC_UPDATE_SNAPSHOTS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let got = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            got, text,
            "{rel} is stale (OMC_UPDATE_SNAPSHOTS=1 to regenerate)"
        );
    }

    #[test]
    fn shipped_packages_are_generated_from_the_table() {
        same(".codex-plugin/plugin.json", &codex_manifest());
        same("extensions/codex/hooks.json", &codex_hooks());
        same(".agents/plugins/marketplace.json", &codex_marketplace());
        same(
            "extensions/gemini/gemini-extension.json",
            &gemini_manifest(),
        );
        same("extensions/gemini/hooks/hooks.json", &gemini_hooks());
    }

    #[test]
    fn package_commands_name_our_subcommands_for_their_agent() {
        for (agent, v) in [
            (Agent::Codex, codex_hooks()),
            (Agent::Gemini, gemini_hooks()),
        ] {
            let text = v.to_string();
            let n = Layout::of(agent).rows().count();
            assert_eq!(
                text.matches(&format!("--agent {}", agent.name())).count(),
                n
            );
            assert!(!text.contains("CLAUDE_PLUGIN_ROOT"));
        }
        assert_eq!(
            gemini_hooks()["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"],
            10_000
        );
    }
}
