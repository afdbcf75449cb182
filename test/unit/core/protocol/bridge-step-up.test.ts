/**
 * The bridge's scope step-up (403 insufficient_scope) under an agent's
 * concurrent calls: the protocol SDK's client, in process, talks to
 * runBridge over an in-memory stdio pair; the bridge reaches the in-process
 * emulator over real HTTP and signs in through a stand-in browser that
 * answers the consent page. The emulator's protected resource names only
 * tools:read, so every tools/call is refused until the token holds
 * tools:call: twenty calls at once make one re-authorization, and when it
 * fails each of them gets its error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { runBridge } from '../../../../src/core/protocol/bridge.js';
import { ProtocolCredentials } from '../../../../src/core/protocol/store.js';
import { useInProcessEmulator } from '../../../e2e/in-process-emulator.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { LinkedClock } from '../../../fakes/linked-clock.js';
import { sdkStdio } from './host-stdio.js';

const ref = useInProcessEmulator();
const CALLS = 20;

let http: HttpClient;
let browser: ConsentBrowser;
let notes: string[];

beforeEach(() => {
  http = new HttpClient({ clock: new LinkedClock(ref.emu, { autoAdvance: false }), userAgent: 'test' });
  browser = new ConsentBrowser('allow');
  notes = [];
});
afterEach(async () => {
  await http.close();
});

/** A host with the SDK's client in front of a bridge to the emulator's /mcp; `close` ends stdin and waits for the bridge. */
async function host() {
  const io = sdkStdio();
  // Sleeps wait for the test (none here): a sign-in is never overdue on its own.
  const clock = new LinkedClock(ref.emu, { autoAdvance: false });
  const done = runBridge(
    {
      http,
      clock,
      credentials: new ProtocolCredentials(new MemoryCredentialStore()),
      loopbackTimeoutMs: 600_000,
      clientSecret: async () => undefined,
      presentAuthorizationUrl: async (url) => void (await browser.open(url)),
      notify: (line) => void notes.push(line),
    },
    { serverUrl: `${ref.emu.url}/mcp`, clientInfo: { name: 'lanyard', version: '0' }, signInWaitMs: 60_000 },
    { lines: io.lines, send: io.send },
  );
  const client = new Client({ name: 'agent-host', version: '1.0.0' });
  await client.connect(io.transport);
  return {
    client,
    clock,
    async close() {
      await client.close();
      await done;
    },
  };
}

/** The part of the emulator's protocol statistics these tests read. */
interface Stats {
  dpop: { nonceChallenges: { token: number; resource: number } };
  authorizeRequests: number;
  tokenRequests: Record<string, number>;
  mcpRequests: Array<{ method: string; status: number }>;
}
const stats = () => ref.emu.admin('protocol', 'stats') as Promise<Stats>;
const calls = (client: Client) =>
  Promise.allSettled(Array.from({ length: CALLS }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `call ${i}` } })));

