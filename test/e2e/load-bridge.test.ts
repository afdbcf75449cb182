/**
 * `lanyard protocol bridge` under an agent's load, driven by the protocol
 * SDK's own stdio client as a desktop host drives it: 1,000 tool calls in a
 * row through one bridge, four bridges doing the same at once, a server's 429
 * with Retry-After delaying that call alone. No pacing: the code host's
 * secondary limit is not the protocol server's (before, the 81st message of a
 * minute waited 25–60 s). The slowest call, the median against the same
 * calls made straight to the server, and the bridge's memory from before
 * its first call are asserted; the figures are printed for docs/benchmarks.md.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type HostedBridge, hostBridge } from './bridge-helpers.js';
import { type Client, newClient, tokensOf, useProtocolWorld } from './protocol-helpers.js';
import { refuseNext, type World } from './harness.js';

let w: World;
let mcp: string;
useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

const MiB = 1024 * 1024;

/** The bridge process's resident set, bytes (Linux). */
async function rssOf(b: HostedBridge): Promise<number> {
  const pid = (b.transport as unknown as { _process?: { pid?: number } })._process?.pid;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
}

interface Run {
  slowestMs: number;
  /** Which call was the slowest (0: the first, which compiles the relay's code). */
  slowestAt: number;
  medianMs: number;
  totalMs: number;
  rssStart: number;
  rssPeak: number;
  rssEnd: number;
}

/** `n` echo calls in a row through `b`, each answer checked; times per call and the bridge's memory along the way. */
async function calls(b: HostedBridge, n: number, tag: string): Promise<Run> {
  // From the first call: the sign-in, the session and V8 sizing its heaps are part of the run (issue #37).
  const rssStart = await rssOf(b);
  let rssPeak = rssStart;
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await b.client.callTool({ name: 'echo', arguments: { text: `${tag} call ${i}` } });
    times.push(performance.now() - t);
    expect(JSON.stringify(r.content)).toContain(`${tag} call ${i}`);
    if (i % 50 === 49) rssPeak = Math.max(rssPeak, await rssOf(b));
  }
  const totalMs = performance.now() - t0;
  const rssEnd = await rssOf(b);
  return { ...timesOf(times), totalMs, rssStart, rssPeak: Math.max(rssPeak, rssEnd), rssEnd };
}

function timesOf(times: number[]): { slowestMs: number; medianMs: number; slowestAt: number } {
  const sorted = [...times].sort((a, b) => a - b);
  return { slowestMs: sorted.at(-1)!, medianMs: sorted[Math.floor(sorted.length / 2)]!, slowestAt: times.indexOf(sorted.at(-1)!) };
}

