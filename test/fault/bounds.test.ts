/**
 * Every wait has a bound and a way out (issue 42), against broken and hostile
 * peers: a forward proxy that never answers CONNECT, answers a byte a second
 * or echoes the credential; a Redis-protocol pacing server that answers with
 * the wrong type or keeps its connection after QUIT; special files named as a
 * CA file or a workload-token file; signals during each kind of wait; bad
 * input that must be one line naming the variable or option, exit 2. Each
 * case failed on the code before it (see the commit that added it).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { expectOrderly, hostileWorld, type HostileWorld } from './hostile.js';
import { fakePacingServer, floodingTlsProxy, hostileProxy, type Peer } from './peers.js';
import { privateCa } from '../e2e/private-ca.js';
import { runCli, type CliResult } from '../e2e/harness.js';

const TOKEN = 'ghp_b0undsTestT0kenAAAAAAAAAAAAAAAAAAAAAA';
const PASSWORD = 'pr0xy-S3cret-pass';

let world: HostileWorld;
/** A config directory whose profile names hosts only a proxy could reach (never loopback: loopback goes direct). */
let corpDir: string;
let scratch: string;
/**
 * The default connect bound (10 s) is waited out in the background while the
 * rest of the file runs (its own stalled proxy, so no other case counts its
 * connection); its test, the file's last, takes the result.
 */
let unboundedProxy: Peer;
let unbounded: Promise<CliResult & { ms: number }>;

beforeAll(async () => {
  world = await hostileWorld();
  world.server.handle((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"login":"mona"}');
  });
  scratch = await mkdtemp(join(tmpdir(), 'lanyard-bounds-'));
  corpDir = join(scratch, 'config');
  await mkdir(corpDir, { recursive: true });
  const profile = { 'hosting.webUrl': 'https://code.corp.test', 'hosting.apiUrl': 'https://api.corp.test/api/v3', 'hosting.clientId': 'lanyard-cli' };
  await writeFile(join(corpDir, 'config.json'), JSON.stringify({ activeProfile: 'corp', profiles: { corp: profile } }), { mode: 0o600 });
  unboundedProxy = await hostileProxy('silent');
  unbounded = timed(['api', '/user'], { HTTPS_PROXY: unboundedProxy.url });
  unbounded.catch(() => {}); // its failure is reported by its test
});
afterAll(async () => {
  await unbounded?.catch(() => {});
  await unboundedProxy?.close();
  await world?.close();
  await rm(scratch, { recursive: true, force: true });
});

/** `lanyard …` in the corp world, timed; `during` gets the child once spawned. */
async function timed(args: string[], env: Record<string, string>, o: { timeoutMs?: number; during?: (c: ChildProcess) => void } = {}) {
  const started = performance.now();
  const r = await runCli(args, {
    env: { LANYARD_CONFIG_DIR: corpDir, LANYARD_TOKEN: TOKEN, ...env },
    timeoutMs: o.timeoutMs ?? 30_000,
    onSpawn: o.during,
  });
  return { ...r, ms: performance.now() - started };
}

/** Sends `signal` once `peer` has seen a connection (the process is then waiting on it); resolves with when it was sent. */
function signalWhenWaiting(peer: Peer, signal: NodeJS.Signals, seenBefore = peer.connections) {
  let sentAt = 0;
  return {
    during: (child: ChildProcess) => {
      const t = setInterval(() => {
        if (peer.connections > seenBefore) {
          clearInterval(t);
          // The process is now inside the wait.
          setTimeout(() => {
            sentAt = performance.now();
            child.kill(signal);
          }, 300);
        }
      }, 50);
      child.on('close', () => clearInterval(t));
    },
    sentAt: () => sentAt,
  };
}

/** The run ended by itself within `ms` of `since`. */
function endedWithin(r: CliResult & { ms: number }, ms: number, since = 0): void {
  expect(r.signal, 'it had to be killed').toBeNull();
  expect(r.ms - since, `took ${Math.round(r.ms - since)} ms`).toBeLessThan(ms);
}