describe('bridge: concurrent tools/call that each need a scope step-up', () => {
  it('twenty calls at once refused for tools:call make one re-authorization; every call is answered with its own result', async () => {
    const h = await host();
    // Signed in with what the resource names (tools:read): listing works, calling needs the step-up.
    expect((await h.client.listTools()).tools.map((t) => t.name)).toContain('echo');
    expect(browser.urls).toHaveLength(1);
    const results = await calls(h.client);
    expect(results.map((r) => r.status)).toEqual(Array(CALLS).fill('fulfilled'));
    results.forEach((r, i) => expect(JSON.stringify((r as PromiseFulfilledResult<{ content: unknown }>).value.content)).toContain(`call ${i}`));
    const s = await stats();
    // The first sign-in and one step-up: one authorization request each, one code exchange each.
    expect(browser.urls).toHaveLength(2);
    expect(new URL(browser.urls[1]!).searchParams.get('scope')?.split(' ').sort()).toEqual(['tools:call', 'tools:read']);
    expect(s.authorizeRequests).toBe(2);
    expect(s.tokenRequests.authorization_code).toBe(2);
    expect(s.mcpRequests.filter((m) => m.method === 'tools/call' && m.status === 403).length).toBeGreaterThanOrEqual(1);
    expect(notes.filter((n) => n.includes('authorizing again'))).toHaveLength(1);
    await h.close();
  });

  it('when the step-up fails (consent denied) each of the twenty calls fails with its error, after one attempt', async () => {
    const h = await host();
    await h.client.listTools();
    browser.decision = 'deny';
    const results = await calls(h.client);
    const errors = results.map((r) => (r.status === 'rejected' ? String((r.reason as Error).message) : 'answered'));
    expect(new Set(errors).size, errors.join('\n')).toBe(1);
    expect(errors[0]).toMatch(/^MCP error -32051: authorization was denied/);
    expect(browser.urls).toHaveLength(2);
    expect((await stats()).authorizeRequests).toBe(2);
    // A call made after the failure asks again (the user may have changed their mind), and goes through.
    browser.decision = 'allow';
    const later = await h.client.callTool({ name: 'echo', arguments: { text: 'later' } });
    expect(JSON.stringify(later.content)).toContain('later');
    expect(browser.urls).toHaveLength(3);
    await h.close();
  });
});

describe('bridge: a step-up that waits for the user', () => {
  it('keeps none of the twenty calls past --sign-in-wait: each gets -32050; the sign-in goes on, and the calls after it pass', async () => {
    const h = await host();
    await h.client.listTools();
    browser.decision = 'record';
    // The step-up's page is open and the calls' sign-in waits are running (60 s on the test's clock; the first sign-in's wait was one).
    const sleeping = () => h.clock.sleeps.filter((ms) => ms === 60_000).length;
    const before = sleeping();
    const waiting = calls(h.client);
    for (let i = 0; i < 400 && (browser.urls.length < 2 || sleeping() < before + CALLS); i++) await new Promise((r) => setTimeout(r, 5));
    expect(sleeping()).toBe(before + CALLS);
    h.clock.advance(60_000);
    const results = await waiting;
    expect(results.map((r) => (r.status === 'rejected' ? String((r.reason as Error).message).slice(0, 16) : 'answered'))).toEqual(
      Array(CALLS).fill('MCP error -32050'),
    );
    expect(browser.urls).toHaveLength(2);
    // The user allows it afterwards: the step-up completes, and the next call goes through without asking again.
    await new ConsentBrowser('allow').open(browser.urls[1]!);
    const later = await h.client.callTool({ name: 'echo', arguments: { text: 'after the sign-in' } });
    expect(JSON.stringify(later.content)).toContain('after the sign-in');
    expect(browser.urls).toHaveLength(2);
    expect((await stats()).authorizeRequests).toBe(2);
    await h.close();
  });
});

describe("bridge: DPoP-bound tokens and the servers' nonces (RFC 9449 §8, §9)", () => {
  it('a refresh and a step-up (a new key) later in the bridge send the nonce each server gave: neither asks again', async () => {
    // The emulator's authorization server and protocol server share an origin and demand nonces of their own.
    await ref.emu.admin('protocol', 'configure', { dpopRequired: true, dpopNonce: true });
    const h = await host();
    await h.client.listTools();
    expect((await stats()).dpop.nonceChallenges).toEqual({ token: 1, resource: 1 });
    // The access token expires: the refresh presents the authorization server's nonce at once.
    h.clock.advance(301_000);
    await h.client.listTools();
    let s = await stats();
    expect(s.tokenRequests.refresh_token).toBe(1);
    expect(s.dpop.nonceChallenges).toEqual({ token: 1, resource: 1 });
    // tools/call needs tools:call: a new authorization with a new key; both nonces go on.
    const r = await h.client.callTool({ name: 'echo', arguments: { text: 'bound' } });
    expect(JSON.stringify(r.content)).toContain('bound');
    s = await stats();
    expect(s.authorizeRequests).toBe(2);
    expect(s.dpop.nonceChallenges).toEqual({ token: 1, resource: 1 });
    await h.close();
  });
});
