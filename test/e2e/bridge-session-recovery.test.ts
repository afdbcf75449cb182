/**
 * A bridge that lives a host's whole day meets a server that forgets its
 * session again and again (restarts, session TTL), with an agent's calls in
 * flight: the protocol SDK's stdio client spawns the built CLI's bridge to
 * the emulator, which forgets the session three times (loseNextSession) while
 * twenty calls run at once; every call is answered, one initialize per loss.
 * And a session stream a proxy cuts while the server sends on it: the bridge
 * resumes it with Last-Event-ID and the host still hears what was sent.
 */
import { describe, expect, it } from 'vitest';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { World } from './harness.js';
import { hostBridge } from './bridge-helpers.js';
import { configure, newClient, stats, useProtocolWorld } from './protocol-helpers.js';

let w: World;
let mcp: string;
const NOTES = 'emulator://notes/today';
const README = 'emulator://docs/readme';

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

/** A bridge to the open server whose host subscribed to `uris` and heard a first update (the session's GET stream is held); the URIs of the updates heard. */
async function subscribedHost(...uris: string[]) {
  await configure(w, { open: true });
  const c = await newClient('allow');
  const b = await hostBridge(mcp, { env: c.env() });
  const updates: string[] = [];
  b.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  for (const uri of uris) await b.client.subscribeResource({ uri });
  // The bridge opens the session's GET stream after initialize; wait until the server holds it.
  await expect.poll(() => w.admin('protocol/update-resource', { text: 'before' }).then(() => updates.length), { timeout: 10_000 }).toBeGreaterThan(0);
  return { b, updates };
}

describe('protocol bridge: a session lost many times', () => {
  it('three losses with twenty concurrent tool calls each: every call answered, one initialize per loss, no request without the session', async () => {
    await configure(w, { open: true });
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env() });
    expect((await b.client.callTool({ name: 'echo', arguments: { text: 'first' } })).isError).toBe(false);
    for (const round of [1, 2, 3]) {
      await configure(w, { loseNextSession: true });
      const calls = await Promise.allSettled(
        Array.from({ length: 20 }, (_, n) => b.client.callTool({ name: 'echo', arguments: { text: `round ${round} call ${n}` } })),
      );
      const failed = calls.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(failed, `round ${round}`).toEqual([]);
      calls.forEach((r, n) => expect(JSON.stringify((r as PromiseFulfilledResult<{ content: unknown }>).value.content)).toContain(`round ${round} call ${n}`));
    }
    // Later calls go on in the last session.
    expect(JSON.stringify((await b.client.callTool({ name: 'echo', arguments: { text: 'after' } })).content)).toContain('after');
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    // (The bridge's first question, server/discover, is refused by a server of the handshake revisions.)
    const posts = (await stats(w)).mcpRequests.filter((m) => !['GET', 'DELETE', 'server/discover'].includes(m.method));
    expect(posts.filter((m) => m.method === 'initialize')).toHaveLength(4);
    // Each loss: 404s for the calls sent before it was noticed, never a 400 for a call sent without the session id.
    expect(posts.filter((m) => m.status === 400)).toEqual([]);
    expect(posts.filter((m) => m.status === 404).length).toBeGreaterThanOrEqual(3);
    expect(b.stderr().match(/no longer knows the session; starting a new one/g)).toHaveLength(3);
  });

  it("a resource the host subscribed to: after the session is lost and started again, the server's update still reaches the host", async () => {
    const { b, updates } = await subscribedHost(NOTES);
    await configure(w, { loseNextSession: true });
    expect((await b.client.callTool({ name: 'echo', arguments: { text: 'recover' } })).isError).toBe(false);
    const seen = updates.length;
    await expect.poll(() => w.admin('protocol/update-resource', { text: 'after' }).then(() => updates.length), { timeout: 10_000 }).toBeGreaterThan(seen);
    expect(updates.at(-1)).toBe(NOTES);
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    expect(b.stderr()).not.toMatch(/refused resources\/subscribe/);
  });

  it('the session stream cut (as a proxy would) while the server sends an update: the bridge resumes it and the host gets the update', async () => {
    const { b, updates } = await subscribedHost(NOTES, README);
    // The update comes while no connection carries the stream (the bridge waits a second before it reconnects).
    expect(await w.admin('protocol/cut-session-streams', {})).toEqual({ cut: 1 });
    await w.admin('protocol/update-resource', { uri: README, text: 'while cut' });
    await expect.poll(() => updates.includes(README), { timeout: 10_000 }).toBe(true);
    expect((await stats(w)).streamsResumed.length).toBeGreaterThanOrEqual(1);
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
  });
});
