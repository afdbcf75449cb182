/**
 * Packaging: `npm pack` ships only what users run (dist/ without the demo,
 * bin/, completions/, README, licence); the tarball installs globally into a
 * fresh prefix and runs; and installed into a fresh project, the library
 * loads with `import` and `require`, type-checks in a TypeScript consumer
 * (moduleResolution node16 and bundler), and signs in with the device flow and
 * reads the rate limit against the emulator through the package alone.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, startCliEmulator } from './harness.js';

const npmEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', env: npmEnv, stdio: ['ignore', 'pipe', 'pipe'] });
const run = promisify(execFile);
/** npm in the background (the two installs of the tarball run side by side). */
const npmAsync = (args: string[], cwd: string) => run('npm', args, { cwd, encoding: 'utf8', env: npmEnv, timeout: 170_000 });
/** A promise whose rejection is reported by the test that awaits it, not as an unhandled one meanwhile. */
const settled = <T>(p: Promise<T>): Promise<T> => {
  p.catch(() => {});
  return p;
};

describe('npm package', () => {
  const work = mkdtempSync(join(tmpdir(), 'lanyard-pack-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const version = JSON.parse(npm(['pkg', 'get', 'version'], ROOT)) as string;
  let tgz = '';
  let paths: string[] = [];
  const prefix = join(work, 'prefix');
  const project = join(work, 'consumer');
  /** The tarball installed globally into a fresh prefix, and into a fresh project: started at once, side by side. */
  let globalInstall: Promise<unknown>;
  let projectInstall: Promise<unknown>;

  beforeAll(() => {
    const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tgz = join(work, packed!.filename);
    paths = packed!.files.map((f) => f.path);
    globalInstall = settled(npmAsync(['install', '-g', '--prefix', prefix, '--prefer-offline', tgz], work));
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    for (const [name, text] of Object.entries(CONSUMER)) writeFileSync(join(project, name), text);
    projectInstall = settled(npmAsync(['install', '--prefer-offline', '--no-package-lock', tgz], project));
  }, 60_000);

  it('ships only dist/ (no demo), bin/, completions/, README and LICENSE', () => {
    for (const p of paths) expect(p).toMatch(/^(dist\/|bin\/|completions\/|README\.md$|LICENSE$|package\.json$)/);
    for (const p of ['bin/lanyard.js', 'bin/package.json', 'dist/cli.cjs', 'completions/lanyard.bash']) expect(paths).toContain(p);
    for (const p of ['dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/emulator.js', 'dist/lib/emulator.d.ts', 'dist/lib/emulator-server.js'])
      expect(paths).toContain(p);
    // The emulator ships once: the CLI's `emulator start` uses the library's.
    expect(paths.filter((p) => /emulator\.c?js$/.test(p) && !p.startsWith('dist/lib/'))).toEqual([]);
    expect(paths.filter((p) => /demo|\.test\.|^src\/|^test\/|^build\//.test(p))).toEqual([]);
    // Nor the single-file executables `npm run build:exe` leaves in dist/exe/ (450 MB).
    expect(paths.filter((p) => p.startsWith('dist/exe/'))).toEqual([]);
  });

  it('the library (lanyard-cli) is terminal-free: no console, process.exit, environment or standard streams, no chalk/ora/commander', () => {
    // Everything reachable from the entry point: esbuild bundled it into index.js and the chunks it imports.
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/from\s*"(\.\/[^"]+)"/g)) visit(join(file, '..', m[1]!));
    };
    visit(join(ROOT, 'dist', 'lib', 'index.js'));
    const found: string[] = [];
    for (const file of reached) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bconsole\.\w+|\bprocess\.(exit|env|stdout|stderr|stdin|argv)\b|["'](chalk|ora|commander)["']/g))
        found.push(`${file}: ${m[0]}`);
    }
    expect(reached.size).toBeGreaterThan(1);
    expect(found).toEqual([]);
  });

  it('installs globally into a fresh prefix and runs', async () => {
    await globalInstall;
    const bin = join(prefix, 'bin', 'lanyard');
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);
    expect(execFileSync(bin, ['ratelimit', '--help'], { encoding: 'utf8' })).toMatch(/status/);
  }, 180_000);

  it("the installed CLI runs the emulator (the library's, through require of an ES module) and talks to it, with no warning on stderr", async () => {
    await globalInstall;
    const bin = join(prefix, 'bin', 'lanyard');
    const extra = { LANYARD_CONFIG_DIR: join(work, 'installed-config') };
    const emulator = await startCliEmulator(['--port', '0', '-q'], extra, { bin });
    try {
      expect(emulator.first).toMatch(/^Emulator listening on http:\/\/127\.0\.0\.1:\d+$/);
      const { stdout } = await run(bin, ['--profile', 'emulator', 'ratelimit', 'status', '--json'], { env: cleanEnv(extra) });
      expect(JSON.parse(stdout).resources.core.limit).toBe(60);
    } finally {
      expect(await emulator.stop('SIGTERM')).toBe(0);
    }
    expect(emulator.stderr()).toMatch(
      /^Profile "emulator" points at http:\/\/127\.0\.0\.1:\d+ .*\nConsole: http:\/\/127\.0\.0\.1:\d+\/_emulator\/console .*\nShutting down the emulator\n$/,
    );
  }, 60_000);

  // Each of these runs in its own process against its own emulator: side by side.
  describe.concurrent('as a library in a fresh project', () => {
    const node = (file: string) => run(process.execPath, [join(project, file)], { cwd: project, env: cleanEnv(), timeout: 60_000 });

    beforeAll(async () => {
      await projectInstall;
    }, 180_000);

    it('an ES module signs in with the device flow and reads the rate limit against the emulator', async () => {
      const { stdout, stderr } = await node('esm.mjs');
      expect(stderr).toBe('');
      expect(JSON.parse(stdout)).toEqual({
        prompted: true,
        login: 'mona',
        scopes: ['repo'],
        core: { limit: 5000, remaining: 4999 },
        errorIsLanyardError: true,
      });
    }, 90_000);

    it('a CommonJS module requires both entry points (require of ES modules)', async () => {
      const { stdout, stderr } = await node('cjs.cjs');
      expect(stderr).toBe('');
      expect(JSON.parse(stdout)).toEqual({
        exports: expect.arrayContaining(['HttpClient', 'runDeviceFlow', 'defaultRateLimitPolicy', 'LanyardError']),
        limit: 5000,
      });
    }, 90_000);

    it.each(['node16', 'bundler'])('a TypeScript consumer type-checks with moduleResolution %s (and wrong uses fail)', async (resolution) => {
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      await expect(run(process.execPath, [tsc, '--noEmit', '-p', `tsconfig.${resolution}.json`], { cwd: project, timeout: 120_000 })).resolves.toBeDefined();
    }, 150_000);
  });
});

