/**
 * Trust beyond Node's defaults (src/core/http/trust.ts): one secure context
 * per process for the added CA bundles, shared by every https connection —
 * not a `ca` list of every root parsed again for each connection (20-30 ms of
 * CPU each). And a connection opened ahead of the client (preconnected), which
 * the transport takes only under the trust it was verified under. Real TLS against a local
 * server whose certificate a private CA made by the test signed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { syncBuiltinESMExports } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls, { type TLSSocket } from 'node:tls';
import { buildSync } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { secureContextFor } from '../../../../src/core/http/trust.js';
import { NodeHttpTransport, type Preconnected } from '../../../../src/core/http/transport.js';
import { privateCa } from '../../../e2e/private-ca.js';

let dir: string;
let caPem: string;
let server: Server;
let url: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-trust-unit-'));
  const ca = privateCa(dir);
  caPem = readFileSync(ca.caFile, 'utf8');
  const leaf = ca.issue('server', ['lanyard-trust.test']);
  server = createServer({ cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) }, (_req, res) => res.end('{"ok":true}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${port()}/x`;
}, 60_000);
afterAll(async () => {
  server?.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

const port = () => (server.address() as AddressInfo).port;

const timeouts = { connectMs: 10_000, headersMs: 10_000, bodyMs: 10_000, totalMs: 20_000 };

/** GET url through a fresh transport (its own agent: a new TLS connection each time). */
async function get(transport: NodeHttpTransport): Promise<string> {
  try {
    const res = await transport.send({ method: 'GET', url: new URL(url), headers: {}, body: undefined }, { method: 'GET', url }, timeouts);
    return await res.text();
  } finally {
    await transport.close();
  }
}

/** Counts tls.createSecureContext calls (the ES module namespace follows the patched built-in). */
function countContexts(): { calls: () => number } {
  const spy = vi.spyOn(tls, 'createSecureContext');
  syncBuiltinESMExports();
  return { calls: () => spy.mock.calls.length };
}

