//! Which coding agent a hook serves ([`Agent`], what `--agent` names) and which wire format it
//! speaks ([`Wire`]: which adapter in `protocol::agents` decodes and encodes it), with the
//! facts about each client that the rest of the product asks through neutral questions.
//!
//! Its own module, below both the neutral input (`protocol::input`, whose `HookInput` records
//! the agent) and the adapters (`protocol::agents`, which decode into that input), so that
//! neither has to reach into the other for it.

/// A coding agent whose hooks run this binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Agent {
    #[default]
    Claude,
    Codex,
    Gemini,
    Qwen,
    Cursor,
    /// Kimi CLI: Claude Code's payloads, its own answers (`kimi.rs`).
    Kimi,
    /// Clients that speak Claude Code's hook format (their sources: `claude.rs`).
    Factory,
    CodeBuddy,
    Qoder,
    /// Cline CLI: one executable per event, its own payloads and answers (`cline.rs`).
    Cline,
    /// Augment's Auggie CLI: Claude-Code-like settings, its own payloads (`auggie.rs`).
    Auggie,
    /// Clients served through the TypeScript plugin shipped in `extensions/`: OpenCode and Kilo
    /// Code (OpenCode's plugin API), Pi (its extension API).
    OpenCode,
    Kilo,
    Pi,
    /// GitHub Copilot CLI: Claude Code's event names with its own payload fields and answers
    /// (`copilot.rs`).
    Copilot,
}

/// The wire format an agent speaks: which adapter decodes and encodes its hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wire {
    Claude,
    Codex,
    Gemini,
    Qwen,
    Cursor,
    Kimi,
    Cline,
    Auggie,
    /// The payloads our OpenCode plugin sends (OpenCode and Kilo Code).
    OpenCode,
    /// The payloads our Pi extension sends.
    Pi,
    Copilot,
}

