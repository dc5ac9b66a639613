// nip29-client.mjs — a stock nostr-tools client working a toolbus
// workspace channel (NIP-29), for the channels interop test.
//
// Environment: RELAY_URL; OWNER_SK, MEMBER_SK, OUTSIDER_SK (hex secret keys:
// the owner creates a private channel and invites the member; the member
// replies in a thread; the outsider — a workspace member not in the channel —
// tries every filter, stored and live); GROUP (channel id).
// Stdout: one line of JSON {"ok", "error"?, "messages", "thread",
// "metadata", "outsiderSaw"}.
import WebSocket from 'ws';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import { finalizeEvent, getPublicKey } from 'nostr-tools/pure';
import { hexToBytes } from 'nostr-tools/utils';

useWebSocketImplementation(WebSocket);
const env = (k) => { const v = process.env[k]; if (!v) throw new Error(`${k} is required`); return v; };
const url = env('RELAY_URL'), group = process.env.GROUP || 'design';
const keys = { owner: hexToBytes(env('OWNER_SK')), member: hexToBytes(env('MEMBER_SK')), outsider: hexToBytes(env('OUTSIDER_SK')) };
const pk = (who) => getPublicKey(keys[who]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// connect opens a relay connection authenticated (NIP-42) as who.
async function connect(who) {
  const relay = await Relay.connect(url);
  for (let i = 0; i < 50; i++) {
    try { await relay.auth(async (t) => finalizeEvent(t, keys[who])); return relay; }
    catch { await sleep(50); } // the challenge may not have arrived yet
  }
  throw new Error(`${who}: AUTH failed`);
}

const now = () => Math.floor(Date.now() / 1000);
const publish = (relay, who, kind, content, tags) =>
  relay.publish(finalizeEvent({ kind, content, tags, created_at: now() }, keys[who])).then(() => 0);

// query collects stored events for filters until EOSE.
function query(relay, filters) {
  return new Promise((resolve) => {
    const got = [];
    const sub = relay.subscribe(filters, { onevent: (e) => got.push(e), oneose: () => { sub.close(); resolve(got); } });
  });
}

const out = { ok: false };
try {
  const owner = await connect('owner');
  const member = await connect('member');
  const outsider = await connect('outsider');
  const seen = [];
  for (const f of [{ kinds: [9] }, { '#h': [group] }, {}, { authors: [pk('owner'), pk('member')] }]) {
    outsider.subscribe([{ ...f, limit: 0 }], { onevent: (e) => seen.push(e) });
  }
  await publish(owner, 'owner', 9007, '', [['h', group], ['name', 'Design'], ['private'], ['closed']]);
  await sleep(1100); // the next changes in a later second (the relay accepts either)
  await publish(owner, 'owner', 9000, '', [['h', group], ['p', pk('member'), 'member']]);
  const root = finalizeEvent({ kind: 9, content: 'root: the new logo', tags: [['h', group]], created_at: now() }, keys.owner);
  await owner.publish(root);
  await publish(member, 'member', 9, 'reply: looks good', [['h', group], ['e', root.id, url, 'root'], ['p', pk('owner')]]);
  await sleep(300);
  const msgs = await query(member, [{ kinds: [9], '#h': [group] }]);
  out.messages = msgs.map((e) => ({ id: e.id, content: e.content, tags: e.tags }));
  out.thread = msgs.filter((e) => e.tags.some((t) => t[0] === 'e' && t[1] === root.id && t[3] === 'root')).length;
  out.metadata = (await query(member, [{ kinds: [39000, 39001, 39002], '#d': [group] }]))
    .map((e) => ({ kind: e.kind, pubkey: e.pubkey, tags: e.tags }));
  for (const f of [{ kinds: [9] }, { '#h': [group] }, { ids: [root.id] }, { authors: [pk('owner')] }, { kinds: [39002] }]) {
    seen.push(...(await query(outsider, [f])).filter((e) => e.kind !== 39002 || e.tags.some((t) => t[0] === 'd' && t[1] === group)));
  }
  out.outsiderSaw = seen.filter((e) => e.tags.some((t) => (t[0] === 'h' || t[0] === 'd') && t[1] === group)).map((e) => e.kind);
  out.ok = true;
  [owner, member, outsider].forEach((r) => r.close());
} catch (e) {
  out.error = String(e && e.message ? e.message : e);
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(out.ok ? 0 : 1);
