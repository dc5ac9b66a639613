// cvm-server.mjs — a stock ContextVM server (McpServer from the official MCP
// SDK over @contextvm/sdk's NostrServerTransport) for toolbus interop tests.
//
// Tools:
//   echo {text}        -> text
//   add  {a, b}        -> the sum as text, and structuredContent {sum}
//   slow {ms, steps}   -> waits ms in `steps` steps, sending a progress
//                         notification after each when the request carries a
//                         progressToken; honours cancellation (extra.signal)
//                         and then logs "slow cancelled" to stderr.
//
// Environment:
//   SERVER_SK   hex secret key of the server (required)
//   RELAY_URL   ws:// URL of the relay (required; the only relay used)
//   ENCRYPTION  optional | required | disabled   (default optional)
//   AUTH        1: answer the relay's NIP-42 challenge with SERVER_SK
//   ANNOUNCE    1: isAnnouncedServer (publish kinds 11316/11317 to RELAY_URL)
//   NAME        server name (default toolbus-interop)
//   READY_TIMEOUT_MS  how long to wait for EOSE (and AUTH) before reporting
//               ready anyway (default 10000)
//   LOG_LEVEL   SDK log level (default warn); SDK logs go to stderr
//   RELAY_TRACE 1: log relay refusals/notices (OK false, CLOSED, NOTICE,
//               AUTH) to stderr; 2: every relay message, truncated
//   EXIT_ON_STDIN_CLOSE  1: also shut down when stdin reaches EOF (the Go
//               harness holds stdin open, so the server dies with the test)
//
// Stdout: exactly one line, {"ready":true,"pubkey":"<hex>","eose":bool,
// "authed":bool|null}, once the subscription is live on the relay (or the
// wait timed out: see eose/authed). Then it serves until SIGTERM/SIGINT and
// exits 0. Startup errors: {"ready":false,"error":"..."} and exit 1.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { NostrServerTransport } from '@contextvm/sdk';
import { z } from 'zod';
import { log, env, envFlag, requireEnv, encryptionMode, makePool, waitLive, sleep, errorMessage } from './lib.mjs';

const label = 'server';
let closing = false;

async function main() {
  const sk = requireEnv('SERVER_SK');
  const url = requireEnv('RELAY_URL');
  const encryption = encryptionMode();
  const auth = envFlag('AUTH');
  const name = env('NAME', 'toolbus-interop');
  const readyTimeout = Number(env('READY_TIMEOUT_MS', '10000'));
  const logLevel = env('LOG_LEVEL', 'warn');

  const server = new McpServer({ name, version: '0.0.1' });

  server.registerTool('echo', {
    description: 'Echo the text back',
    inputSchema: { text: z.string() },
  }, async ({ text }) => ({ content: [{ type: 'text', text }] }));

  server.registerTool('add', {
    description: 'Add two numbers',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
    structuredContent: { sum: a + b },
  }));

  server.registerTool('slow', {
    description: 'Wait ms milliseconds in steps, reporting progress; cancellable',
    inputSchema: { ms: z.number().int().min(0), steps: z.number().int().min(1).optional() },
  }, async ({ ms, steps = 1 }, extra) => {
    const token = extra?._meta?.progressToken;
    log(`[${label}] slow start ms=${ms} steps=${steps} progressToken=${token ?? '-'}`);
    try {
      for (let i = 1; i <= steps; i++) {
        await sleep(ms / steps, extra.signal);
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` },
          });
        }
      }
    } catch (e) {
      if (extra.signal?.aborted) {
        // The MCP SDK also aborts running handlers when the server closes.
        const why = closing ? 'server closing' : errorMessage(extra.signal.reason);
        log(`[${label}] slow cancelled (${why})`);
      }
      throw e;
    }
    log(`[${label}] slow done`);
    return { content: [{ type: 'text', text: `slept ${ms} ms in ${steps} steps` }] };
  });

  const p = makePool(url, sk, { auth, label });
  const transport = new NostrServerTransport({
    signer: p.signer,
    relayHandler: p.pool,
    encryptionMode: encryption,
    serverInfo: { name, about: 'toolbus interop test server' },
    isAnnouncedServer: envFlag('ANNOUNCE'),
    publishRelayList: false, // kind 10002 is not needed, and never to public relays
    bootstrapRelayUrls: [],  // never publish anywhere but RELAY_URL
    logLevel,
  });
  transport.onerror = (e) => log(`[${label}] transport error: ${errorMessage(e)}`);

  await server.connect(transport);
  const pubkey = await p.signer.getPublicKey();
  const live = await waitLive(p, { auth, timeoutMs: readyTimeout, label });
  log(`[${label}] serving as ${pubkey} on ${url} encryption=${encryption} auth=${auth}`);
  process.stdout.write(JSON.stringify({ ready: true, pubkey, ...live }) + '\n');

  const shutdown = async (sig) => {
    if (closing) return;
    closing = true;
    log(`[${label}] ${sig}: closing`);
    const t = setTimeout(() => process.exit(0), 2000);
    t.unref();
    try { await server.close(); } catch (e) { log(`[${label}] close: ${errorMessage(e)}`); }
    process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  if (envFlag('EXIT_ON_STDIN_CLOSE')) {
    process.stdin.on('end', () => shutdown('stdin closed'));
    process.stdin.on('error', () => shutdown('stdin error'));
    process.stdin.resume();
  }
}

main().catch((e) => {
  log(`[${label}] fatal: ${e?.stack ?? errorMessage(e)}`);
  process.stdout.write(JSON.stringify({ ready: false, error: errorMessage(e) }) + '\n');
  process.exit(1);
});