/** The server's own time: the same calls straight to it over HTTP with the bridge's token (the SDK's HTTP client). */
async function direct(c: Client, n: number): Promise<{ slowestMs: number; medianMs: number }> {
  const token = (await tokensOf(c, mcp))?.accessToken as string;
  const client = new SdkClient({ name: 'direct-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await client.callTool({ name: 'echo', arguments: { text: `direct call ${i}` } });
    times.push(performance.now() - t);
    expect(JSON.stringify(r.content)).toContain(`direct call ${i}`);
  }
  await client.close();
  return timesOf(times);
}

const report = (what: string, r: Run) =>
  process.stderr.write(
    `${what}: ${r.totalMs.toFixed(0)} ms in all, median ${r.medianMs.toFixed(1)} ms, slowest ${r.slowestMs.toFixed(0)} ms (call ${r.slowestAt + 1}); ` +
      `bridge RSS ${(r.rssStart / MiB).toFixed(1)} → peak ${(r.rssPeak / MiB).toFixed(1)} MiB\n`,
  );

describe('the bridge under an agent’s load', () => {
  it('1,000 tool calls in a row through one bridge: no pacing wait, a few ms over the server’s own time, memory flat from the first call', async () => {
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env() });
    const r = await calls(b, 1000, 'one');
    report('1 bridge, 1,000 calls', r);
    const own = await direct(c, 300);
    process.stderr.write(`the same calls straight to the server: median ${own.medianMs.toFixed(1)} ms, slowest ${own.slowestMs.toFixed(0)} ms\n`);
    // A paced call waited 25–60 s; an unpaced one is a local round trip, and the bridge adds a hop of a few ms
    // (on an idle machine 0.3-0.5 ms; the bounds hold two test workers on two busy cores).
    expect(r.medianMs - own.medianMs).toBeLessThan(5);
    // The first call is the slowest (the relay's code compiled on a busy core: 0.4-0.5 s here), never a host's timeout.
    expect(r.slowestMs).toBeLessThan(5_000);
    // From before the first call (the sign-in included): 3-12 MiB on Node 20, 24 and 26 (docs/benchmarks.md).
    expect(r.rssPeak - r.rssStart).toBeLessThanOrEqual(20 * MiB);
    expect(b.stderr()).not.toMatch(/pacing|waiting/);
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
  }, 300_000);

  it('four bridges at once, 1,000 calls each: none waits, each one’s memory flat', async () => {
    const c = await newClient('allow');
    // One sign-in first: the four share its tokens (four sign-ins at once are the bridge tests' subject, not this one's).
    const first = await hostBridge(mcp, { env: c.env() });
    await first.client.ping();
    await first.close();
    const bridges = await Promise.all([0, 1, 2, 3].map(() => hostBridge(mcp, { env: c.env() })));
    const runs = await Promise.all(bridges.map((b, i) => calls(b, 1000, `b${i}`)));
    runs.forEach((r, i) => report(`4 bridges at once, bridge ${i}`, r));
    for (const r of runs) {
      // Four bridges compiling their first call, the emulator and the test on two cores: seconds, never a minute.
      expect(r.slowestMs).toBeLessThan(5_000);
      expect(r.rssPeak - r.rssStart).toBeLessThanOrEqual(20 * MiB);
    }
    for (const b of bridges) expect(b.stderr()).not.toMatch(/pacing|waiting/);
    expect(await Promise.all(bridges.map((b) => b.close()))).toEqual([0, 0, 0, 0]);
    for (const b of bridges) expect(b.errors).toEqual([]);
  }, 600_000);

  it("a server's 429 with Retry-After delays that call alone; the host gets the tool's answer, the wait is said on stderr", async () => {
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env() });
    await b.client.callTool({ name: 'echo', arguments: { text: 'signed in' } });
    await refuseNext(w, { status: 429, retryAfter: '2s', path: '/mcp', method: 'POST' });
    const t0 = performance.now();
    let slowDone = 0;
    const slow = b.client.callTool({ name: 'echo', arguments: { text: 'refused once' } }).then((r) => ((slowDone = performance.now() - t0), r));
    await new Promise((r) => setTimeout(r, 300));
    const others: number[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await b.client.callTool({ name: 'echo', arguments: { text: `meanwhile ${i}` } });
      expect(JSON.stringify(r.content)).toContain(`meanwhile ${i}`);
      others.push(performance.now() - t0);
    }
    expect(slowDone).toBe(0);
    expect(others.at(-1)!).toBeLessThan(1900);
    expect(JSON.stringify((await slow).content)).toContain('refused once');
    expect(slowDone).toBeGreaterThanOrEqual(1900);
    expect(b.stderr()).toMatch(/answered HTTP 429 with Retry-After; waiting 2 s \(as the server asks; at most 60 s without --wait, Ctrl-C to stop\)/);
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
  }, 120_000);

  it('a host starting the bridge again and again: its compiled code is reused, not rewritten each time (the memory flags are set before compiling)', async () => {
    const c = await newClient('allow');
    const cache = await mkdtemp(join(tmpdir(), 'lanyard-bridge-cache-'));
    const once = async () => {
      const b = await hostBridge(mcp, { env: c.env({ LANYARD_CACHE_DIR: cache }) });
      await b.client.callTool({ name: 'echo', arguments: { text: 'started' } });
      expect(await b.close()).toBe(0);
    };
    await once();
    const [build] = await readdir(join(cache, 'compile-cache'));
    const file = join(cache, 'compile-cache', build!, 'protocol.bridge.bin');
    const written = await readFile(file);
    await once();
    // Rewritten only when V8 rejected it: flags set after compiling made every start compile the bundle again.
    expect((await readFile(file)).equals(written), 'protocol.bridge.bin was rewritten').toBe(true);
  }, 120_000);
});
