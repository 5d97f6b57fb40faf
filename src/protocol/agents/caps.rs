//! What bounds a run's end-of-turn continuations on each client (contract §6): the limits a
//! Stop must stay within so that it never sends a block the client would refuse, and so that a
//! model that spins is handed back.
//!
//! Two counts, because the clients count two ways:
//!
//! * **Continuations in a row without progress** — blocks after which the agent ran no tool.
//!   Ours, `OMC_STOP_BLOCK_CAP` (default 8), holds on every agent: it is what hands a spinning
//!   model back. Claude Code counts exactly so (its count restarts after a model turn that
//!   called a tool; tests/e2e/FINDINGS.md §7) and honours `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`
//!   (default 8) of them: where that is lower, it is the limit.
//! * **Continuations since the user's last prompt**, whatever ran between them, where the
//!   client counts them so: Qwen Code refuses the block that reaches its `stopHookBlockingCap`
//!   (setting, or `QWEN_CODE_STOP_HOOK_BLOCK_CAP`, default 8, at most 100; counted per prompt
//!   and not reset by tool calls: qwen-FINDINGS.md §6), so it honours one fewer; Cursor
//!   follows up at most `loop_limit` times (default 5, `null` for none) and says how many it
//!   did in `loop_count` (cursor.com/docs/agent/hooks); GitHub Copilot CLI 1.0.102 honours 8
//!   blocks of a prompt and ends the turn at the 9th, tool calls between them or not (its own
//!   changelog says "8 consecutive blocks"; copilot-FINDINGS.md §5). Codex, Gemini CLI, Factory
//!   Droid and CodeBuddy count neither (codex-FINDINGS.md §6, gemini-FINDINGS.md §5,
//!   factory-FINDINGS.md §4, codebuddy-FINDINGS.md §4), nor do OpenCode, Kilo Code and Pi,
//!   where our plugin sends the continuation (opencode-FINDINGS.md §4, pi-FINDINGS.md §3).
//!
//! The clients' settings are read where the client keeps them — Qwen's `settings.json`
//! (the project's, then the user's), Cursor's `hooks.json` (our `stop` entry's `loop_limit`) —
//! only by a Stop on that client, a file or two of a few kilobytes. `install --agent` writes
//! the settings that let a working run go on (see `cli/agent_install/layout.rs`).

use super::{Agent, Wire};
use crate::env::Env;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Our own limit on continuations in a row without progress when `OMC_STOP_BLOCK_CAP` does not
/// set one: eight, as Claude Code's own default — enough for a model to finish a thought, not
/// enough to burn a budget on a loop that does nothing.
pub const DEFAULT_STOP_BLOCK_CAP: u32 = 8;

/// Claude Code's `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` default.
pub const CLAUDE_DEFAULT_CAP: u32 = 8;

/// Qwen Code's `stopHookBlockingCap` default and its ceiling (the bundle's
/// `DEFAULT_STOP_HOOK_BLOCK_CAP` and `MAX_STOP_HOOK_BLOCK_CAP`).
pub const QWEN_DEFAULT_CAP: u32 = 8;
pub const QWEN_MAX_CAP: u32 = 100;

/// Cursor's documented default `loop_limit` for `stop` follow-ups.
pub const CURSOR_LOOP_LIMIT: u32 = 5;

/// GitHub Copilot CLI's blocks honoured per prompt (not configurable in 1.0.102).
pub const COPILOT_CAP: u32 = 8;

/// One limit and whose it is (a client's name, or `omc-hooks`), for the note the person reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub max: u32,
    pub owner: &'static str,
}

/// The limits a run's continuations must stay within on one client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopLimits {
    /// Continuations in a row after which the agent ran no tool.
    pub idle: Limit,
    /// Continuations since the user's last prompt, tools or not, where the client counts them.
    pub per_prompt: Option<Limit>,
}