impl Agent {
    /// Every agent `--agent` accepts, in the order help texts list them. `install --agent`
    /// writes a configuration for each (Kimi CLI's in the user's `config.toml` only:
    /// docs/agents-survey.md).
    pub const ALL: [Agent; 15] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Qwen,
        Agent::Cursor,
        Agent::Copilot,
        Agent::Kimi,
        Agent::Factory,
        Agent::CodeBuddy,
        Agent::Qoder,
        Agent::Cline,
        Agent::Auggie,
        Agent::OpenCode,
        Agent::Kilo,
        Agent::Pi,
    ];

    /// The name used on the command line, in the trace and in state files.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
            Agent::Cursor => "cursor",
            Agent::Kimi => "kimi",
            Agent::Factory => "factory",
            Agent::CodeBuddy => "codebuddy",
            Agent::Qoder => "qoder",
            Agent::Cline => "cline",
            Agent::Auggie => "auggie",
            Agent::OpenCode => "opencode",
            Agent::Kilo => "kilo",
            Agent::Pi => "pi",
            Agent::Copilot => "copilot",
        }
    }

    /// The client's own name, for people.
    pub fn client(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Qwen => "Qwen Code",
            Agent::Cursor => "Cursor",
            Agent::Kimi => "Kimi CLI",
            Agent::Factory => "Factory Droid",
            Agent::CodeBuddy => "CodeBuddy",
            Agent::Qoder => "Qoder",
            Agent::Cline => "Cline",
            Agent::Auggie => "Augment Auggie",
            Agent::OpenCode => "OpenCode",
            Agent::Kilo => "Kilo Code",
            Agent::Pi => "Pi",
            Agent::Copilot => "GitHub Copilot CLI",
        }
    }

    /// Parses a name (any case; the clients' package names are accepted too).
    pub fn parse(s: &str) -> Option<Agent> {
        let s = s.trim().to_ascii_lowercase();
        let agent = match s.as_str() {
            "claude" | "claude-code" | "claudecode" => Agent::Claude,
            "codex" | "codex-cli" => Agent::Codex,
            "gemini" | "gemini-cli" => Agent::Gemini,
            "qwen" | "qwen-code" => Agent::Qwen,
            "cursor" => Agent::Cursor,
            "kimi" | "kimi-cli" | "kimi-code" => Agent::Kimi,
            "factory" | "droid" | "factory-droid" => Agent::Factory,
            "codebuddy" | "codebuddy-code" => Agent::CodeBuddy,
            "qoder" | "qodercli" | "qoder-cli" => Agent::Qoder,
            "cline" | "cline-cli" => Agent::Cline,
            "auggie" | "augment" | "augmentcode" => Agent::Auggie,
            "opencode" | "opencode-ai" => Agent::OpenCode,
            "kilo" | "kilocode" | "kilo-code" => Agent::Kilo,
            "pi" | "pi-coding-agent" => Agent::Pi,
            "copilot" | "copilot-cli" | "github-copilot" | "github-copilot-cli" => Agent::Copilot,
            _ => return None,
        };
        Some(agent)
    }

    /// The adapter that speaks this agent's hook format.
    pub fn wire(self) -> Wire {
        match self {
            Agent::Codex => Wire::Codex,
            Agent::Gemini => Wire::Gemini,
            Agent::Qwen => Wire::Qwen,
            Agent::Cursor => Wire::Cursor,
            Agent::Kimi => Wire::Kimi,
            Agent::Cline => Wire::Cline,
            Agent::Auggie => Wire::Auggie,
            Agent::Claude | Agent::Factory | Agent::CodeBuddy | Agent::Qoder => Wire::Claude,
            Agent::OpenCode | Agent::Kilo => Wire::OpenCode,
            Agent::Pi => Wire::Pi,
            Agent::Copilot => Wire::Copilot,
        }
    }

    /// Whether the agent sends an end-of-turn continuation back through its prompt event, so
    /// the prompt handler must recognise its own text (tests/e2e/gemini-FINDINGS.md §5,
    /// qwen-FINDINGS.md §4; Cursor submits
    /// `followup_message` as the next user message; our OpenCode plugin's continuation is a
    /// prompt, which fires `chat.message`, and our Pi extension's a user message, which fires
    /// `input`: opencode-FINDINGS.md, pi-FINDINGS.md; GitHub Copilot CLI fires UserPromptSubmit
    /// with the reason, copilot-FINDINGS.md §5, and CodeBuddy with `Stop hook: ` and the reason,
    /// codebuddy-FINDINGS.md §4). Claude Code, Codex and Factory Droid continue inside the turn
    /// without a new prompt event (factory-FINDINGS.md §4).
    pub fn echoes_continuation(self) -> bool {
        matches!(
            self.wire(),
            Wire::Gemini | Wire::Qwen | Wire::Cursor | Wire::OpenCode | Wire::Pi | Wire::Copilot
        ) || self == Agent::CodeBuddy
    }

    /// Whether the client's `stop_hook_active` is true on every Stop that follows one of our
    /// continuations, so that a `false` one starts a new turn. Gemini CLI 0.61.0 sends `false`
    /// again after a continuation in which the model ran a tool (tests/e2e/gemini-FINDINGS.md
    /// §4): there only the person's prompt starts a new turn (it resets the counts anyway).
    pub fn flags_every_continued_stop(self) -> bool {
        self.wire() != Wire::Gemini
    }

    /// Whether context answered on a pre-tool event reaches the model. Gemini CLI's BeforeTool
    /// has no context output (its docs/hooks/reference.md; only AfterTool appends context to
    /// the tool's result) and Qwen Code reads PreToolUse context only beside a
    /// `permissionDecision`, which an announcement must not send; both were seen to drop it
    /// (tests/e2e_agent_guards.rs). Auggie 0.36 uses a PreToolUse answer's messages only when
    /// it refuses the call (its code), and Kimi CLI reads no context at all; Factory Droid 0.225
    /// reads only a PreToolUse hook's decision, input rewrite and system message
    /// (tests/e2e/factory-FINDINGS.md §5). There a capability says on the post-tool event what
    /// it would have said before the call (which Auggie shows; Cline shows both, seen).
    /// OpenCode's `tool.execute.before` and Pi's `tool_call` can refuse or rewrite a call but add
    /// nothing to what the model reads.
    pub fn shows_pre_tool_context(self) -> bool {
        !matches!(
            self.wire(),
            Wire::Gemini | Wire::Qwen | Wire::Kimi | Wire::Auggie | Wire::OpenCode | Wire::Pi
        ) && self != Agent::Factory
    }

    /// Whether the client itself gives the model a project's `.claude/rules/*.md` — those with
    /// a `paths:` list once a file under them is read, the others at start. Claude Code 2.1.328
    /// does (tests/e2e/FINDINGS.md §14); Codex 0.169.0, Gemini CLI 0.61.0 and Qwen Code 0.24.4
    /// were seen not to (their FINDINGS, "Project rules"). The Claude-format clones and Cursor
    /// are unverified: they get the rules from us (a rule given twice costs words, one never
    /// given costs the rule).
    pub fn loads_claude_rules(self) -> bool {
        matches!(self, Agent::Claude)
    }

    /// Whether the client itself gives the model the project's top-level `AGENTS.md`: Claude
    /// Code 2.1.328, Codex 0.169.0 and Qwen Code 0.24.4 do; Gemini CLI 0.61.0 reads `GEMINI.md`
    /// only. None of the four reads an `AGENTS.md` of a subdirectory, even after a file beside
    /// it was read or edited (same probes).
    pub fn loads_root_agents_md(self) -> bool {
        matches!(self, Agent::Claude | Agent::Codex | Agent::Qwen)
    }

    /// Whether a session of the agent can end without a SessionEnd event, so a run it leaves
    /// at the end of a turn is never suspended: Qwen Code fires none in headless `-p` runs
    /// (tests/e2e/qwen-FINDINGS.md §3), nor does CodeBuddy 2.117 when its headless session ends
    /// (codebuddy-FINDINGS.md §3). There a run handed back at the end of a turn is noted as left
    /// open, and a new session may take it up as it would a suspended one
    /// (`capabilities/memory/resume.rs`).
    pub fn may_end_silently(self) -> bool {
        matches!(self.wire(), Wire::Qwen) || self == Agent::CodeBuddy
    }

    /// The variable the client sets to its session id (the one its hooks are sent) in the
    /// environment of the commands the model runs, where it sets one: Claude Code
    /// `CLAUDE_CODE_SESSION_ID` (tests/e2e/FINDINGS.md), Codex `CODEX_THREAD_ID` (the same value
    /// is in `CODEX_SESSION_ID`) and Qwen Code `QWEN_CODE_SESSION_ID`, as the pinned clients were
    /// seen to set them (codex-FINDINGS.md §13, qwen-FINDINGS.md §14), and GitHub Copilot CLI
    /// `COPILOT_AGENT_SESSION_ID` (copilot-FINDINGS.md §2), and CodeBuddy `CODEBUDDY_SESSION_ID`
    /// (codebuddy-FINDINGS.md §2). Gemini CLI and Factory Droid set none.
    pub fn session_var(self) -> Option<&'static str> {
        match self {
            Agent::Claude => Some("CLAUDE_CODE_SESSION_ID"),
            Agent::Codex => Some("CODEX_THREAD_ID"),
            Agent::Qwen => Some("QWEN_CODE_SESSION_ID"),
            Agent::Copilot => Some("COPILOT_AGENT_SESSION_ID"),
            Agent::CodeBuddy => Some("CODEBUDDY_SESSION_ID"),
            _ => None,
        }
    }

    /// The names `--agent` accepts, for help and error texts.
    pub fn names() -> String {
        Agent::ALL
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join("|")
    }
}

impl Wire {
    /// Every wire format, in the order the tables list them.
    pub const ALL: [Wire; 11] = [
        Wire::Claude,
        Wire::Codex,
        Wire::Gemini,
        Wire::Qwen,
        Wire::Cursor,
        Wire::Kimi,
        Wire::Cline,
        Wire::Auggie,
        Wire::OpenCode,
        Wire::Pi,
        Wire::Copilot,
    ];

    /// The agent this wire format is named after.
    pub fn agent(self) -> Agent {
        match self {
            Wire::Claude => Agent::Claude,
            Wire::Codex => Agent::Codex,
            Wire::Gemini => Agent::Gemini,
            Wire::Qwen => Agent::Qwen,
            Wire::Cursor => Agent::Cursor,
            Wire::Kimi => Agent::Kimi,
            Wire::Cline => Agent::Cline,
            Wire::Auggie => Agent::Auggie,
            Wire::OpenCode => Agent::OpenCode,
            Wire::Pi => Agent::Pi,
            Wire::Copilot => Agent::Copilot,
        }
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
