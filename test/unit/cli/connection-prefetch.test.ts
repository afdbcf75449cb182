/**
 * Which `lanyard api` command lines get their TLS connection opened before
 * the CLI loads (bin/lanyard.js, dist/connection-prefetch.cjs): those whose
 * first request goes to the selected profile's hosting API over https,
 * directly, with Node's default trust or a CA bundle added to it (read as the
 * CLI reads it), the CLI's own way of choosing the profile and the proxy.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiOrigin, apiWords, PREFETCH_MAX_AGE_MS, prefetchConnection, prefetchTrust } from '../../../src/cli/connection-prefetch.js';
import { networkOptions } from '../../../src/cli/ports/network.js';
import { trustKey } from '../../../src/core/http/trust-context.js';
import { buildProgram } from '../../../src/cli/program.js';
import { createContext } from '../../../src/cli/context.js';
import { createTestIO } from '../../fakes/io.js';
import { privateCa } from '../../e2e/private-ca.js';

const dir = mkdtempSync(join(tmpdir(), 'lanyard-connection-prefetch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, 'config.json'),
  JSON.stringify({
    activeProfile: 'cloud',
    profiles: {
      cloud: { 'hosting.apiUrl': 'https://api.example.com' },
      ghe: { 'hosting.apiUrl': 'https://[::1]:8443/api/v3' },
      emulator: { 'hosting.apiUrl': 'http://127.0.0.1:3000/api/v3' },
      proxied: { 'hosting.apiUrl': 'https://api.example.com', 'network.proxy': 'http://proxy.example:3128' },
      direct: { 'hosting.apiUrl': 'https://api.example.com', 'network.proxy': 'http://proxy.example:3128', 'network.noProxy': '.example.com' },
      ca: { 'hosting.apiUrl': 'https://api.example.com', 'network.caFile': '/etc/ca.pem' },
    },
  }),
);
const env = { LANYARD_CONFIG_DIR: dir };
const origin = (line: string, extra: NodeJS.ProcessEnv = {}) => apiOrigin(line.split(' ').filter(Boolean), { ...env, ...extra }, dir)?.origin;

describe('apiOrigin', () => {
  it("is the selected profile's hosting API: --profile (every spelling), LANYARD_PROFILE, else the active profile", () => {
    expect(origin('api /user')).toBe('https://api.example.com');
    expect(origin('--profile ghe api /user')).toBe('https://[::1]:8443');
    expect(origin('-p ghe api /user')).toBe('https://[::1]:8443');
    expect(origin('-pghe api /user')).toBe('https://[::1]:8443');
    expect(origin('--profile=ghe api /user')).toBe('https://[::1]:8443');
    expect(origin('api /user --profile ghe')).toBe('https://[::1]:8443');
    expect(origin('api /user', { LANYARD_PROFILE: 'ghe' })).toBe('https://[::1]:8443');
    expect(origin('api -X POST -f name=x -F private=true -H "a: b" --paginate /user/repos')).toBe('https://api.example.com');
    expect(origin('api --jq .login -t x --service hosting /user')).toBe('https://api.example.com');
  });

  it('is none where the CLI would connect otherwise or not at once', () => {
    for (const [line, extra] of [
      ['--profile emulator api /user', {}], // plain http
      ['--profile nope api /user', {}], // no such profile: the CLI says so
      ['--profile proxied api /user', {}],
      ['api /user', { HTTPS_PROXY: 'http://proxy.example:3128' }],
      ['api /user', { LANYARD_SYSTEM_CA: '1' }],
      ['api --service echo /echo', {}],
      ['api --service=mailbox /label/0', {}],
      ['api https://api.example.com/user', {}],
      ['api /user --help', {}],
      ['api -h', {}],
    ] as const) {
      expect(origin(line, extra), line).toBeUndefined();
    }
    expect(origin('--profile direct api /user')).toBe('https://api.example.com');
    // A CA bundle added to the default trust: the connection is made under it (prefetchTrust, below).
    expect(origin('--profile ca api /user')).toBe('https://api.example.com');
    expect(origin('api /user', { LANYARD_CA_FILE: '/etc/ca.pem' })).toBe('https://api.example.com');
    expect(origin('api /user', { HTTPS_PROXY: 'http://proxy.example:3128', NO_PROXY: 'api.example.com' })).toBe('https://api.example.com');
  });

  it('skips the value of every option of `api` and the root that takes one (as commander declares them)', () => {
    const ctx = createContext({ io: createTestIO(), env: {}, signal: new AbortController().signal, version: '0', globals: () => ({}) });
    const program = buildProgram(ctx, { group: 'api' });
    const api = program.commands.find((c) => c.name() === 'api')!;
    const valued = [...program.options, ...api.options].filter((o) => o.required || o.optional);
    expect(valued.length).toBeGreaterThan(10);
    for (const o of valued)
      for (const flag of [o.short, o.long].filter((f): f is string => !!f)) {
        // A value that looks like a URL is the option's, not the target.
        expect(apiWords(['api', flag, 'https://elsewhere.example/x', '/user']).url, flag).toBe(false);
      }
  });
});

describe('prefetchTrust', () => {
  it("is the CLI's own trust to the byte (src/cli/ports/network.ts): the variable's bundle, else the profile's", async () => {
    for (const sub of ['pki-trust', 'pki-other']) mkdirSync(join(dir, sub));
    const pki = privateCa(join(dir, 'pki-trust'));
    const other = privateCa(join(dir, 'pki-other'));
    // A bundle with a corrupt block and text around the certificates: both readings keep the same certificates.
    const bundle = join(dir, 'bundle.pem');
    writeFileSync(
      bundle,
      `junk\n${readFileSync(pki.caFile, 'utf8')}\n-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n${readFileSync(other.caFile, 'utf8')}`,
    );
    const secrets = { remember() {} } as unknown as Parameters<typeof networkOptions>[3];
    for (const [e, settings] of [
      [{ LANYARD_CA_FILE: bundle }, {}],
      [{}, { 'network.caFile': bundle }],
      [{ LANYARD_CA_FILE: pki.caFile }, { 'network.caFile': bundle }],
    ] as const) {
      const cli = (await networkOptions(e, settings, () => {}, secrets)).trust;
      expect(cli?.extraCa?.[0]).toContain('BEGIN CERTIFICATE');
      expect(prefetchTrust(e, settings)?.extraCa).toEqual(cli?.extraCa);
      // The key the transport compares before it takes the connection (core/http/transport.ts).
      expect(trustKey(prefetchTrust(e, settings) ?? undefined)).toBe(trustKey(cli));
    }
    // Both certificates, the corrupt block left out, as the CLI does.
    expect((prefetchTrust({ LANYARD_CA_FILE: bundle }, {})?.extraCa?.[0] ?? '').match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
    expect(prefetchTrust({}, {})).toBeUndefined();
  });

  it('is null (no early connection: the CLI reads and reports) for a bundle that is missing, no regular file, or holds no certificate', () => {
    writeFileSync(join(dir, 'empty.pem'), 'nothing here');
    for (const file of [join(dir, 'missing.pem'), dir, '/dev/null', join(dir, 'empty.pem')])
      expect(prefetchTrust({ LANYARD_CA_FILE: file }, {}), file).toBeNull();
  });
});

describe('prefetchConnection', () => {
  it('opens nothing for other groups, with LANYARD_CONNECT_PREFETCH=0, or without an origin', () => {
    expect(prefetchConnection('ratelimit', ['ratelimit', 'status'], env, dir)).toBeUndefined();
    expect(prefetchConnection('api', ['api', '/user'], { ...env, LANYARD_CONNECT_PREFETCH: '0' }, dir)).toBeUndefined();
    expect(prefetchConnection('api', ['--profile', 'emulator', 'api', '/user'], env, dir)).toBeUndefined();
    expect(prefetchConnection('api', ['api', '/user'], { LANYARD_CONFIG_DIR: join(dir, 'missing') }, dir)).toBeUndefined();
  });
});

describe('the early connection, taken', () => {
  let server: tls.Server;
  let port: number;
  let ca: string;
  const serverSockets: tls.TLSSocket[] = [];
  const connect = tls.connect;
  beforeAll(async () => {
    const pki = privateCa(dir);
    const leaf = pki.issue('server', ['localhost']);
    ca = readFileSync(pki.caFile, 'utf8');
    server = tls.createServer({ cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) }, (s) => serverSockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    // Node's default trust does not know the test's CA: the prefetch's handshake is told of it (a spy on node:tls, which open() uses).
    vi.spyOn(tls, 'connect').mockImplementation(((o: tls.ConnectionOptions) => connect({ ...o, ca })) as typeof tls.connect);
  }, 60_000);
  afterAll(() => {
    vi.restoreAllMocks();
    for (const s of serverSockets) s.destroy();
    server?.close();
  });

  /** A prefetch to the test's server on `clock`, its handshake finished (the server has its end of it). */
  async function secured(clock: () => number) {
    const seen = serverSockets.length;
    const local = { ...env, LANYARD_CONFIG_DIR: join(dir, 'local') };
    mkdirSync(local.LANYARD_CONFIG_DIR, { recursive: true });
    writeFileSync(
      join(local.LANYARD_CONFIG_DIR, 'config.json'),
      JSON.stringify({ activeProfile: 'l', profiles: { l: { 'hosting.apiUrl': `https://127.0.0.1:${port}` } } }),
    );
    const p = prefetchConnection('api', ['api', '/user'], local, dir, clock)!;
    expect(p).toBeDefined();
    p.handshake();
    await vi.waitFor(() => expect(serverSockets.length).toBe(seen + 1), { timeout: 10_000 });
    await new Promise(setImmediate);
    return { p, server: serverSockets[seen]! };
  }

  it(`is handed over up to ${PREFETCH_MAX_AGE_MS} ms after its handshake, refused (and closed) after that`, async () => {
    let t = 1_000_000;
    const fresh = await secured(() => t);
    t += PREFETCH_MAX_AGE_MS;
    const socket = fresh.p.take('127.0.0.1', port, '');
    expect(socket?.encrypted).toBe(true);
    socket!.destroy();

    const old = await secured(() => t);
    t += PREFETCH_MAX_AGE_MS + 1;
    expect(old.p.take('127.0.0.1', port, '')).toBeUndefined();
    // Closed, not left for the agent or the command's end.
    await new Promise((r) => (old.server.closed ? r(undefined) : old.server.once('close', r)));
  });

  it('on the live clock too (the default): refused after a real wait past the limit', async () => {
    const { p, server: end } = await secured(Date.now);
    await new Promise((r) => setTimeout(r, PREFETCH_MAX_AGE_MS + 150));
    expect(p.take('127.0.0.1', port, '')).toBeUndefined();
    await new Promise((r) => (end.closed ? r(undefined) : end.once('close', r)));
  });

  it('is refused once the server has closed it', async () => {
    const t = 1_000_000;
    const { p, server: end } = await secured(() => t);
    end.end();
    await new Promise((r) => end.once('close', r));
    await vi.waitFor(() => expect(p.take('127.0.0.1', port, '')).toBeUndefined(), { timeout: 5_000 });
  });
});
