// Shared helpers for cvm-server.mjs and cvm-client.mjs (not run on its own).
//
// - log(): one line to stderr (stdout is reserved for the script's JSON line).
// - makePool(): an ApplesauceRelayPool on one relay that
//     * with auth=true answers the relay's NIP-42 challenge with the given key
//       (ContextVM never authenticates by itself; toolbus delivers plaintext
//       kind-25910 events only to an authenticated author or p-tagged
//       recipient), overriding the pool's createRelay() hook;
//     * records the first EOSE of a subscription, so a script can wait until
//       its subscription is live on the relay before it sends or announces
//       readiness (the SDK's subscribe() resolves before the REQ is answered);
//     * with RELAY_TRACE=1 logs what the relay refuses or says (OK false,
//       OK true with a message, CLOSED, NOTICE, AUTH challenges); with
//       RELAY_TRACE=2 every message from the relay, truncated.
import { ApplesauceRelayPool, PrivateKeySigner } from '@contextvm/sdk';

export function log(...parts) {
  const text = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${text}\n`);
}

export function env(name, fallback) {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : v;
}

export function envFlag(name) {
  return ['1', 'true', 'yes'].includes(String(process.env[name] ?? '').toLowerCase());
}

export function requireEnv(name) {
  const v = process.env[name];
  if (!v) throw new Error(`environment variable ${name} is required`);
  return v;
}

export function encryptionMode() {
  const m = env('ENCRYPTION', 'optional');
  if (!['optional', 'required', 'disabled'].includes(m)) {
    throw new Error(`ENCRYPTION must be optional, required or disabled, not ${JSON.stringify(m)}`);
  }
  return m;
}

// deferred returns a promise with its resolve function.
function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

// within resolves to true if p settles within ms, false otherwise.
export function within(p, ms) {
  return Promise.race([
    p.then(() => true, () => false),
    new Promise((r) => setTimeout(() => r(false), ms).unref()),
  ]);
}

export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason ?? new Error('aborted')); }, { once: true });
  });
}

// makePool returns { pool, authed, eose, signer }: authed resolves on the
// first successful NIP-42 AUTH (never, when auth is false), eose on the first
// EOSE of any subscription made through the pool.
export function makePool(url, secretHex, { auth, label }) {
  const signer = new PrivateKeySigner(secretHex);
  const authed = deferred();
  const eose = deferred();
  const trace = Number(env('RELAY_TRACE', '0')) || 0;
  class HarnessRelayPool extends ApplesauceRelayPool {
    createRelay(relayUrl) {
      const relay = super.createRelay(relayUrl);
      if (trace) traceRelay(relay, label, trace);
      if (auth) {
        relay.challenge$.subscribe((challenge) => {
          if (!challenge) return;
          relay.authenticate(signer).then(
            (res) => {
              log(`[${label}] AUTH ${relayUrl} ->`, res);
              if (res?.ok) authed.resolve();
            },
            (err) => log(`[${label}] AUTH ${relayUrl} failed: ${err?.message ?? err}`),
          );
        });
      }
      return relay;
    }

    async subscribe(filters, onEvent, onEose) {
      log(`[${label}] REQ`, filters);
      return super.subscribe(filters, onEvent, () => {
        log(`[${label}] EOSE`);
        eose.resolve();
        onEose?.();
      });
    }
  }
  const pool = new HarnessRelayPool([url]);
  return { pool, signer, authed: authed.promise, eose: eose.promise };
}

// traceRelay logs relay -> client messages of interest. It subscribes to the
// relay's websocket subject, which opens the connection at once.
function traceRelay(relay, label, level) {
  relay.socket.subscribe({
    next: (m) => {
      if (!Array.isArray(m)) return;
      const interesting =
        level >= 2 ||
        (m[0] === 'OK' && (m[2] === false || m[3])) ||
        m[0] === 'CLOSED' || m[0] === 'NOTICE' || m[0] === 'AUTH';
      if (interesting) log(`[${label}] <- ${JSON.stringify(m).slice(0, 300)}`);
    },
    error: (e) => log(`[${label}] relay socket error: ${errorMessage(e)}`),
  });
}

// waitLive waits (bounded) until the pool's subscription got its EOSE and,
// with auth, until AUTH succeeded. Returns what was observed.
export async function waitLive(p, { auth, timeoutMs, label }) {
  const eose = await within(p.eose, timeoutMs);
  const authed = auth ? await within(p.authed, timeoutMs) : null;
  if (!eose) log(`[${label}] warning: no EOSE within ${timeoutMs} ms (subscription refused or slow?)`);
  if (auth && !authed) log(`[${label}] warning: NIP-42 AUTH did not succeed within ${timeoutMs} ms`);
  return { eose, authed };
}

export function errorMessage(e) {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try { return JSON.stringify(e); } catch { return String(e); }
}
