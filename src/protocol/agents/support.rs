//! What works in each agent, capability by capability, and why not where it does not: the one
//! table that `omc-hooks doctor --agents` prints and the README carries (a test keeps the copy
//! identical), so a person choosing an agent reads the same answer everywhere.
//!
//! Each entry is what the pinned client was seen to do (its `tests/e2e/<agent>-FINDINGS.md`),
//! or, where no client runs here, what its code or documentation says — the `proven` column
//! says which. An agent's entry is a `match` arm, so a new `Agent` cannot be added without
//! saying what works in it. Agents people ask about that have no adapter (no hook system, or
//! none that can continue a session) are listed after the table with the reason.

use super::Agent;

/// How far a capability works in an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Works {
    /// Works as in Claude Code.
    Yes,
    /// Works with a limit the note names.
    Partly,
    /// Cannot work in this client; the note says why.
    No,
    /// Not verified in the pinned client (no client runs here, or not tried yet); the note
    /// says what is known.
    Unverified,
}

/// One capability in one agent.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    pub works: Works,
    /// Why, or what limits it; empty for a plain yes.
    pub note: &'static str,
}

const fn cell(works: Works, note: &'static str) -> Cell {
    Cell { works, note }
}

const fn yes() -> Cell {
    cell(Works::Yes, "")
}

const fn yes_but(note: &'static str) -> Cell {
    cell(Works::Yes, note)
}

const fn partly(note: &'static str) -> Cell {
    cell(Works::Partly, note)
}

const fn no(note: &'static str) -> Cell {
    cell(Works::No, note)
}

const fn unverified(note: &'static str) -> Cell {
    cell(Works::Unverified, note)
}

/// The capabilities of one agent, in the order of [`CAPABILITIES`].
#[derive(Debug, Clone, Copy)]
pub struct Support {
    /// How the entries were established: the pinned client's version, or the source read.
    pub proven: &'static str,
    pub keywords: Cell,
    pub continuation: Cell,
    pub tool_failures: Cell,
    pub skill_guards: Cell,
    pub compaction: Cell,
    pub user_hooks: Cell,
    pub export: Cell,
    pub notifications: Cell,
    pub project_rules: Cell,
    pub output_check: Cell,
    pub deliverables: Cell,
    pub delegation: Cell,
}

/// The column names, in order.
pub const CAPABILITIES: [&str; 12] = [
    "keywords",
    "continuation",
    "tool-failure escalation",
    "skill guards",
    "compaction memory",
    "user hooks",
    "export",
    "notifications",
    "project rules",
    "output that lies",
    "deliverables",
    "delegation reminder",
];

impl Support {
    /// The cells in the order of [`CAPABILITIES`].
    pub fn cells(&self) -> [Cell; 12] {
        [
            self.keywords,
            self.continuation,
            self.tool_failures,
            self.skill_guards,
            self.compaction,
            self.user_hooks,
            self.export,
            self.notifications,
            self.project_rules,
            self.output_check,
            self.deliverables,
            self.delegation,
        ]
    }
}

/// User hooks and export run inside every hook subcommand, whatever the agent: they work
/// wherever the hooks run at all.
const EVERYWHERE: Cell = yes();

