// ---- OpenCode and Kilo Code (extensions/opencode/plugin.js) ----
// OpenCode's plugin API (Kilo Code is OpenCode underneath and loads the same plugin from
// .kilo/plugins/). Each event the binary serves is passed on with the fields of a Claude Code
// hook payload; its answer is applied the way OpenCode allows: context as a synthetic part of
// the prompt or appended to a tool's output, a refused call by throwing, a rewritten call by
// changing its arguments, and a run that must go on by sending the next prompt with
// session.promptAsync when the session goes idle. What the pinned clients were seen to do:
// tests/e2e/opencode-FINDINGS.md in the omc-hooks repository.

/** A tool's output sent to the binary is cut to this many characters (its end kept). */
const MAX_OUTPUT_CHARS = 100000;

function tail(text) {
  const s = typeof text === "string" ? text : "";
  return s.length > MAX_OUTPUT_CHARS ? s.slice(s.length - MAX_OUTPUT_CHARS) : s;
}

/**
 * A synthetic text part after the last of `parts`: OpenCode stores a part only with its ids, and
 * orders a message's parts by id (`prt_` + 12 hex digits of time and counter + 14 characters).
 */
function textPart(message, parts, text) {
  const last = parts.length ? parts[parts.length - 1] : null;
  const m = last && typeof last.id === "string" ? /^prt_([0-9a-f]{12})/.exec(last.id) : null;
  if (!m) return null;
  const next = (BigInt("0x" + m[1]) + 1n).toString(16).padStart(12, "0");
  const rand = Math.random().toString(36).slice(2, 10).padEnd(8, "0");
  return {
    id: `prt_${next}omc${rand}000`.slice(0, last.id.length),
    messageID: message.id,
    sessionID: message.sessionID,
    type: "text",
    text,
    synthetic: true,
  };
}

