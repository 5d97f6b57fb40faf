// A stand-in host for the plugin files `omc-hooks install --agent opencode|kilo|pi` writes, so
// that tests/agents_plugins.rs can check what the plugin does with each answer, and that it
// fails open, without starting the real clients (tests/e2e_plugins.rs does that).
//
//   node fake_host.mjs opencode|pi <plugin file>   < steps.json   > result.json
//
// steps: [{"hook": "<OpenCode hook name>", "input": {...}, "output": {...}}   OpenCode
//         {"messages": [...]}               OpenCode: what session.messages lists from now on
//         {"event": {...}}                                                    OpenCode bus event
//         {"on": "<Pi event>", "event": {...}, "ctx": {...}}]                 Pi
//         (a Pi event's `text` "$last_sent" is the text the extension last sent)
// result: {"steps": [{"output"|"event": <after the call>, "returned": ..., "threw": "..."}],
//          "logs": [...], "prompts": [...], "toasts": [...], "sent": [...], "notes": [...]}
// Every call is awaited; a step that never settles ends the run after 20 s with "hung".

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [kind, file] = process.argv.slice(2);
const steps = JSON.parse(readFileSync(0, "utf8"));
const result = { steps: [], logs: [], prompts: [], toasts: [], sent: [], notes: [] };

const settle = (p) =>
  Promise.race([
    Promise.resolve(p).then(
      (v) => ({ returned: v === undefined ? null : v }),
      (e) => ({ threw: String(e && e.message) }),
    ),
    new Promise((r) => setTimeout(() => r({ hung: true }), 20000).unref()),
  ]);

const mod = await import(pathToFileURL(file).href);

if (kind === "opencode") {
  const client = {
    app: { log: async ({ body }) => { result.logs.push(body.message); return {}; } },
    tui: { showToast: async ({ body }) => { result.toasts.push(body.message); return {}; } },
    session: {
      // The session's messages: the steps may set them (`{"messages": [...]}`).
      messages: async () => ({ data: result.messages || [] }),
      promptAsync: async ({ path, body }) => {
        result.prompts.push({ id: path.id, text: body.parts.map((p) => p.text).join("") });
        return { response: { status: 204 } };
      },
    },
  };
  const plugin = Object.values(mod).find((v) => typeof v === "function");
  const hooks = await plugin({ client, directory: process.cwd(), worktree: process.cwd() });
  for (const s of steps) {
    if (s.messages) {
      result.messages = s.messages;
      continue;
    }
    if (s.event) {
      const r = await settle(hooks.event ? hooks.event({ event: s.event }) : undefined);
      result.steps.push({ ...r, event: s.event });
    } else {
      const output = s.output || {};
      const fn = hooks[s.hook];
      const r = await settle(fn ? fn(s.input || {}, output) : undefined);
      result.steps.push({ ...r, output });
    }
  }
} else {
  const handlers = {};
  const pi = {
    on: (name, fn) => (handlers[name] = handlers[name] || []).push(fn),
    sendUserMessage: (text, opts) => result.sent.push({ text, opts: opts || null }),
    sendMessage: (msg, opts) => result.sent.push({ message: msg, opts: opts || null }),
  };
  await mod.default(pi);
  for (const s of steps) {
    const c = s.ctx || {};
    const ctx = {
      cwd: c.cwd || process.cwd(),
      hasUI: c.hasUI !== false,
      isIdle: () => c.idle !== false,
      sessionManager: { getSessionId: () => c.session || "s-pi" },
      ui: { notify: (text, level) => result.notes.push({ text, level }) },
    };
    const event = s.event || {};
    // "$last_sent": the text the extension last sent (our continuation coming back)
    if (event.text === "$last_sent" && result.sent.length) event.text = result.sent[result.sent.length - 1].text;
    let r = { returned: null };
    for (const fn of handlers[s.on] || []) r = await settle(fn(event, ctx));
    result.steps.push({ ...r, event });
  }
}
delete result.messages;
process.stdout.write(JSON.stringify(result), () => process.exit(0));