describe('a forward proxy that stalls', () => {
  let silent: Peer;
  let trickle: Peer;
  beforeAll(async () => {
    [silent, trickle] = await Promise.all([hostileProxy('silent'), hostileProxy('trickle')]);
  });
  afterAll(async () => {
    await Promise.all([silent?.close(), trickle?.close()]);
  });

  // The three bounds are waited out side by side (each its own process; the signal cases below count the
  // proxy's connections, so they run after them, one at a time), the fourth in the background (`unbounded`).
  it.concurrent('never answering CONNECT: `api` ends at LANYARD_TIMEOUT (2 s), exit 1, one line', async () => {
    const r = await timed(['api', '/user'], { HTTPS_PROXY: silent.url, LANYARD_TIMEOUT: '2s' });
    endedWithin(r, 9_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/within 2 s/);
    expect(expectOrderly(r)).toBeUndefined();
  });

  it.concurrent('answering a byte a second: `--timeout 2s` ends it', async () => {
    const r = await timed(['api', '/user', '--timeout', '2s'], { HTTPS_PROXY: trickle.url });
    endedWithin(r, 9_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/within 2 s/);
  });

  it.concurrent('`doctor --check-timeout 2s` through it exits after its report', async () => {
    const r = await timed(['doctor', '--check-timeout', '2s'], { HTTPS_PROXY: silent.url });
    endedWithin(r, 15_000);
    expect([0, 1]).toContain(r.code);
    expect(r.stdout + r.stderr).toMatch(/2 s/);
  });

  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} during a stalled CONNECT: exit ${code} within a second`, async () => {
      const s = signalWhenWaiting(silent, signal, silent.connections);
      const r = await timed(['api', '/user'], { HTTPS_PROXY: silent.url }, { during: s.during });
      expect(r.signal, 'it had to be killed').toBeNull();
      expect(r.code, r.stderr).toBe(code);
      expect(s.sentAt()).toBeGreaterThan(0);
      expect(r.ms - s.sentAt()).toBeLessThan(1_000 + 500);
    });
  }
});

describe('a forward proxy over TLS whose answer to CONNECT never ends', () => {
  it('`api` through an https:// proxy (trusted through LANYARD_CA_FILE) stops reading at 16 KiB: exit 1, one line naming the proxy, in seconds', async () => {
    const ca = privateCa(scratch);
    const leaf = ca.issue('proxy', ['proxy.corp.test']);
    const proxy = await floodingTlsProxy({ cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) });
    try {
      const r = await timed(['api', '/user'], { HTTPS_PROXY: proxy.url, LANYARD_CA_FILE: ca.caFile });
      endedWithin(r, 8_000);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`the proxy https://127\\.0\\.0\\.1:${proxy.port} answered CONNECT with more than 16 KiB of headers`));
      expect(expectOrderly(r)).toBeUndefined();
      expect(proxy.sent()).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await proxy.close();
    }
  });
});

describe('a proxy credential in every encoding', () => {
  let echo: Peer;
  beforeAll(async () => {
    echo = await hostileProxy('echo-403');
  });
  afterAll(() => echo?.close());

  it('a 403 whose reason phrase echoes Proxy-Authorization shows neither the password nor its Basic form', async () => {
    const basic = Buffer.from(`alice:${PASSWORD}`).toString('base64');
    const r = await timed(['api', '/user'], { HTTPS_PROXY: `http://alice:${encodeURIComponent(PASSWORD)}@127.0.0.1:${echo.port}` });
    expect(r.code, r.stderr).toBe(1);
    expect(echo.received.join('')).toContain(basic); // the proxy did see it
    expect(r.stderr).toMatch(/403 Forbidden/);
    expect(r.stderr).not.toContain(basic);
    expect(r.stderr).not.toContain(basic.replace(/=+$/, ''));
    expect(r.stderr).not.toContain(PASSWORD);
  });

  it('--debug shows neither', async () => {
    const basic = Buffer.from(`alice:${PASSWORD}`).toString('base64');
    const r = await timed(['--debug', 'api', '/user'], { HTTPS_PROXY: `http://alice:${PASSWORD}@127.0.0.1:${echo.port}` });
    expect(r.stderr).not.toContain(basic.replace(/=+$/, ''));
    expect(r.stderr).not.toContain(PASSWORD);
  });
});

