/**
 * `npm run demo` (node build/demo.js): the tour must pass on a machine with no
 * TTY and no stdin, as in CI, and must never print a secret — neither the
 * seeded ones (read here from an emulator of our own: the fixtures are the
 * same in every emulator) nor the ones created during the tour (the
 * device-flow token, protocol tokens, minted JWTs, the key file's private key),
 * which are recognised by their shapes.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, startWorld, type World } from './harness.js';

interface DemoRun {
  code: number | null;
  output: string;
  ms: number;
}

function runDemo(): Promise<DemoRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // stdin ignored (no stdin at all), stdout/stderr pipes (no TTY), CI=true, no LANYARD_* of the developer.
    const child = spawn(process.execPath, [join(ROOT, 'build', 'demo.js')], {
      cwd: ROOT,
      env: cleanEnv({ CI: 'true', NO_COLOR: undefined, LANYARD_KEYCHAIN: undefined, LANYARD_BROWSER: undefined }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

/** Every seeded secret of the emulator's fixtures. */
function seededSecrets(info: Record<string, any>): string[] {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const s: string[] = [
    info.hosting.personalToken,
    ...info.hosting.users.map((u: { password: string }) => u.password),
    ...info.hosting.apps.map((a: { clientSecret: string }) => a.clientSecret),
    ...info.hosting.rateLimitCallers.map((c: { token: string }) => c.token),
    ...info.echo.apiKeys.map((k: { key: string }) => k.key),
    ...info.echo.idp.users.map((u: { password: string }) => u.password),
    ...info.protocol.clients.filter((c: { client_secret?: string }) => c.client_secret).map((c: { client_secret: string }) => c.client_secret),
    info.health.token,
    info.health.user.password,
    info.health.guest.password,
  ];
  return s.filter((v): v is string => typeof v === 'string' && v.length > 0);
}

describe('npm run demo', () => {
  let world: World;
  let demo: DemoRun;
  let secrets: string[];

  beforeAll(async () => {
    world = await startWorld();
    secrets = seededSecrets((await (await fetch(`${world.url}/_emulator/info`)).json()) as Record<string, unknown>);
    demo = await runDemo();
  }, 180_000);

  afterAll(async () => {
    await world?.stop();
  });

  it('runs every step as expected and exits 0', () => {
    const summary = /^(\d+) of (\d+) steps as expected\.$/m.exec(demo.output);
    expect(summary, demo.output).not.toBeNull();
    const notAsExpected = demo.output
      .split('\n')
      .filter((l) => /NOT AS EXPECTED|not as expected:|The demo stopped/.test(l))
      .join('\n');
    expect(summary![1], notAsExpected).toBe(summary![2]);
    expect(Number(summary![2])).toBeGreaterThanOrEqual(25);
    expect(demo.output).not.toMatch(/NOT AS EXPECTED/);
    expect(demo.code, demo.output).toBe(0);
  });

  it('tours the five services with real commands, including the expected failures', () => {
    for (const section of ['1. Hosting', '2. Echo API', '3. Context-protocol server', '4. Mailbox', '5. Service health']) {
      expect(demo.output).toContain(`== ${section}`);
    }
    expect(demo.output).toContain('$ lanyard auth device --no-browser');
    expect(demo.output).toMatch(/✓ Logged in as mona/);
    expect(demo.output).toMatch(/\$ lanyard ratelimit status --resource core --fail-under 100\n[\s\S]*?exit 3 \(as expected\)/);
    expect(demo.output).toMatch(/\$ lanyard health events\n[\s\S]*?exit 4 \(as expected\)/);
    expect(demo.output).toContain('hello from the Lanyard demo');
    expect(demo.output).toMatch(/out \| \d+ events \(\d+ active\)/);
  });

  it('never prints a secret', () => {
    expect(secrets.length).toBeGreaterThan(15);
    for (const s of secrets) expect(demo.output.includes(s), `the demo printed the seeded secret ${s.slice(0, 4)}…`).toBe(false);
    // Created during the tour: the device-flow token (lyo_), protocol tokens (ctxat_), JWTs, the private key.
    expect(demo.output).not.toMatch(/\bly[a-z]_[\w-]{16,}/); // base64url: '-' is part of a token
    expect(demo.output).not.toMatch(/\bctx[a-z]{1,3}_[\w-]{16,}/);
    expect(demo.output).not.toMatch(/\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/);
    expect(demo.output).not.toMatch(/PRIVATE KEY/);
    // Nothing had to be masked by the demo's own leak check either.
    expect(demo.output).not.toContain('[SECRET MASKED BY THE DEMO]');
    // The masked forms are there, so the credentials were shown and masked by the CLI itself.
    // Not \b: a token may end in '-', and there is no word boundary between '-' and a space.
    expect(demo.output).toMatch(/lyo_…[\w-]{4}(?![\w-])/);
  });

  it('is plain text without a TTY and finishes well within a minute on an idle machine', () => {
    expect(demo.output).not.toMatch(/\x1b\[/); // eslint-disable-line no-control-regex
    // Generous bound: the suite runs e2e files in parallel on shared CPUs.
    expect(demo.ms).toBeLessThan(120_000);
  });
});