/// What works in `agent`.
pub fn of(agent: Agent) -> Support {
    match agent {
        Agent::Claude => Support {
            proven: "real client 2.1.332",
            keywords: yes(),
            continuation: yes_but("client cap counts only blocks without tool use"),
            tool_failures: yes(),
            skill_guards: yes(),
            compaction: yes(),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: yes(),
            project_rules: yes_but(
                "the client loads `.claude/rules` and the top `AGENTS.md` itself: we add nested `AGENTS.md`",
            ),
            output_check: yes(),
            deliverables: yes_but("the task is read from the subagent's transcript"),
            delegation: yes(),
        },
        Agent::Codex => Support {
            proven: "real client 0.171.0",
            keywords: yes(),
            continuation: yes_but("no client cap: ours holds"),
            tool_failures: yes_but(
                "no failure event: the exit status is read from the rollout transcript",
            ),
            skill_guards: no("Codex has no skill tool"),
            compaction: yes_but("the run is shown again at SessionStart `compact`"),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: yes(),
            project_rules: yes_but(
                "edits are `apply_patch` through the shell: rules given at its PreToolUse",
            ),
            output_check: yes_but("exit status from the rollout transcript"),
            deliverables: unverified("no subagent event exercised headless"),
            delegation: no(
                "edits go through `apply_patch` in the shell, which fires no post-tool event",
            ),
        },
        Agent::Gemini => Support {
            proven: "real client 0.61.0",
            keywords: yes(),
            continuation: yes_but(
                "AfterAgent `deny`; the continuation comes back as a prompt and is recognised; no client cap",
            ),
            tool_failures: yes_but("no failure event: the exit status is read from AfterTool"),
            skill_guards: yes_but("`activate_skill`; announced after the call"),
            compaction: partly(
                "PreCompress fires before every turn (one pending checkpoint); nothing fires after a compression, so the run is told again only by the next continuation",
            ),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: yes_but(
                "from the same run ends as continuation; no real-client test yet",
            ),
            project_rules: yes_but(
                "on `read_file`, `replace`, `write_file`; the client loads a nested `GEMINI.md` itself",
            ),
            output_check: yes_but("output read from AfterTool's `returnDisplay`"),
            deliverables: no("no subagent events"),
            delegation: yes_but("`replace` and `write_file` count as edits"),
        },
        Agent::Qwen => Support {
            proven: "real client 0.24.4",
            keywords: yes(),
            continuation: yes_but("the client refuses the block that reaches its own cap"),
            tool_failures: yes(),
            skill_guards: yes_but("`skill`; announced after the call"),
            compaction: yes_but(
                "SessionStart `compact` is not awaited: the run is shown from a later call on",
            ),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: yes_but(
                "from the same run ends as continuation; no SessionEnd headless; no real-client test yet",
            ),
            project_rules: yes_but(
                "on `read_file`, `edit`, `write_file`; the client loads the top `AGENTS.md` itself",
            ),
            output_check: yes_but("output read from PostToolUse's `returnDisplay`"),
            deliverables: unverified("subagent payloads not checked for a transcript"),
            delegation: yes_but("`edit` and `write_file` count as edits"),
        },
        Agent::Cursor => Support {
            proven: "documented payloads (no client runs here)",
            keywords: partly(
                "no context on a prompt: a keyword starts the run in state and the first stop follow-up carries the task",
            ),
            continuation: yes_but("`followup_message`; client `loop_limit` 5"),
            tool_failures: partly(
                "counted, but a post-tool event cannot add context: the guidance heads the next follow-up",
            ),
            skill_guards: unverified("no skill tool documented"),
            compaction: partly("checkpoint at preCompact; context only at sessionStart"),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: unverified("run ends as continuation"),
            project_rules: no("a post-tool event cannot add context"),
            output_check: no("a post-tool event cannot add context"),
            deliverables: unverified(""),
            delegation: no("a post-tool event cannot add context"),
        },
        Agent::Copilot => Support {
            proven: "real client 1.0.102",
            keywords: yes_but("context at the top level"),
            continuation: partly(
                "the continuation comes back as a prompt and is recognised; the client allows 8 per prompt, tool calls or not (not configurable): a working run is handed back after 8 and resumes with your next message",
            ),
            tool_failures: yes_but(
                "a shell's exit code is read from its `<shellId: … exit code N>` line",
            ),
            skill_guards: unverified("`skill` is decoded as Skill; no real-client test yet"),
            compaction: partly(
                "checkpoint at PreCompact; nothing fires after a compaction, so the run is told again only by the next continuation",
            ),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: unverified(
                "SessionEnd fires once per headless run; no real-client test yet",
            ),
            project_rules: unverified(
                "its file tools are decoded to Claude Code's names; no real-client test yet",
            ),
            output_check: unverified("output read from `tool_result`; no real-client test yet"),
            deliverables: unverified(""),
            delegation: unverified(""),
        },
        Agent::Kimi => Support {
            proven: "real client 1.51.0",
            keywords: partly(
                "reads no context: a keyword starts the run in state and the prompt's continuation carries the task",
            ),
            continuation: partly(
                "one continuation per prompt: its Stop hook fires once per prompt (we answer `permissionDecision: deny`)",
            ),
            tool_failures: partly(
                "counted, but nothing after a tool reaches the model: the guidance heads the prompt's continuation while a run is live",
            ),
            skill_guards: no("Kimi CLI has no skill tool"),
            compaction: partly(
                "checkpoint at PreCompact; nothing is shown after a compaction but the next continuation",
            ),
            user_hooks: partly("refusals of tool calls and prompts only: no rewrite, no context"),
            export: EVERYWHERE,
            notifications: unverified(
                "its runs end as elsewhere (the token, cancel, limits); no real-client test",
            ),
            project_rules: no(
                "nothing after a tool reaches the model, and `ReadFile`/`WriteFile`/`StrReplaceFile` are not Claude Code's file tools",
            ),
            output_check: no("nothing after a tool reaches the model"),
            deliverables: no("its subagent events name no transcript"),
            delegation: no("nothing after a tool reaches the model"),
        },
        Agent::Factory => Support {
            proven: "real client 0.225.2",
            keywords: partly(
                "in a session driven over JSON-RPC (Factory's SDK, `droid exec --input-format stream-jsonrpc`); the one-shot `droid exec \"…\"` sends no UserPromptSubmit, so a keyword there starts nothing",
            ),
            continuation: yes_but("Stop `block`; no client cap: ours holds"),
            tool_failures: no(
                "Droid runs no hook after a command that fails (its PostToolUse runs only when the tool returns) and reads no context from PreToolUse",
            ),
            skill_guards: unverified("PreToolUse context is not read: announced after the call"),
            compaction: unverified(""),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: unverified(""),
            project_rules: unverified(""),
            output_check: unverified(""),
            deliverables: unverified(""),
            delegation: unverified(""),
        },
        Agent::CodeBuddy => Support {
            proven: "real client 2.117.0",
            keywords: yes(),
            continuation: partly(
                "in a session that keeps its input open (`-p --input-format stream-json`, or the interactive client): a plain `-p` run exits before the continuation; no client cap, ours holds",
            ),
            tool_failures: yes_but("the exit code is read from PostToolUse's `tool_response`"),
            skill_guards: unverified(""),
            compaction: unverified(""),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: unverified(""),
            project_rules: unverified(""),
            output_check: unverified(""),
            deliverables: unverified(""),
            delegation: unverified(""),
        },
        Agent::OpenCode | Agent::Kilo => Support {
            proven: if agent == Agent::Kilo {
                "real client 7.7.9 (`kilo serve`), with our plugin"
            } else {
                "real client 1.18.33 (`opencode serve`), with our plugin"
            },
            keywords: yes_but("context as a synthetic part of the prompt"),
            continuation: yes_but(
                "the plugin sends the next prompt when the session goes idle; `run` exits at the first idle, before it; no client cap: ours holds",
            ),
            tool_failures: yes_but(
                "the shell's exit code from `metadata.exit`; a tool that throws from its error part",
            ),
            skill_guards: unverified("the `skill` tool is decoded as Skill; not exercised"),
            compaction: unverified(
                "checkpoint at `experimental.session.compacting`; `session.compacted` tells the run again with the next prompt",
            ),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: unverified("from the same run ends as continuation; not tried here"),
            project_rules: if agent == Agent::Kilo {
                unverified("OpenCode's plugin and tools; not exercised in Kilo Code")
            } else {
                yes_but("after a `read` or `edit`, appended to the tool's output")
            },
            output_check: unverified("the shell's output is read; not exercised"),
            deliverables: no("a subagent's session (the `task` tool) is not passed on"),
            delegation: unverified("`edit` and `write` count as edits; not exercised"),
        },
        Agent::Pi => Support {
            proven: "real client 0.73.1 (RPC mode), with our extension",
            keywords: yes_but("context as a message before the run"),
            continuation: partly(
                "a new prompt when the run ends, in RPC (seen) and interactive mode; `pi -p` and `--mode json` exit first",
            ),
            tool_failures: yes_but("`isError` on the tool's result"),
            skill_guards: no("Pi has no skill tool: a skill is expanded into the prompt"),
            compaction: unverified(
                "checkpoint at `session_before_compact`; `session_compact` tells the run again",
            ),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: unverified("from the same run ends as continuation; not tried here"),
            project_rules: yes_but("after a `read` or `edit`, appended to the tool's result"),
            output_check: unverified("the shell's output is read; not exercised"),
            deliverables: no("Pi has no subagents"),
            delegation: unverified("`edit` and `write` count as edits; not exercised"),
        },
        Agent::Qoder => Support {
            proven: "its 1.1.52 code (the client needs a login)",
            keywords: unverified("Claude Code's `additionalContext` is read, per its code"),
            continuation: unverified(
                "a Stop `block` is read as `deny` and its reason sent as the next message, per its code; no cap of its own found",
            ),
            tool_failures: unverified("PostToolUseFailure with Claude Code's fields, per its code"),
            skill_guards: unverified("a `Skill` tool under Claude Code's name, per its code"),
            compaction: unverified("PreCompact and SessionStart, per its code"),
            user_hooks: EVERYWHERE,
            export: EVERYWHERE,
            notifications: unverified(""),
            project_rules: unverified(""),
            output_check: unverified(""),
            deliverables: unverified(""),
            delegation: unverified(""),
        },
        Agent::Auggie => Support {
            proven: "its 0.36.0 code (the client talks only to Augment's service)",
            keywords: no(
                "its PromptSubmit hook is not awaited and nothing could continue a run: not installed",
            ),
            continuation: no("its 0.36 loop runs the Stop hook but does not read its answer"),
            tool_failures: unverified(
                "PostToolUse context is appended to the tool's result, per its code",
            ),
            skill_guards: no("no skill tool event"),
            compaction: no("no compaction event, and SessionStart is not awaited"),
            user_hooks: unverified(
                "refusals and rewrites of tool calls, per its code; the other hooks are not awaited",
            ),
            export: yes_but("of the events installed, per its code"),
            notifications: no("nothing continues a run there"),
            project_rules: no(
                "its `view`, `str-replace-editor` and `save-file` are not Claude Code's file tools",
            ),
            output_check: unverified("the tool's text is read after the call, per its code"),
            deliverables: no("no subagent events"),
            delegation: no("its edit tools are not Claude Code's"),
        },
        Agent::Cline => Support {
            proven: "real client 3.0.65",
            keywords: no(
                "its prompt hook is not awaited (nor fired for a headless prompt) and nothing could continue a run: not installed",
            ),
            continuation: no("TaskComplete is not awaited and its answer is not read"),
            tool_failures: yes_but("the guidance is `contextModification` after the tool"),
            skill_guards: no("Cline 3.0.65 has no skill tool"),
            compaction: no("its PreCompact hook file is never run, and nothing is shown at start"),
            user_hooks: partly(
                "on tool calls only (the other hooks are not awaited); a refusal ends the whole task, its reason unseen headless",
            ),
            export: yes_but("of the events installed: task start, tool calls, session end"),
            notifications: no("nothing continues a run there"),
            project_rules: no("its `read_files` and `editor` are not Claude Code's file tools"),
            output_check: no("its command results arrive as a list the check does not read"),
            deliverables: no("no subagent events"),
            delegation: no("its `editor` is not Claude Code's edit tool"),
        },
    }
}