/// The limits in force for `agent` (the format the payload was read in), with `project` the
/// project the hook serves (for the client's project settings).
pub fn stop_limits(agent: Agent, env: &Env, project: Option<&Path>) -> StopLimits {
    let own = positive(env.var("OMC_STOP_BLOCK_CAP")).unwrap_or(DEFAULT_STOP_BLOCK_CAP);
    let ours = Limit {
        max: own,
        owner: "omc-hooks",
    };
    let client = agent.wire().agent().client();
    match agent.wire() {
        // Claude Code's cap is Claude Code's: the clients that copy its format do not share it
        // (Factory Droid and CodeBuddy continue with no cap: factory-FINDINGS.md §4,
        // codebuddy-FINDINGS.md §4; Kimi CLI continues once per prompt at most), so ours holds
        // there.
        Wire::Claude if agent != Agent::Claude => StopLimits {
            idle: ours,
            per_prompt: None,
        },
        Wire::Claude => {
            let theirs =
                positive(env.var("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP")).unwrap_or(CLAUDE_DEFAULT_CAP);
            let idle = if theirs <= own {
                Limit {
                    max: theirs,
                    owner: client,
                }
            } else {
                ours
            };
            StopLimits {
                idle,
                per_prompt: None,
            }
        }
        Wire::Qwen => StopLimits {
            idle: ours,
            // The block that reaches the cap is refused: one fewer is honoured.
            per_prompt: Some(Limit {
                max: qwen_cap(env, project).saturating_sub(1).max(1),
                owner: client,
            }),
        },
        Wire::Cursor => StopLimits {
            idle: ours,
            per_prompt: cursor_loop_limit(env, project).map(|max| Limit { max, owner: client }),
        },
        Wire::Copilot => StopLimits {
            idle: ours,
            per_prompt: Some(Limit {
                max: COPILOT_CAP,
                owner: client,
            }),
        },
        // Kimi CLI fires its Stop hook once per prompt and honours that one refusal
        // (kimi-FINDINGS.md §4): it refuses none of ours, so only ours counts. Cline continues
        // nothing (cline-FINDINGS.md §4).
        // Auggie 0.36.0's loop does not read its Stop hook's answer either.
        // OpenCode, Kilo Code and Pi continue whenever our plugin sends a prompt: no count
        // of their own (opencode-FINDINGS.md, pi-FINDINGS.md).
        Wire::Codex
        | Wire::Gemini
        | Wire::Kimi
        | Wire::Cline
        | Wire::Auggie
        | Wire::OpenCode
        | Wire::Pi => StopLimits {
            idle: ours,
            per_prompt: None,
        },
    }
}

fn positive(v: Option<&str>) -> Option<u32> {
    v.and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| *n > 0)
}

/// Qwen Code's block cap as the client resolves it: a non-empty `QWEN_CODE_STOP_HOOK_BLOCK_CAP`
/// wins (an integer, else the default); then `stopHookBlockingCap` from the settings, the
/// project's over the user's (its merge order; system-wide settings are not read); each
/// floored, below 1 the default, above 100 cut to 100.
pub fn qwen_cap(env: &Env, project: Option<&Path>) -> u32 {
    if let Some(v) = env.var("QWEN_CODE_STOP_HOOK_BLOCK_CAP")
        && !v.trim().is_empty()
    {
        return match v.trim().parse::<f64>() {
            Ok(n) if n.fract() == 0.0 => qwen_normalize(n),
            _ => QWEN_DEFAULT_CAP,
        };
    }
    let files = [
        project.map(|p| p.join(".qwen/settings.json")),
        qwen_user_settings(env),
    ];
    files
        .into_iter()
        .flatten()
        .find_map(|f| read_json(&f)?.get("stopHookBlockingCap")?.as_f64())
        .map_or(QWEN_DEFAULT_CAP, qwen_normalize)
}

fn qwen_normalize(n: f64) -> u32 {
    if !n.is_finite() || n.floor() < 1.0 {
        return QWEN_DEFAULT_CAP;
    }
    n.floor().min(f64::from(QWEN_MAX_CAP)) as u32
}

