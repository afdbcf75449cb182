/**
 * `lanyard doctor` (issue 25, item 5), the built CLI against the emulator:
 * a healthy profile (every service signed in), a dead endpoint, a refused
 * token from the environment, the keychain (a real Secret Service, and none),
 * the clock moved on the server; never a secret in what it prints.
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSecretService, startWorld, type World } from './harness.js';
import { credentialsFile, PERSONAL_TOKEN } from './auth-helpers.js';
import { freePort } from './squid.js';

const ECHO_KEY = 'AIzaSyLanyardEmulatorEchoKey0000000001';

interface CheckJson {
  name: string;
  status: string;
  summary: string;
  problem?: string;
  fix?: string;
}
interface ServiceJson {
  service: string;
  status: string;
  url?: string;
  credential?: { from: string; source: string; variable?: string };
  expiresAt?: string;
  skewMs?: number;
  rateLimit?: { resource: string; limit: number; remaining: number };
  checks: CheckJson[];
}
interface DoctorJson {
  ok: boolean;
  profile: { name: string; reason: { kind: string; via?: string } };
  keychain: CheckJson;
  services: ServiceJson[];
}

let world: World;
let healthToken: string;
let home: string;
/** Every secret the runs may see: none may be printed. */
const secrets: string[] = [PERSONAL_TOKEN, ECHO_KEY];

const report = (stdout: string) => JSON.parse(stdout) as DoctorJson;
const service = (j: DoctorJson, name: string) => j.services.find((s) => s.service === name)!;
const check = (s: ServiceJson, name: string) => s.checks.find((c) => c.name === name);
const noSecret = (text: string) => {
  for (const s of secrets) expect(text).not.toContain(s);
};

