// ---- Pi (extensions/pi/extension.js) ----
// Pi's extension API. Each event the binary serves is passed on with the fields of a Claude
// Code hook payload; its answer is applied the way Pi allows: context as a message before the
// agent starts or appended to a tool's result, a refused call with `block`, a rewritten call by
// changing its input in place, a refused prompt as handled, and a run that must go on as the
// next user message, sent when the agent's run ends (agent_end; Pi does not wait for an
// extension at the end of a turn, so a follow-up queued then would come too late). What the
// pinned client was seen to do:
// tests/e2e/pi-FINDINGS.md in the omc-hooks repository.

/** A tool's result sent to the binary is cut to this many characters (its end kept). */
const MAX_RESULT_CHARS = 100000;

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((c) => c && c.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n");
}

function tail(text) {
  return text.length > MAX_RESULT_CHARS ? text.slice(text.length - MAX_RESULT_CHARS) : text;
}

export default function omcHooks(pi) {
  if (typeof CONFIG !== "object" || !CONFIG || typeof CONFIG.bin !== "string") {
    diagnose("config", "this extension was not written by 'omc-hooks install'; it does nothing");
    return;
  }
  /** What the extension keeps per session between events: no policy, only what Pi does not carry. */
  const sessions = new Map();
  const session = (id) => {
    let s = sessions.get(id);
    if (!s) {
      s = {
        held: [], // context for the next prompt
        sent: null, // the continuation sent, until it comes back as input
        continued: false, // the last input was our continuation
      };
      sessions.set(id, s);
    }
    return s;
  };
  const idOf = (ctx) => {
    try {
      return ctx.sessionManager.getSessionId();
    } catch {
      return undefined;
    }
  };
  const base = (ctx) => ({ session_id: idOf(ctx), cwd: ctx.cwd });
  const useLogger = (ctx) => {
    if (ctx && ctx.hasUI) {
      report = (text) => {
        try {
          ctx.ui.notify(`omc-hooks: ${text}`, "warning");
        } catch {}
      };
    }
  };
  const tell = (ctx, answer) => {
    if (!answer || !answer.message) return;
    try {
      if (ctx.hasUI) ctx.ui.notify(answer.message, "info");
      else process.stderr.write(`${answer.message}\n`);
    } catch {}
  };
  /** Every handler fails open: an exception here must never block a call or stop Pi. */
  const on = (event, handler) =>
    pi.on(event, async (e, ctx) => {
      try {
        return await handler(e, ctx);
      } catch (err) {
        diagnose(event, `${event}: ${err && err.message}`);
        return undefined;
      }
    });

  on("session_start", async (e, ctx) => {
    useLogger(ctx);
    const a = await hook("session_start", { ...base(ctx), source: e.reason });
    if (a && a.context) session(idOf(ctx)).held.push(a.context);
    tell(ctx, a);
  });

  on("input", async (e, ctx) => {
    const s = session(idOf(ctx));
    const prompt = typeof e.text === "string" ? e.text : "";
    // Our own continuation comes back here (source "extension"); anything else is the person's.
    if (!(e.source === "extension" && prompt === s.sent)) s.continued = false;
    s.sent = null;
    const a = await hook("input", { ...base(ctx), prompt, input_source: e.source });
    tell(ctx, a);
    if (a && a.deny) {
      // The prompt never reaches the model: say why.
      tell(ctx, { message: a.deny });
      return { action: "handled" };
    }
    if (a && a.context) s.held.push(a.context);
    return undefined;
  });

  on("before_agent_start", async (_e, ctx) => {
    const held = session(idOf(ctx)).held.splice(0);
    if (!held.length) return undefined;
    return { message: { customType: "omc-hooks", content: held.join("\n\n"), display: false } };
  });

  on("tool_call", async (e, ctx) => {
    const a = await hook("tool_call", {
      ...base(ctx),
      tool_name: e.toolName,
      tool_input: e.input,
      tool_use_id: e.toolCallId,
    });
    tell(ctx, a);
    if (a && a.deny) return { block: true, reason: a.deny };
    if (a && a.tool_input && e.input && typeof e.input === "object") {
      // The input object is the one the tool runs with: change it in place.
      for (const k of Object.keys(e.input)) delete e.input[k];
      Object.assign(e.input, a.tool_input);
    }
    return undefined;
  });

  on("tool_result", async (e, ctx) => {
    const a = await hook("tool_result", {
      ...base(ctx),
      tool_name: e.toolName,
      tool_input: e.input,
      tool_use_id: e.toolCallId,
      tool_response: { content: tail(textOf(e.content)), is_error: e.isError === true },
    });
    tell(ctx, a);
    if (a && a.context) {
      const content = Array.isArray(e.content) ? e.content : [];
      return { content: [...content, { type: "text", text: a.context }] };
    }
    return undefined;
  });

  on("agent_end", async (e, ctx) => {
    const s = session(idOf(ctx));
    const messages = Array.isArray(e.messages) ? e.messages : [];
    const m = [...messages].reverse().find((x) => x && x.role === "assistant") || {};
    const a = await hook("agent_end", {
      ...base(ctx),
      stop_hook_active: s.continued,
      stop_reason: m.stopReason,
      last_assistant_message: m.errorMessage ? `API Error: ${m.errorMessage}` : textOf(m.content),
    });
    tell(ctx, a);
    if (a && a.continue) {
      // Print and JSON modes (no UI) end the process when the prompt's run ends, before a
      // new prompt could run: there the run waits for the next prompt.
      if (!ctx.hasUI) {
        diagnose("headless", "pi -p and --mode json end when their prompt's run ends: the run continues at your next prompt (or in pi's interactive or RPC mode)");
        s.continued = false;
        return undefined;
      }
      s.sent = a.continue;
      s.continued = true;
      pi.sendUserMessage(a.continue, ctx.isIdle() ? undefined : { deliverAs: "followUp" });
    } else {
      s.continued = false;
    }
    return undefined;
  });

  on("session_before_compact", async (e, ctx) => {
    tell(ctx, await hook("session_before_compact", {
      ...base(ctx),
      ...(typeof e.customInstructions === "string" ? { custom_instructions: e.customInstructions } : {}),
    }));
    return undefined;
  });

  on("session_compact", async (_e, ctx) => {
    const a = await hook("session_compact", { ...base(ctx), source: "compact" });
    tell(ctx, a);
    if (a && a.context) {
      // Mid-run the model reads it before its next call; between prompts, with the next one.
      if (ctx.isIdle()) session(idOf(ctx)).held.push(a.context);
      else pi.sendMessage({ customType: "omc-hooks", content: a.context, display: false }, { deliverAs: "steer" });
    }
  });

  on("session_shutdown", async (e, ctx) => {
    await hook("session_shutdown", { ...base(ctx), reason: e.reason });
    sessions.delete(idOf(ctx));
  });
}