/// Qwen Code's user settings: `$QWEN_HOME/settings.json`, else `~/.qwen/settings.json`.
fn qwen_user_settings(env: &Env) -> Option<PathBuf> {
    let var = |k: &str| {
        env.var(k)
            .filter(|v| !v.trim().is_empty())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    Some(
        var("QWEN_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".qwen")))?
            .join("settings.json"),
    )
}

/// Cursor's `loop_limit` for our `stop` hook: the entry running `--agent cursor stop` in the
/// project's `.cursor/hooks.json`, else the user's `~/.cursor/hooks.json`. `None` when it is
/// `null` (no limit); the documented default 5 when it is absent or no entry is found.
pub fn cursor_loop_limit(env: &Env, project: Option<&Path>) -> Option<u32> {
    let home = env
        .var("HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let files = [
        project.map(|p| p.join(".cursor/hooks.json")),
        home.map(|h| h.join(".cursor/hooks.json")),
    ];
    for file in files.into_iter().flatten() {
        let Some(v) = read_json(&file) else { continue };
        let entry = v
            .pointer("/hooks/stop")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|e| {
                e.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(runs_our_cursor_stop)
            });
        if let Some(e) = entry {
            return match e.get("loop_limit") {
                Some(Value::Null) => None,
                Some(v) => Some(
                    v.as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .unwrap_or(CURSOR_LOOP_LIMIT),
                ),
                None => Some(CURSOR_LOOP_LIMIT),
            };
        }
    }
    Some(CURSOR_LOOP_LIMIT)
}

/// Whether a hook command runs this binary's `stop` for Cursor (`… --agent cursor stop`).
fn runs_our_cursor_stop(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    matches!(words.as_slice(), [.., "--agent", "cursor", "stop"])
}

/// A client's settings file, if it is a readable JSON object of sane size.
fn read_json(path: &Path) -> Option<Value> {
    const MAX: u64 = 1 << 20;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX {
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        let extra = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env::from_lookup(|_| None, None, extra)
    }

    #[test]
    fn limits_per_agent() {
        let none = env(&[]);
        let l = |a| stop_limits(a, &none, None);
        assert_eq!(l(Agent::Claude).idle.max, 8);
        assert_eq!(l(Agent::Claude).per_prompt, None);
        assert_eq!(l(Agent::Codex).idle.max, 8);
        assert_eq!(l(Agent::Gemini).per_prompt, None);
        assert_eq!(l(Agent::Qwen).idle.max, 8);
        assert_eq!(l(Agent::Qwen).per_prompt.unwrap().max, 7);
        assert_eq!(l(Agent::Cursor).per_prompt.unwrap().max, 5);
        assert_eq!(
            l(Agent::Copilot).per_prompt,
            Some(Limit {
                max: 8,
                owner: "GitHub Copilot CLI"
            })
        );
        assert_eq!(l(Agent::Factory).per_prompt, None);

        let own = env(&[("OMC_STOP_BLOCK_CAP", "3")]);
        assert_eq!(stop_limits(Agent::Codex, &own, None).idle.max, 3);
        assert_eq!(
            stop_limits(Agent::Claude, &own, None).idle,
            Limit {
                max: 3,
                owner: "omc-hooks"
            }
        );
        // Claude Code's raised cap does not raise ours: a talking model is still handed back.
        let raised = env(&[("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "20")]);
        assert_eq!(stop_limits(Agent::Claude, &raised, None).idle.max, 8);
        let low = env(&[
            ("OMC_STOP_BLOCK_CAP", "20"),
            ("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2"),
        ]);
        assert_eq!(
            stop_limits(Agent::Claude, &low, None).idle,
            Limit {
                max: 2,
                owner: "Claude Code"
            }
        );
        assert_eq!(stop_limits(Agent::Gemini, &low, None).idle.max, 20);
        // A client that copies Claude Code's format is not held to Claude Code's cap.
        let low_claude = env(&[("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "3")]);
        assert_eq!(
            stop_limits(Agent::Qoder, &low_claude, None).idle,
            Limit {
                max: 8,
                owner: "omc-hooks"
            }
        );
        let zero = env(&[("OMC_STOP_BLOCK_CAP", "0")]);
        assert_eq!(stop_limits(Agent::Codex, &zero, None).idle.max, 8);
    }

    #[test]
    fn qwen_reads_its_variable_then_its_settings() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("p");
        let home = t.path().join("home");
        std::fs::create_dir_all(project.join(".qwen")).unwrap();
        std::fs::create_dir_all(home.join(".qwen")).unwrap();
        let h = home.to_string_lossy().to_string();
        let e = env(&[("HOME", &h)]);
        assert_eq!(qwen_cap(&e, Some(&project)), 8);
        std::fs::write(
            home.join(".qwen/settings.json"),
            r#"{"stopHookBlockingCap": 30}"#,
        )
        .unwrap();
        assert_eq!(qwen_cap(&e, Some(&project)), 30);
        std::fs::write(
            project.join(".qwen/settings.json"),
            r#"{"hooks": {}, "stopHookBlockingCap": 100.7}"#,
        )
        .unwrap();
        assert_eq!(qwen_cap(&e, Some(&project)), 100, "the project's wins");
        let per = stop_limits(Agent::Qwen, &e, Some(&project))
            .per_prompt
            .unwrap();
        assert_eq!(per.max, 99);
        std::fs::write(
            project.join(".qwen/settings.json"),
            r#"{"stopHookBlockingCap": 500}"#,
        )
        .unwrap();
        assert_eq!(qwen_cap(&e, Some(&project)), 100, "at most 100");
        std::fs::write(
            project.join(".qwen/settings.json"),
            r#"{"stopHookBlockingCap": 0}"#,
        )
        .unwrap();
        assert_eq!(qwen_cap(&e, Some(&project)), 8, "below 1: the default");
        for (v, want) in [("3", 3), ("3.5", 8), ("x", 8), ("200", 100), ("  ", 8)] {
            let e = env(&[("HOME", &h), ("QWEN_CODE_STOP_HOOK_BLOCK_CAP", v)]);
            std::fs::write(
                project.join(".qwen/settings.json"),
                r#"{"stopHookBlockingCap": 8}"#,
            )
            .unwrap();
            assert_eq!(qwen_cap(&e, Some(&project)), want, "{v:?}");
        }
    }

    #[test]
    fn cursor_reads_our_stop_entrys_loop_limit() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("p");
        std::fs::create_dir_all(project.join(".cursor")).unwrap();
        let e = env(&[]);
        assert_eq!(cursor_loop_limit(&e, Some(&project)), Some(5));
        let write = |entry: &str| {
            std::fs::write(
                project.join(".cursor/hooks.json"),
                format!(
                    r#"{{"version":1,"hooks":{{"stop":[{{"command":"./audit.sh","loop_limit":2}},{entry}]}}}}"#
                ),
            )
            .unwrap()
        };
        write(r#"{"command":"'/x/omc-hooks' --agent cursor stop","loop_limit":null}"#);
        assert_eq!(cursor_loop_limit(&e, Some(&project)), None);
        write(r#"{"command":"\"/x/omc-hooks\" --agent cursor stop","loop_limit":40}"#);
        assert_eq!(cursor_loop_limit(&e, Some(&project)), Some(40));
        write(r#"{"command":"/x/omc-hooks --agent cursor stop"}"#);
        assert_eq!(cursor_loop_limit(&e, Some(&project)), Some(5));
    }
}