/**
 * tsconfig.<resolution>.json: a strict consumer; @types/node from this
 * repository. Declaration files are checked (no skipLibCheck: ours must
 * type-check), all but TypeScript's own lib.*.d.ts (skipDefaultLibCheck),
 * which are not ours to test: 28% less of each tsc's CPU.
 */
function tsconfig(moduleResolution: string, module: string): Record<string, string> {
  const compilerOptions = {
    module,
    moduleResolution,
    target: 'es2022',
    strict: true,
    skipDefaultLibCheck: true,
    noEmit: true,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
  };
  return { [`tsconfig.${moduleResolution}.json`]: JSON.stringify({ compilerOptions, files: ['consumer.ts'] }) };
}

/** The consumer project's files: what a user of the package writes. */
const CONSUMER: Record<string, string> = {
  'esm.mjs': `
import { fetchRateLimit, fetchUser, HttpClient, LanyardError, runDeviceFlow, systemClock } from 'lanyard-cli';
import { startEmulator } from 'lanyard-cli/emulator';

const emulator = await startEmulator();
const http = new HttpClient({ clock: systemClock, userAgent: 'consumer/1.0' });
try {
  await emulator.admin('hosting', 'device-policy', { interval: 1 });
  let prompted = false;
  const token = await runDeviceFlow({
    http, clock: systemClock, webUrl: emulator.urls.hosting.web, clientId: emulator.fixtures.hosting.app.clientId, scopes: ['repo'],
    onCode: async ({ userCode }) => { prompted = true; await emulator.admin('hosting', 'device-approve', { user_code: userCode }); },
  });
  const credential = { scheme: 'bearer', token: token.accessToken };
  const apiUrl = emulator.urls.hosting.api;
  const user = await fetchUser(http, apiUrl, credential);
  const { resources } = await fetchRateLimit(http, apiUrl, credential);
  const err = await fetchUser(http, apiUrl, { scheme: 'bearer', token: 'not-a-token' }).catch((e) => e);
  console.log(JSON.stringify({ prompted, login: user.login, scopes: token.scopes, core: { limit: resources.core.limit, remaining: resources.core.remaining }, errorIsLanyardError: err instanceof LanyardError }));
} finally {
  await http.close();
  await emulator.stop();
}
`,
  'cjs.cjs': `
const lanyard = require('lanyard-cli');
const { startEmulator } = require('lanyard-cli/emulator');
(async () => {
  const emulator = await startEmulator();
  const http = new lanyard.HttpClient({ clock: lanyard.systemClock, userAgent: 'consumer/1.0' });
  try {
    const { resources } = await lanyard.fetchRateLimit(http, emulator.urls.hosting.api, { scheme: 'bearer', token: emulator.fixtures.hosting.personalToken });
    console.log(JSON.stringify({ exports: Object.keys(lanyard), limit: resources.core.limit }));
  } finally {
    await http.close();
    await emulator.stop();
  }
})();
`,
  'consumer.ts': `
import {
  defaultRateLimitPolicy, fetchRateLimit, HttpClient, LanyardError, MemoryCredentialStore, RateLimitError, runDeviceFlow, systemClock,
  type CredentialStore, type DeviceAuthorization, type PollEvent, type RateLimitOverview, type RateLimitPolicy, type TokenSet,
} from 'lanyard-cli';
import { startEmulator, type RunningEmulator } from 'lanyard-cli/emulator';

const policy: RateLimitPolicy = { ...defaultRateLimitPolicy, wait: true, maxWaitMs: 60_000 };
const http = new HttpClient({ clock: systemClock, userAgent: 'consumer/1.0', rateLimitPolicy: policy });
export const store: CredentialStore = new MemoryCredentialStore();

export async function signIn(emulator: RunningEmulator, show: (auth: DeviceAuthorization) => void): Promise<TokenSet> {
  return runDeviceFlow({ http, clock: systemClock, webUrl: emulator.urls.hosting.web, clientId: emulator.fixtures.hosting.app.clientId, onCode: show, onEvent: (e: PollEvent) => void e.kind });
}

export async function coreLeft(token: string): Promise<number | undefined> {
  const emulator = await startEmulator();
  try {
    const overview: RateLimitOverview = await fetchRateLimit(http, emulator.urls.hosting.api, { scheme: 'bearer', token });
    return overview.resources.core?.remaining;
  } catch (err) {
    if (err instanceof RateLimitError) return 0;
    if (err instanceof LanyardError) throw new Error(err.code);
    throw err;
  } finally {
    await emulator.stop();
  }
}

// Wrong uses must not type-check (were the declarations "any", these would be unused @ts-expect-error: an error too).
// @ts-expect-error: RateLimitPolicy has no "retries"
export const bad: RateLimitPolicy = { ...defaultRateLimitPolicy, retries: 3 };
// @ts-expect-error: onCode is required
export const noPrompt = () => runDeviceFlow({ http, clock: systemClock, webUrl: 'https://example.com', clientId: 'c' });
// @ts-expect-error: not a credential scheme
export const badCredential = () => fetchRateLimit(http, 'https://example.com', { scheme: 'cookie', token: 't' });
`,
  ...tsconfig('node16', 'node16'),
  ...tsconfig('bundler', 'esnext'),
};