export const OmcHooks = async ({ client, directory }) => {
  report = (text) => {
    try {
      client.app
        .log({ body: { service: "omc-hooks", level: "warn", message: text } })
        .catch(() => {});
    } catch {}
  };
  if (typeof CONFIG !== "object" || !CONFIG || typeof CONFIG.bin !== "string") {
    diagnose("config", "this plugin was not written by 'omc-hooks install'; it does nothing");
    return {};
  }
  /** What the plugin keeps per session between events: no policy, only what OpenCode does not carry. */
  const sessions = new Map();
  const session = (id) => {
    let s = sessions.get(id);
    if (!s) {
      s = {
        child: false,
        starting: null, // the session-start hook under way: a prompt waits for its context
        held: [], // context for the next prompt
        pending: [], // context for the next model call (after a tool that threw)
        failing: new Set(), // failure hooks under way: the next model call waits for their context
        sent: null, // the continuation sent, until it comes back as a prompt
        continued: false, // the last prompt was our continuation
        error: null, // the last session.error since the last idle
        denied: new Set(), // calls refused here: their error is not a failure to count
        failed: new Set(), // calls whose failure was passed on
      };
      sessions.set(id, s);
    }
    return s;
  };
  const base = (id) => ({ session_id: id, cwd: directory });
  const toast = (message, variant) => {
    try {
      client.tui.showToast({ body: { message, variant } }).catch(() => {});
    } catch {}
  };
  const tell = (answer) => {
    if (answer && answer.message) toast(answer.message, "info");
  };
  /** The text of the session's last answer (idle carries none): whether it is done, or asks. */
  const lastAnswer = async (id) => {
    try {
      const r = await client.session.messages({ path: { id } });
      const list = (r && r.data) || [];
      for (let i = list.length - 1; i >= 0; i--) {
        const m = list[i];
        if (!m || !m.info || m.info.role !== "assistant") continue;
        return tail(
          (m.parts || [])
            .filter((p) => p.type === "text" && !p.synthetic && typeof p.text === "string")
            .map((p) => p.text)
            .join("\n"),
        );
      }
    } catch (e) {
      diagnose("messages", `cannot read the session's last answer: ${e && e.message}`);
    }
    return undefined;
  };
  const hold = (id, answer) => {
    if (answer && answer.context) session(id).held.push(answer.context);
    tell(answer);
  };

  async function onEvent(event) {
    const p = event.properties || {};
    switch (event.type) {
      case "session.created": {
        const info = p.info || {};
        const id = info.id || p.sessionID;
        if (!id) return;
        // A subagent's session (the task tool) is part of its parent's turn.
        if (info.parentID) {
          session(id).child = true;
          return;
        }
        const s = session(id);
        s.starting = hook("session.created", { ...base(id), source: "startup" }).then((a) => hold(id, a));
        await s.starting;
        s.starting = null;
        return;
      }
      case "session.compacted": {
        const id = p.sessionID;
        if (!id || session(id).child) return;
        const s = session(id);
        s.starting = hook("session.compacted", { ...base(id), source: "compact" }).then((a) => hold(id, a));
        await s.starting;
        s.starting = null;
        return;
      }
      case "session.error": {
        if (!p.sessionID) return;
        const e = p.error || {};
        session(p.sessionID).error = {
          name: typeof e.name === "string" ? e.name : "Error",
          message: e.data && typeof e.data.message === "string" ? e.data.message : undefined,
        };
        return;
      }
      case "message.part.updated": {
        // A tool that threw: OpenCode runs no tool.execute.after for it.
        const part = p.part || {};
        const state = part.state || {};
        if (part.type !== "tool" || state.status !== "error") return;
        const s = session(part.sessionID);
        if (s.denied.has(part.callID) || s.failed.has(part.callID)) return;
        s.failed.add(part.callID);
        // The error is already the call's result: the context goes with the next model call,
        // which OpenCode may start before this hook answers (it does not wait for events), so
        // that call waits for it (system.transform below; the hook is bounded by its timeout).
        const done = hook("message.part.updated", {
          ...base(part.sessionID),
          tool_name: part.tool,
          tool_input: state.input,
          tool_use_id: part.callID,
          error: typeof state.error === "string" ? state.error : "the tool failed",
        }).then((a) => {
          if (a && a.context) s.pending.push(a.context);
          tell(a);
        });
        s.failing.add(done);
        await done;
        s.failing.delete(done);
        return;
      }
      case "session.idle": {
        const id = p.sessionID;
        if (!id) return;
        const s = session(id);
        if (s.child) return;
        const error = s.error;
        s.error = null;
        const a = await hook("session.idle", {
          ...base(id),
          stop_hook_active: s.continued,
          last_assistant_message: await lastAnswer(id),
          ...(error ? { error_name: error.name, stop_reason: error.message } : {}),
        });
        tell(a);
        if (a && a.continue) {
          s.sent = a.continue;
          s.continued = true;
          const r = await client.session.promptAsync({
            path: { id },
            body: { parts: [{ type: "text", text: a.continue }] },
          });
          if (r && r.error) diagnose("continue", `could not continue the session: ${JSON.stringify(r.error).slice(0, 300)}`);
        } else {
          s.continued = false;
        }
        return;
      }
      case "session.deleted": {
        const id = (p.info && p.info.id) || p.sessionID;
        if (!id) return;
        const child = session(id).child;
        sessions.delete(id);
        if (!child) await hook("session.deleted", { ...base(id), reason: "deleted" });
        return;
      }
    }
  }

  return {
    event: async ({ event }) => {
      try {
        await onEvent(event);
      } catch (e) {
        diagnose("event", `${event && event.type}: ${e && e.message}`);
      }
    },

    "chat.message": async (input, output) => {
      let refusal = null;
      try {
        const id = input.sessionID;
        const s = session(id);
        if (s.starting) await s.starting;
        const parts = output.parts || [];
        const prompt = parts
          .filter((p) => p.type === "text" && !p.synthetic && typeof p.text === "string")
          .map((p) => p.text)
          .join("\n");
        // Our own continuation comes back here; any other prompt is the person's.
        if (prompt !== s.sent) s.continued = false;
        s.sent = null;
        const a = await hook("chat.message", { ...base(id), prompt });
        tell(a);
        const texts = s.held.splice(0);
        if (a && a.context) texts.push(a.context);
        for (const text of texts) {
          const part = textPart(output.message, output.parts, text);
          if (part) output.parts.push(part);
          else diagnose("part", "cannot add context to this prompt (unknown part ids)");
        }
        if (a && a.deny) refusal = a.deny;
      } catch (e) {
        diagnose("chat.message", `chat.message: ${e && e.message}`);
      }
      if (refusal) {
        // The prompt never reaches the model (OpenCode fails it): say why.
        toast(refusal, "warning");
        throw new Error(refusal);
      }
    },

    "experimental.chat.system.transform": async (input, output) => {
      // Context held after a failed tool (its result was already written) reaches the next
      // model call of that session.
      try {
        const s = input.sessionID && sessions.get(input.sessionID);
        if (s && s.failing.size) await Promise.allSettled([...s.failing]);
        if (s && s.pending.length && Array.isArray(output.system)) {
          output.system.push(...s.pending.splice(0));
        }
      } catch (e) {
        diagnose("system", `system.transform: ${e && e.message}`);
      }
    },

    "tool.execute.before": async (input, output) => {
      let refusal = null;
      try {
        const a = await hook("tool.execute.before", {
          ...base(input.sessionID),
          tool_name: input.tool,
          tool_input: output.args,
          tool_use_id: input.callID,
        });
        tell(a);
        if (a && a.deny) {
          session(input.sessionID).denied.add(input.callID);
          refusal = a.deny;
        } else if (a && a.tool_input && output.args && typeof output.args === "object") {
          // The arguments object is the one the tool runs with: change it in place.
          for (const k of Object.keys(output.args)) delete output.args[k];
          Object.assign(output.args, a.tool_input);
        }
      } catch (e) {
        diagnose("tool.execute.before", `tool.execute.before: ${e && e.message}`);
      }
      if (refusal) throw new Error(refusal);
    },

    "tool.execute.after": async (input, output) => {
      try {
        const meta = output.metadata || {};
        const a = await hook("tool.execute.after", {
          ...base(input.sessionID),
          tool_name: input.tool,
          tool_input: input.args,
          tool_use_id: input.callID,
          tool_response: {
            output: tail(output.output),
            title: output.title,
            ...(typeof meta.exit === "number" ? { exit: meta.exit } : {}),
          },
        });
        tell(a);
        if (a && a.context && typeof output.output === "string") {
          output.output = `${output.output}\n\n${a.context}`;
        }
      } catch (e) {
        diagnose("tool.execute.after", `tool.execute.after: ${e && e.message}`);
      }
    },

    "experimental.session.compacting": async (input) => {
      try {
        tell(await hook("experimental.session.compacting", { ...base(input.sessionID) }));
      } catch (e) {
        diagnose("compacting", `session.compacting: ${e && e.message}`);
      }
    },
  };
};