describe('a Redis-protocol pacing server that misbehaves', () => {
  let strings: Peer;
  let sticky: Peer;
  beforeAll(async () => {
    [strings, sticky] = await Promise.all([fakePacingServer('string-replies'), fakePacingServer('quit-keeps-open')]);
  });
  afterAll(async () => {
    await Promise.all([strings?.close(), sticky?.close()]);
  });

  it('answering its scripts with a string: one warning, pacing falls back, the request is sent (a handful of commands, not thousands)', async () => {
    const before = world.server.seen.length;
    const r = await world.run(['api', '/user', '-X', 'POST', '-f', 'a=b'], {
      env: { LANYARD_TOKEN: TOKEN, LANYARD_PACING_URL: strings.url },
      timeoutMs: 20_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(world.server.seen.length).toBe(before + 1);
    const warnings = r.stderr.split('\n').filter((l) => /shared pacing/.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/a string where a wait in ms was expected/);
    expect(strings.received.filter((c) => c.startsWith('EVAL')).length).toBeLessThan(10);
  });

  it('answering QUIT and keeping the connection: the process exits after its output', async () => {
    const started = performance.now();
    const r = await world.run(['api', '/user', '-X', 'POST', '-f', 'a=b'], {
      env: { LANYARD_TOKEN: TOKEN, LANYARD_PACING_URL: sticky.url },
      timeoutMs: 15_000,
    });
    expect(r.signal, 'it had to be killed').toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(sticky.received).toContain('QUIT');
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('bad input: one line naming the variable, exit 2, nothing sent', () => {
  it('a `%ZZ` escape in the password of HTTPS_PROXY', async () => {
    const proxy = await hostileProxy('silent');
    try {
      const r = await timed(['api', '/user'], { HTTPS_PROXY: `http://alice:p%ZZss@127.0.0.1:${proxy.port}` }, { timeoutMs: 10_000 });
      expect(r.signal).toBeNull();
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^HTTPS_PROXY: .*percent-escape/);
      expect(r.stderr).not.toMatch(/URI malformed|unexpected error/);
      expect(proxy.connections).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('a `%ZZ` escape in LANYARD_PACING_URL', async () => {
    const before = world.server.seen.length;
    const r = await world.run(['api', '/user'], { env: { LANYARD_TOKEN: TOKEN, LANYARD_PACING_URL: 'redis://:p%ZZss@127.0.0.1:1' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^LANYARD_PACING_URL: .*percent-escape/);
    expect(r.stderr).not.toMatch(/URI malformed|unexpected error/);
    expect(world.server.seen.length).toBe(before);
  });
});

/** Sends `signal` once the child has `path` open (it then waits on it: a FIFO with no writer). */
function signalWhenOpen(path: string, signal: NodeJS.Signals) {
  let sentAt = 0;
  return {
    during: (child: ChildProcess) => {
      const t = setInterval(() => {
        let open = false;
        try {
          open = readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
            try {
              return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === path;
            } catch {
              return false;
            }
          });
        } catch {
          /* not started yet, or gone */
        }
        if (open) {
          clearInterval(t);
          setTimeout(() => {
            sentAt = performance.now();
            child.kill(signal);
          }, 200);
        }
      }, 50);
      child.on('close', () => clearInterval(t));
    },
    sentAt: () => sentAt,
  };
}

describe('files the user names: special files and sizes', () => {
  const login = (file: string) => ['auth', 'login', '--server', `${world.server.url}/mcp`, '--client-id', 'workload-client', '--workload-token-file', file];

  it('--workload-token-file /dev/zero is refused at once, naming the option (not 600 MB and a RangeError)', async () => {
    const r = await timed(login('/dev/zero'), {}, { timeoutMs: 15_000 });
    endedWithin(r, 8_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe('--workload-token-file: /dev/zero is a device, not a file');
  });

  it('--workload-token-file naming a directory: exit 2, one line', async () => {
    const r = await timed(login(scratch), {});
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(`--workload-token-file: ${scratch} is a directory, not a file`);
  });

  it('--workload-token-file larger than its cap (64 KiB): exit 2, one line', async () => {
    const big = join(scratch, 'big.jwt');
    await writeFile(big, `${'a'.repeat(40_000)}.${'b'.repeat(40_000)}.c`);
    const r = await timed(login(big), {});
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toMatch(/^--workload-token-file: .*big\.jwt is larger than 64 KiB/);
  });

  it('`api --field k=@/dev/zero`: exit 2 naming the field, nothing sent', async () => {
    const before = world.server.seen.length;
    const r = await world.run(['api', '/user', '-X', 'POST', '-F', 'k=@/dev/zero'], { env: { LANYARD_TOKEN: TOKEN }, timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe('--field k: /dev/zero is a device, not a file');
    expect(world.server.seen.length).toBe(before);
  });

  it('LANYARD_CA_FILE=/dev/zero: exit 2 naming the variable', async () => {
    const r = await timed(['api', '/user'], { LANYARD_CA_FILE: '/dev/zero' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe('LANYARD_CA_FILE: /dev/zero is a device, not a file');
  });

  it('a CA file whose only certificate block is corrupt: exit 2 naming the file, no hint to set what is set', async () => {
    const bad = join(scratch, 'corrupt.pem');
    await writeFile(bad, '-----BEGIN CERTIFICATE-----\nMIIBbroken+notDER==\n-----END CERTIFICATE-----\n');
    const r = await timed(['api', '/user'], { LANYARD_CA_FILE: bad, HTTPS_PROXY: 'http://127.0.0.1:9' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`LANYARD_CA_FILE: ${bad} holds no usable certificate`);
    expect(r.stderr).not.toMatch(/add your CA|LANYARD_CA_FILE=/);
  });

  for (const [what, signal, code] of [
    ['--workload-token-file', 'SIGTERM', 143],
    ['--workload-token-file', 'SIGINT', 130],
    ['LANYARD_CA_FILE', 'SIGTERM', 143],
    ['LANYARD_CA_FILE', 'SIGINT', 130],
  ] as const) {
    it(`${signal} while reading ${what} from a FIFO with no writer: exit ${code} within a second, config untouched`, async () => {
      const fifo = join(scratch, `fifo-${what.replace(/\W/g, '')}-${signal}`);
      execFileSync('mkfifo', [fifo]);
      const s = signalWhenOpen(fifo, signal);
      const args = what === 'LANYARD_CA_FILE' ? ['api', '/user'] : login(fifo);
      const env: Record<string, string> = what === 'LANYARD_CA_FILE' ? { LANYARD_CA_FILE: fifo } : {};
      const before = await import('node:fs/promises').then((fs) => fs.readFile(join(corpDir, 'config.json'), 'utf8'));
      const r = await timed(args, env, { during: s.during, timeoutMs: 20_000 });
      expect(r.signal, 'it had to be killed').toBeNull();
      expect(s.sentAt(), 'it never opened the FIFO').toBeGreaterThan(0);
      expect(r.code, r.stderr).toBe(code);
      expect(r.ms - s.sentAt()).toBeLessThan(1_500);
      const after = await import('node:fs/promises').then((fs) => fs.readFile(join(corpDir, 'config.json'), 'utf8'));
      expect(after).toBe(before);
    });
  }
});

describe('bad input: one line naming the option, exit 2, a hint that applies', () => {
  it('`profile use --dir` naming a regular file', async () => {
    const file = join(scratch, 'a-file');
    await writeFile(file, 'x');
    const r = await timed(['profile', 'use', 'corp', '--dir', file], {});
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(`--dir ${JSON.stringify(file)}: not a directory`);
  });

  it('`emulator fault add --rate ""` (an unset shell variable) is refused before any request', async () => {
    const before = world.server.seen.length;
    const r = await timed(['emulator', 'fault', 'add', '--type', 'status', '--path', '/api', '--rate', '', '--url', world.server.url], {});
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toMatch(/^--rate .*got ""$/);
    expect(world.server.seen.length).toBe(before);
  });

  it("`--profile ''` is refused, not run with the default profile", async () => {
    const before = world.server.seen.length;
    const r = await world.run(['--profile', '', 'api', '/user'], { env: { LANYARD_TOKEN: TOKEN } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('--profile: the profile name is empty');
    expect(world.server.seen.length).toBe(before);
  });

  it('`config set network.proxy` with a password: refused with the proxy variables as the hint (not `auth login`)', async () => {
    const r = await timed(['config', 'set', 'network.proxy', `http://alice:${PASSWORD}@proxy.corp.test:3128`], {});
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^network\.proxy: /);
    expect(r.stderr).toMatch(/HTTPS_PROXY/);
    expect(r.stderr).not.toMatch(/auth login|auth token/);
    expect(r.stderr).not.toContain(PASSWORD);
  });
});

describe("the bridge's waits", () => {
  const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } })}\n`;

  it('SIGTERM while the bridge waits on a proxy that never answers CONNECT: it ends within a second', async () => {
    const silent = await hostileProxy('silent');
    try {
      const s = signalWhenWaiting(silent, 'SIGTERM');
      const r = await timed(
        ['protocol', 'bridge', 'https://mcp.corp.test/mcp'],
        { HTTPS_PROXY: silent.url },
        {
          timeoutMs: 20_000,
          during: (child) => {
            child.stdin?.write(initialize);
            s.during(child);
          },
        },
      );
      expect(r.signal, 'it had to be killed').toBeNull();
      expect(s.sentAt()).toBeGreaterThan(0);
      expect([0, 143]).toContain(r.code);
      expect(r.ms - s.sentAt()).toBeLessThan(1_500);
    } finally {
      await silent.close();
    }
  });

  it('SIGTERM while the bridge waits on a server that never answers: it ends within a second', async () => {
    world.server.handle(() => undefined); // accepts every request, answers none
    try {
      const before = world.server.seen.length;
      let sentAt = 0;
      const r = await world.run(['protocol', 'bridge', `${world.server.url}/mcp`], {
        timeoutMs: 20_000,
        onSpawn: (child) => {
          child.stdin?.write(initialize);
          const t = setInterval(() => {
            if (world.server.seen.length > before) {
              clearInterval(t);
              setTimeout(() => {
                sentAt = performance.now();
                child.kill('SIGTERM');
              }, 300);
            }
          }, 50);
          child.on('close', () => clearInterval(t));
        },
      });
      expect(r.signal, 'it had to be killed').toBeNull();
      expect(sentAt).toBeGreaterThan(0);
      expect([0, 143]).toContain(r.code);
      expect(performance.now() - sentAt).toBeLessThan(1_500);
    } finally {
      world.server.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"login":"mona"}');
      });
    }
  });
});

describe('a forward proxy that stalls, with no timeout given (run in the background since the file began)', () => {
  it('never answering CONNECT, no --timeout: the connect bound (10 s, CONNECT answer included) ends it, naming the proxy', async () => {
    const r = await unbounded;
    endedWithin(r, 20_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/the proxy http:\/\/127\.0\.0\.1:\d+ did not open a tunnel to api\.corp\.test(:443)? within 10 s/);
    expect(unboundedProxy.connections).toBe(1);
  }, 30_000);
});