/// Agents people ask about that omc-hooks cannot serve, and why: `(client, package, why)`.
pub const WITHOUT_ADAPTER: &[(&str, &str, &str)] = &[
    (
        "Grok CLI",
        "`@vibe-kit/grok-cli`",
        "no hook or plugin system (0.0.34)",
    ),
    (
        "Crush",
        "`@charmland/crush`",
        "hooks on PreToolUse and PreCompact only: no end-of-turn event to continue on, no prompt event for keywords (its documentation); its npm package did not install here (its postinstall downloads a release binary)",
    ),
    (
        "Amp",
        "`@ampcode/cli`",
        "TypeScript plugins (`.amp/plugins/`) whose API could carry the loop (`agent.end` may answer `continue`, 5 in a row by default), but the CLI runs only after a login to Amp's service, so a plugin shim could not be run here and none is shipped",
    ),
    (
        "Letta Code",
        "`@letta-ai/letta-code`",
        "Claude-Code-format hooks in `.letta/settings.json` (its documentation), but its agents live on a Letta server: not installed or run here, and nothing is shipped untried",
    ),
];

fn cell_text(c: &Cell) -> String {
    let word = match c.works {
        Works::Yes => "yes",
        Works::Partly => "partly",
        Works::No => "no",
        Works::Unverified => "not verified",
    };
    if c.note.is_empty() {
        word.to_string()
    } else {
        format!("{word} — {}", c.note)
    }
}

