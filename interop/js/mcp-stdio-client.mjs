// mcp-stdio-client.mjs — the official MCP TypeScript SDK Client driving a
// local MCP server over stdio (toolbus tools --stdio, or toolbus mcp).
//
// Environment:
//   SERVER_CMD   JSON array: the command and its arguments (required)
//   SERVER_CWD   working directory for the server (optional)
//   ACTIONS      JSON list of steps: {"op":"list"},
//                {"op":"call","name":"...","args":{...}} ("progress":true
//                collects progress notifications), or
//                {"op":"cancel","name":"...","args":{...},"afterMs":N}: the
//                call is aborted after N ms (the SDK sends
//                notifications/cancelled); ok when it was rejected.
//   CALL_TIMEOUT_MS  per-request timeout (default 30000)
//
// Stdout: one line of JSON {"ok","error"?,"instructions"?,"steps":[...]},
// where a list step has "tools" (names) and a call step "result".
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const cmd = JSON.parse(process.env.SERVER_CMD || '[]');
const actions = JSON.parse(process.env.ACTIONS || '[{"op":"list"}]');
const timeout = Number(process.env.CALL_TIMEOUT_MS || 30000);
const out = { ok: false, steps: [] };

try {
  const transport = new StdioClientTransport({
    command: cmd[0], args: cmd.slice(1), cwd: process.env.SERVER_CWD || undefined, stderr: 'inherit',
  });
  const client = new Client({ name: 'toolbus-stdio-interop', version: '0.0.1' });
  await client.connect(transport, { timeout });
  out.instructions = client.getInstructions();
  for (const a of actions) {
    const step = { op: a.op, name: a.name, ok: false };
    try {
      if (a.op === 'list') {
        const r = await client.listTools({}, { timeout });
        step.tools = r.tools.map((t) => t.name);
      } else if (a.op === 'cancel') {
        const ac = new AbortController();
        setTimeout(() => ac.abort('cancelled by interop client'), a.afterMs || 300);
        try {
          step.result = await client.callTool({ name: a.name, arguments: a.args || {} }, undefined, { timeout, signal: ac.signal });
          step.error = 'call completed instead of being cancelled';
          out.steps.push(step);
          continue;
        } catch (e) {
          step.cancelled = true;
          step.error = String(e && e.message ? e.message : e);
        }
      } else {
        const progress = [];
        const opts = { timeout, resetTimeoutOnProgress: true };
        if (a.progress) opts.onprogress = (p) => progress.push(p);
        step.result = await client.callTool({ name: a.name, arguments: a.args || {} }, undefined, opts);
        if (a.progress) step.progress = progress;
      }
      step.ok = true;
    } catch (e) {
      step.error = String(e && e.message ? e.message : e);
    }
    out.steps.push(step);
  }
  await client.close();
  out.ok = out.steps.every((s) => s.ok);
} catch (e) {
  out.error = String(e && e.message ? e.message : e);
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(out.ok ? 0 : 1);
