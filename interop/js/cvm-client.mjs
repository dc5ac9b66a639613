// cvm-client.mjs — a stock ContextVM client (Client from the official MCP SDK
// over @contextvm/sdk's NostrClientTransport) for toolbus interop tests.
// It connects (MCP initialize, or the SDK's emulation when STATELESS=1), runs
// ACTIONS in order, and prints what happened.
//
// Environment:
//   CLIENT_SK        hex secret key of the client (required)
//   RELAY_URL        ws:// URL of the relay (required; the only relay used)
//   SERVER_PK        hex (or npub) public key of the server (required)
//   ENCRYPTION       optional | required | disabled (default optional; with
//                    optional the SDK client always gift-wraps)
//   AUTH             1: answer the relay's NIP-42 challenge with CLIENT_SK and
//                    wait for AUTH before sending anything
//   STATELESS        1: isStateless (no initialize round trip)
//   CALL_TIMEOUT_MS  timeout of connect and of each request (default 15000)
//   READY_TIMEOUT_MS how long to wait for the subscription's EOSE (and AUTH)
//                    before sending anyway (default 10000)
//   LOG_LEVEL        SDK log level (default warn); SDK logs go to stderr
//   RELAY_TRACE      1: log relay refusals/notices (OK false, CLOSED, NOTICE,
//                    AUTH) to stderr; 2: every relay message, truncated
//   ACTIONS          JSON list of steps (default [{"op":"list"}]):
//     {"op":"list"}                                   tools/list -> tool names
//     {"op":"call","name":"echo","args":{...}}         tools/call -> CallToolResult
//        "progress":true  asks for progress (a progressToken) and records them
//     {"op":"cancel","name":"slow","args":{...},"afterMs":300}
//        tools/call aborted after afterMs (the SDK sends notifications/
//        cancelled); ok when the call was rejected, not when it completed
//     {"op":"wait","ms":500}                           sleep
//
// Stdout: exactly one line of JSON:
//   {"ok":bool,"error"?:string,"server"?:{name,version},
//    "serverSupportsEncryption"?:bool,"live":{eose,authed},
//    "steps":[{"op","name"?,"ok","ms","tools"?,"result"?,"progress"?,
//              "cancelled"?,"error"?}]}
// Exit code 0 when connect and every step succeeded, 1 otherwise.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { NostrClientTransport } from '@contextvm/sdk';
import { log, env, envFlag, requireEnv, encryptionMode, makePool, waitLive, sleep, within, errorMessage } from './lib.mjs';

const label = 'client';
const out = { ok: false, steps: [] };

async function runStep(client, step, timeout) {
  const res = { op: step.op };
  if (step.name) res.name = step.name;
  const t0 = Date.now();
  try {
    switch (step.op) {
      case 'list': {
        const r = await client.listTools(undefined, { timeout });
        res.tools = r.tools.map((t) => t.name);
        res.ok = true;
        break;
      }
      case 'call': {
        const progress = [];
        const opts = { timeout };
        if (step.progress) {
          opts.onprogress = (p) => { log(`[${label}] progress`, p); progress.push(p); };
          res.progress = progress;
        }
        res.result = await client.callTool({ name: step.name, arguments: step.args ?? {} }, undefined, opts);
        res.ok = true;
        break;
      }
      case 'cancel': {
        const progress = [];
        const ac = new AbortController();
        const opts = { timeout, signal: ac.signal };
        if (step.progress) {
          opts.onprogress = (p) => { log(`[${label}] progress`, p); progress.push(p); };
          res.progress = progress;
        }
        const timer = setTimeout(() => {
          log(`[${label}] aborting ${step.name} after ${step.afterMs ?? 300} ms`);
          ac.abort(new Error('cancelled by interop client'));
        }, step.afterMs ?? 300);
        try {
          res.result = await client.callTool({ name: step.name, arguments: step.args ?? {} }, undefined, opts);
          res.ok = false;
          res.cancelled = false;
          res.error = 'call completed before it was cancelled';
        } catch (e) {
          res.cancelled = ac.signal.aborted;
          res.ok = res.cancelled;
          res.error = errorMessage(e);
        } finally {
          clearTimeout(timer);
        }
        // Let the notifications/cancelled event go out before the next step.
        await sleep(step.settleMs ?? 300);
        break;
      }
      case 'wait':
        await sleep(step.ms ?? 0);
        res.ok = true;
        break;
      default:
        throw new Error(`unknown op ${JSON.stringify(step.op)}`);
    }
  } catch (e) {
    res.ok = false;
    res.error = errorMessage(e);
  }
  res.ms = Date.now() - t0;
  log(`[${label}] step ${step.op}${step.name ? ' ' + step.name : ''}: ${res.ok ? 'ok' : 'FAILED ' + res.error} (${res.ms} ms)`);
  return res;
}

async function main() {
  const sk = requireEnv('CLIENT_SK');
  const url = requireEnv('RELAY_URL');
  const serverPubkey = requireEnv('SERVER_PK');
  const encryption = encryptionMode();
  const auth = envFlag('AUTH');
  const timeout = Number(env('CALL_TIMEOUT_MS', '15000'));
  const readyTimeout = Number(env('READY_TIMEOUT_MS', '10000'));
  const actions = JSON.parse(env('ACTIONS', '[{"op":"list"}]'));
  if (!Array.isArray(actions)) throw new Error('ACTIONS must be a JSON list');

  const p = makePool(url, sk, { auth, label });
  const transport = new NostrClientTransport({
    signer: p.signer,
    relayHandler: p.pool,
    serverPubkey,
    encryptionMode: encryption,
    isStateless: envFlag('STATELESS'),
    logLevel: env('LOG_LEVEL', 'warn'),
  });
  transport.onerror = (e) => log(`[${label}] transport error: ${errorMessage(e)}`);
  // Client.connect() = transport.start() then initialize: make start() wait
  // until our subscription is live (and AUTH done), so no reply is missed.
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    out.live = await waitLive(p, { auth, timeoutMs: readyTimeout, label });
  };

  const client = new Client({ name: 'toolbus-interop-client', version: '0.0.1' });
  try {
    await client.connect(transport, { timeout });
  } catch (e) {
    out.error = `connect: ${errorMessage(e)}`;
    log(`[${label}] ${out.error}`);
    await within(client.close(), 2000);
    return 1;
  }
  out.server = client.getServerVersion();
  try { out.serverSupportsEncryption = transport.serverSupportsEncryption(); } catch { /* older SDKs */ }
  log(`[${label}] connected to`, out.server);

  for (const step of actions) out.steps.push(await runStep(client, step, timeout));
  out.ok = out.steps.every((s) => s.ok);
  await within(client.close(), 2000);
  return out.ok ? 0 : 1;
}

main().then(
  (code) => {
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(code));
  },
  (e) => {
    log(`[${label}] fatal: ${e?.stack ?? errorMessage(e)}`);
    out.ok = false;
    out.error = errorMessage(e);
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(1));
  },
);