/// The table as Markdown: `doctor --agents` prints it before the event table, and the README
/// holds a copy (kept identical by a test).
pub fn render_markdown() -> String {
    let mut s = format!(
        "| agent | `--agent` | proven | {} |\n|---|---|---|{}\n",
        CAPABILITIES.join(" | "),
        "---|".repeat(CAPABILITIES.len())
    );
    for agent in Agent::ALL {
        let sup = of(agent);
        let cells: Vec<String> = sup.cells().iter().map(cell_text).collect();
        s.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            agent.client(),
            agent.name(),
            sup.proven,
            cells.join(" | ")
        ));
    }
    if !WITHOUT_ADAPTER.is_empty() {
        s.push_str("\nNot served:\n\n");
        for (client, package, why) in WITHOUT_ADAPTER {
            s.push_str(&format!("* **{client}** ({package}): {why}.\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_has_a_row_and_every_limit_says_why() {
        let table = render_markdown();
        for agent in Agent::ALL {
            assert!(table.contains(&format!("`{}`", agent.name())), "{agent}");
            for (name, c) in CAPABILITIES.iter().zip(of(agent).cells()) {
                // A "no" or a "partly" without its reason tells the person nothing.
                if matches!(c.works, Works::No | Works::Partly) {
                    assert!(!c.note.is_empty(), "{agent} {name}: say why");
                }
                assert!(
                    !c.note.contains('|'),
                    "{agent} {name}: '|' breaks the table"
                );
            }
        }
    }

    #[test]
    fn claude_code_has_everything() {
        assert!(
            of(Agent::Claude)
                .cells()
                .iter()
                .all(|c| c.works == Works::Yes)
        );
    }
}