describe('the secure context of added CA bundles', () => {
  it('is none for no added trust: Node builds its default per connection', async () => {
    await expect(secureContextFor({})).resolves.toBeUndefined();
    await expect(secureContextFor({ extraCa: [] })).resolves.toBeUndefined();
  });

  it('is built once per process for the same settings, and again only when they change', async () => {
    const a = await secureContextFor({ extraCa: [caPem] });
    expect(await secureContextFor({ extraCa: [caPem] })).toBe(a);
    const b = await secureContextFor({ extraCa: [caPem, caPem] });
    expect(b).not.toBe(a);
  });

  it('trusts the added CA: connections of several transports verify with the one context, which is built once', async () => {
    const trust = { extraCa: [`${caPem}\n`] }; // settings no earlier test used: the context is built here
    const contexts = countContexts();
    for (let i = 0; i < 3; i++) expect(await get(new NodeHttpTransport(2, { trust }))).toBe('{"ok":true}');
    // Every connection passes the shared context; building it took one call (with Node's defaults, no `ca` list).
    expect(contexts.calls()).toBe(1);
  });

  it("keeps Node's default trust: with LANYARD_CA_FILE, a CA in NODE_EXTRA_CA_CERTS still verifies", () => {
    // NODE_EXTRA_CA_CERTS is read when Node starts (and Node 20 leaves it out of a context added to, so the
    // CLI's network settings add it): a child process with both set, running those two modules bundled.
    mkdirSync(join(dir, 'other'));
    const other = privateCa(join(dir, 'other'));
    const leaf = other.issue('other', ['lanyard-other.test']);
    const bundle = join(dir, 'trust.cjs');
    const src = join(import.meta.dirname, '../../../../src');
    buildSync({
      stdin: { contents: `export { networkOptions } from './cli/ports/network.ts'; export { secureContextFor } from './core/http/trust.ts';`, resolveDir: src },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'silent',
    });
    const script = `
      const https = require('node:https'), fs = require('node:fs');
      const server = https.createServer({ cert: fs.readFileSync(${JSON.stringify(leaf.cert)}), key: fs.readFileSync(${JSON.stringify(leaf.key)}) }, (q, s) => s.end('other'));
      server.listen(0, '127.0.0.1', async () => {
        const { networkOptions, secureContextFor } = require(${JSON.stringify(bundle)});
        const { trust } = await networkOptions(process.env, {}, () => {}, { remember() {} });
        const secureContext = await secureContextFor(trust);
        https.get({ host: '127.0.0.1', port: server.address().port, secureContext, agent: false }, (res) => { res.pipe(process.stdout); res.on('end', () => server.close()); })
          .on('error', (e) => { console.log(e.code); server.close(); });
      });`;
    const r = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: other.caFile, LANYARD_CA_FILE: join(dir, 'ca.pem') },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.stdout).toBe('other');
  }, 60_000);

  it('without the added CA the server is refused (the test can fail)', async () => {
    await expect(get(new NodeHttpTransport(2, {}))).rejects.toMatchObject({ cause: { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' } });
  });
});

/** A connection the test trusts (its CA), and the takes asked of it. */
function opened(): Preconnected & { asked: [string, number, string][]; socket: TLSSocket } {
  const socket = tls.connect({ host: '127.0.0.1', port: port(), ca: caPem });
  const asked: [string, number, string][] = [];
  let taken = false;
  return {
    socket,
    asked,
    take(host, p, servername) {
      asked.push([host, p, servername]);
      if (taken || host !== '127.0.0.1' || p !== port() || servername !== '') return undefined;
      taken = true;
      return socket;
    },
  };
}

/** GET url through `transport`, which stays open (its agent keeps the connection). */
async function send(transport: NodeHttpTransport): Promise<string> {
  const res = await transport.send({ method: 'GET', url: new URL(url), headers: {}, body: undefined }, { method: 'GET', url }, timeouts);
  return res.text();
}

// A connection opened before the client was made (bin/lanyard.js opens the API's while the CLI loads): the
// transport's https agent takes it for its first connection to that origin, asking with the host, port and server
// name it would connect with; anything else is the agent's own connection with the transport's trust. Node's
// default trust refuses this server, so a request that succeeds without added trust went over the test's connection.
describe('a preconnected https connection', () => {
  it("carries the origin's first request (asked with the agent's host, port and server name: none for an IP)", async () => {
    const pre = opened();
    const trace: string[] = [];
    const transport = new NodeHttpTransport(4, { preconnected: pre, trace: (l) => trace.push(l) });
    try {
      expect(await send(transport)).toBe('{"ok":true}');
      expect(pre.asked).toEqual([['127.0.0.1', port(), '']]);
      expect(trace).toContain(`* connection to 127.0.0.1:${port()}: the one opened ahead`);
      // The connection went back to the agent's pool: the next request reuses it, nothing more is asked.
      expect(await send(transport)).toBe('{"ok":true}');
      expect(pre.asked).toHaveLength(1);
    } finally {
      await transport.close();
    }
    expect(pre.socket.destroyed).toBe(true);
  });

  it("is not taken again: the agent's next connection is its own, with Node's default trust (which refuses this server)", async () => {
    const pre = opened();
    const transport = new NodeHttpTransport(4, { preconnected: pre });
    try {
      const first = transport.send({ method: 'GET', url: new URL(url), headers: {}, body: undefined }, { method: 'GET', url: url }, timeouts);
      const second = expect(
        transport.send({ method: 'GET', url: new URL(url), headers: {}, body: undefined }, { method: 'GET', url: url }, timeouts),
      ).rejects.toThrow(/unknown issuer/);
      expect(await (await first).text()).toBe('{"ok":true}');
      await second;
      expect(pre.asked).toHaveLength(2);
    } finally {
      await transport.close();
    }
  });

  it('is taken under the trust it was verified under (the same bundles), whose secure context it brings', async () => {
    const context = tls.createSecureContext();
    const pre = Object.assign(opened(), { trust: { extraCa: [caPem] }, secureContext: context });
    const transport = new NodeHttpTransport(4, { preconnected: pre, trust: { extraCa: [caPem] } });
    try {
      expect(await send(transport)).toBe('{"ok":true}');
      expect(pre.asked).toEqual([['127.0.0.1', port(), '']]);
      expect(await secureContextFor({ extraCa: [caPem] })).toBe(context);
    } finally {
      await transport.close();
    }
  });

  it('is never asked for under other trust: none where it had some, or other bundles (a byte differs)', async () => {
    const cases = [
      { pre: { trust: { extraCa: [caPem] } }, trust: undefined },
      { pre: { trust: { extraCa: [caPem] } }, trust: { extraCa: [`${caPem}\n`] } },
      { pre: { trust: { extraCa: [caPem] } }, trust: { extraCa: [caPem], systemCa: true } },
    ];
    for (const c of cases) {
      const pre = Object.assign(opened(), c.pre);
      const transport = new NodeHttpTransport(4, { preconnected: pre, ...(c.trust ? { trust: c.trust } : {}) });
      try {
        // Its own connection: Node's default trust refuses the server, the added one (either spelling) accepts it.
        if (c.trust) expect(await send(transport)).toBe('{"ok":true}');
        else await expect(send(transport)).rejects.toThrow(/unknown issuer/);
        expect(pre.asked, JSON.stringify(c.trust)).toEqual([]);
      } finally {
        await transport.close();
        pre.socket.destroy();
      }
    }
  });

  it('is never asked for when the transport has trust settings of its own (every connection gets their secure context)', async () => {
    const pre = opened();
    const transport = new NodeHttpTransport(4, { preconnected: pre, trust: { extraCa: [caPem] } });
    try {
      // The transport's own connection, trusting the CA through its secure context.
      expect(await send(transport)).toBe('{"ok":true}');
      expect(pre.asked).toEqual([]);
    } finally {
      await transport.close();
      pre.socket.destroy();
    }
  });
});