/** Adds the profile `name`: the emulator's, with `changes` applied. */
async function addProfile(name: string, changes: Record<string, string>): Promise<void> {
  const file = join(world.configDir, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8')) as { profiles: Record<string, Record<string, string>> };
  config.profiles[name] = { ...config.profiles.emulator!, ...changes };
  await writeFile(file, JSON.stringify(config));
}

beforeAll(async () => {
  world = await startWorld();
  home = await mkdtemp(join(tmpdir(), 'lanyard-doctor-home-'));
  healthToken = ((await world.admin('health/issue-token', { login: 'ada@contoso.example', expiresInSec: 3599 })) as { access_token: string }).access_token;
  secrets.push(healthToken);
  // The protocol server: a client signed in as itself, its tokens stored in the 0600 file.
  const login = await world.run(
    ['--profile', 'emulator', 'auth', 'login', '--server', `${world.url}/mcp`, '--client-id', 'ctx-service', '--client-credentials'],
    {
      input: 'ctx-service-secret\n',
    },
  );
  expect(login.code, login.stderr).toBe(0);
  secrets.push('ctx-service-secret');
  for (const v of Object.values(await credentialsFile(world))) {
    const t = /"accessToken":"([^"]+)"/.exec(v)?.[1];
    if (t) secrets.push(t);
  }
  expect(secrets.length).toBeGreaterThan(4);
}, 60_000);
afterAll(async () => {
  await world?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** A credential for every service that takes one from the environment. */
const creds = () => ({ LANYARD_TOKEN: PERSONAL_TOKEN, LANYARD_API_KEY: ECHO_KEY, LANYARD_HEALTH_TOKEN: healthToken });

describe('lanyard doctor', () => {
  it('a healthy profile: every service reached and its credential accepted, exit 0; no secret in the output', async () => {
    const env = creds();
    const r = await world.run(['--profile', 'emulator', 'doctor', '--json'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const j = report(r.stdout);
    expect(j.ok).toBe(true);
    expect(j.profile).toEqual({ name: 'emulator', reason: { kind: 'flag', via: '--profile' } });
    expect(j.services.map((s) => s.service)).toEqual(['hosting', 'echo', 'protocol', 'mailbox', 'health']);
    for (const s of j.services) {
      expect(s.status, JSON.stringify(s)).toBe('ok');
      expect(check(s, 'endpoint')?.status).toBe('ok');
      expect(check(s, 'clock')?.status).toBe('ok');
    }
    for (const name of ['hosting', 'echo', 'protocol', 'health']) expect(check(service(j, name), 'accepted')?.status, name).toBe('ok');
    expect(service(j, 'hosting').credential).toEqual({ from: 'environment', source: 'env:LANYARD_TOKEN', variable: 'LANYARD_TOKEN' });
    expect(service(j, 'health').credential).toMatchObject({ from: 'environment', variable: 'LANYARD_HEALTH_TOKEN' });
    expect(service(j, 'protocol').credential).toMatchObject({ from: 'file' });
    expect(service(j, 'protocol').expiresAt).toEqual(expect.any(String));
    expect(service(j, 'health').expiresAt).toEqual(expect.any(String));
    expect(service(j, 'hosting').rateLimit).toMatchObject({ resource: 'core', limit: 5000 });
    noSecret(r.stdout + r.stderr);
    const human = await world.run(['--profile', 'emulator', 'doctor'], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Profile emulator: chosen with --profile$/m);
    expect(human.stdout).toMatch(/Everything works\.$/m);
    noSecret(human.stdout + human.stderr);
  });

  it('LANYARD_PROFILE is said as the reason', async () => {
    const r = await world.run(['doctor', '--json'], { env: { ...creds(), LANYARD_PROFILE: 'emulator' } });
    expect(report(r.stdout).profile).toEqual({ name: 'emulator', reason: { kind: 'environment', via: 'LANYARD_PROFILE' } });
  });

  it('a directory binding is said as the reason, with the bound directory', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'lanyard-doctor-bound-')));
    try {
      const bind = await world.run(['profile', 'use', 'emulator', '--dir', dir]);
      expect(bind.code, bind.stderr).toBe(0);
      const r = await world.run(['doctor', '--json'], { env: creds(), cwd: dir });
      expect(report(r.stdout).profile).toEqual({ name: 'emulator', reason: { kind: 'binding', dir } });
      const human = await world.run(['doctor'], { env: creds(), cwd: dir });
      expect(human.stdout).toContain(`Profile emulator: bound to ${dir}`);
    } finally {
      await world.run(['profile', 'remove', 'emulator', '--dir', dir]);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a dead endpoint (a closed port): exit 1, the TCP step named, its fix; within the time limit', async () => {
    const port = await freePort();
    await addProfile('dead', { 'hosting.apiUrl': `http://127.0.0.1:${port}/api/v3` });
    const t0 = Date.now();
    const r = await world.run(['--profile', 'dead', 'doctor', '--check-timeout', '5s'], { env: creds() });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.stdout).toMatch(new RegExp(`FAIL endpoint +TCP: cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
    expect(r.stdout).toMatch(/fix: nothing answers at that address: start the service/);
    expect(r.stdout).toMatch(/Problems with: hosting\.$/m);
    noSecret(r.stdout + r.stderr);
    const j = await world.run(['--profile', 'dead', 'doctor', '--json'], { env: creds() });
    expect(j.code).toBe(1);
    expect(service(report(j.stdout), 'hosting').checks[0]).toMatchObject({ name: 'endpoint', status: 'fail', problem: 'connect' });
  });

  it('a name that does not resolve: the DNS step named', async () => {
    await addProfile('nxdomain', { 'echo.baseUrl': 'http://lanyard-doctor.invalid:8080' });
    const r = await world.run(['--profile', 'nxdomain', 'doctor', '--json'], { env: creds() });
    expect(r.code).toBe(1);
    expect(check(service(report(r.stdout), 'echo'), 'endpoint')).toMatchObject({
      status: 'fail',
      problem: 'dns',
      fix: expect.stringMatching(/does not resolve/),
    });
  });

  it('a refused token from LANYARD_TOKEN: exit 1, the environment variable named as the source, never the token', async () => {
    const bad = 'lyp_refused_doctor_token_000000000000042';
    secrets.push(bad);
    const r = await world.run(['--profile', 'emulator', 'doctor', '--json'], { env: { ...creds(), LANYARD_TOKEN: bad } });
    expect(r.code, r.stderr).toBe(1);
    const hosting = service(report(r.stdout), 'hosting');
    expect(hosting.credential).toEqual({ from: 'environment', source: 'env:LANYARD_TOKEN', variable: 'LANYARD_TOKEN' });
    expect(check(hosting, 'accepted')).toMatchObject({
      status: 'fail',
      problem: 'refused',
      summary: expect.stringContaining('the environment (LANYARD_TOKEN)'),
      fix: expect.stringMatching(/the token from LANYARD_TOKEN was refused/),
    });
    noSecret(r.stdout + r.stderr);
    const human = await world.run(['--profile', 'emulator', 'doctor'], { env: { ...creds(), LANYARD_TOKEN: bad } });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/FAIL accepted +the service refused the credential from the environment \(LANYARD_TOKEN\)/);
    noSecret(human.stdout + human.stderr);
  });

  it('no Secret Service: the fallback to the 0600 file is a warning with its fix; LANYARD_KEYCHAIN=required fails', async () => {
    const noBus = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/lanyard-no-bus', LANYARD_KEYCHAIN_TIMEOUT_MS: '3000' };
    const r = await world.run(['--profile', 'emulator', 'doctor', '--json'], { env: { ...creds(), ...noBus, LANYARD_KEYCHAIN: undefined } });
    expect(r.code, r.stderr).toBe(0);
    expect(report(r.stdout).keychain).toMatchObject({
      status: 'warn',
      problem: 'keychain-fallback',
      summary: expect.stringMatching(/the OS keychain is unavailable .*plain file/),
      fix: expect.stringMatching(/unlock the Secret Service/),
    });
    const req = await world.run(['--profile', 'emulator', 'doctor', '--json'], { env: { ...creds(), ...noBus, LANYARD_KEYCHAIN: 'required' } });
    expect(req.code).toBe(1);
    const j = report(req.stdout);
    expect(j.keychain).toMatchObject({ status: 'fail', problem: 'keychain-required', fix: expect.stringMatching(/unset LANYARD_KEYCHAIN/) });
    noSecret(r.stdout + r.stderr + req.stdout + req.stderr);
  });

  it('a real Secret Service: unlocked, the token read from the keychain (never printed); locked, said so', async () => {
    await writeFile(join(home, 'token.txt'), `${PERSONAL_TOKEN}\n`);
    const lock =
      'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/aliases/default >/dev/null';
    const r = inSecretService(
      [
        `$LY auth token --with-token < '${join(home, 'token.txt')}' 2>/dev/null; echo "rc_store=$?"`,
        '$LY doctor --json > "$HOME/unlocked.json"; echo "rc_unlocked=$?"; cat "$HOME/unlocked.json"',
        'echo ==LOCKED==',
        lock,
        'LANYARD_KEYCHAIN_TIMEOUT_MS=3000 $LY doctor --json; echo "rc_locked=$?"',
      ].join('\n'),
      { ...world.env, HOME: home, LANYARD_API_KEY: ECHO_KEY, LANYARD_HEALTH_TOKEN: healthToken },
      '--profile emulator',
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('rc_store=0');
    const [unlocked, locked] = r.stdout.split('==LOCKED==');
    const u = report(unlocked!.slice(unlocked!.indexOf('{'), unlocked!.lastIndexOf('}') + 1));
    expect(u.keychain).toMatchObject({ status: 'ok', summary: expect.stringMatching(/keychain .*reachable/) });
    expect(service(u, 'hosting').credential).toMatchObject({ from: 'keychain' });
    expect(check(service(u, 'hosting'), 'accepted')?.status).toBe('ok');
    expect(unlocked).toContain('rc_unlocked=0');
    const l = report(locked!.slice(locked!.indexOf('{'), locked!.lastIndexOf('}') + 1));
    // Locked: the stored token cannot be read, and the report says why.
    expect(l.keychain).toMatchObject({ status: 'warn', problem: 'keychain-fallback', summary: expect.stringMatching(/locked/i) });
    expect(check(service(l, 'hosting'), 'credential')).toMatchObject({ status: 'warn', problem: 'no-credential' });
    expect(locked).toContain('rc_locked=0');
    noSecret(r.stdout + r.stderr);
  });

  it('through the time limit: a server that never answers ends the check, not the run', async () => {
    const { createServer } = await import('node:net');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const port = (silent.address() as { port: number }).port;
    try {
      await addProfile('silent', { 'mailbox.baseUrl': `http://127.0.0.1:${port}` });
      const t0 = Date.now();
      const r = await world.run(['--profile', 'silent', 'doctor', '--json', '--check-timeout', '2s'], { env: creds() });
      expect(r.code).toBe(1);
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(check(service(report(r.stdout), 'mailbox'), 'endpoint')).toMatchObject({ status: 'fail', problem: 'timeout' });
      expect(service(report(r.stdout), 'health').status).toBe('ok');
    } finally {
      silent.close();
    }
  });

  // Last: the server's clock stays moved.
  it("clock skew: the server's clock an hour ahead is a failure with its fix", async () => {
    await world.admin('advance', { seconds: 3600 });
    const r = await world.run(['--profile', 'emulator', 'doctor', '--json'], { env: { LANYARD_TOKEN: PERSONAL_TOKEN } });
    expect(r.code).toBe(1);
    const hosting = service(report(r.stdout), 'hosting');
    expect(hosting.skewMs).toBeGreaterThan(3590_000);
    expect(check(hosting, 'clock')).toMatchObject({ status: 'fail', problem: 'clock-skew', summary: expect.stringMatching(/behind the server by 60 min/) });
    expect(check(hosting, 'clock')?.fix).toMatch(/clock/);
  });
});
