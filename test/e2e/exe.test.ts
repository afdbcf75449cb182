/**
 * The single-file executables of `npm run build:exe` (dist/exe/): the
 * linux-x64 one run for real with an empty PATH (no Node to fall back on)
 * against the emulator it starts itself and a real Secret Service
 * (gnome-keyring under its own D-Bus session); the linux-arm64 and win-x64
 * ones checked for their format, the injected blob and the flipped fuse by
 * reading the files (exe-format.ts), and all three for their sums and size.
 * Builds them first when dist/exe/ is missing or older than dist/: the
 * linux-x64 one is run as soon as the build has written it, while the build
 * still injects the other two (most of its time), whose checks wait for it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedPackage, MAX_GROWTH, TARGETS } from '../../src/tools/build-exe-targets.mjs';
import { EM_AARCH64, EM_X86_64, fuseState, IMAGE_FILE_MACHINE_AMD64, readElf, readPe, SEA_MAGIC } from './exe-format.js';
import { LIST_KEYCHAIN, ROOT, shellQuote as q } from './harness.js';

const OUT = join(ROOT, 'dist', 'exe');
const EXE = join(OUT, 'lanyard-linux-x64');
const target = (name: string) => TARGETS.find((t) => t.name === name)!;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const sha256File = async (file: string) => {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
};

/** Whether dist/exe/ holds all three executables, built after dist/cli.cjs. */
function built(): boolean {
  const sums = join(OUT, 'SHA256SUMS');
  if (!existsSync(sums) || !TARGETS.every((t) => existsSync(join(OUT, t.out)))) return false;
  return statSync(sums).mtimeMs >= statSync(join(ROOT, 'dist', 'cli.cjs')).mtimeMs;
}

/** The build of all three (when dist/exe/ was stale): resolved when it has exited 0. */
let allBuilt: Promise<void> = Promise.resolve();
let building: ChildProcess | undefined;

beforeAll(async () => {
  if (built()) return;
  // In a process group of its own: a file that ends early stops its injections too.
  const child = spawn(process.execPath, [join(ROOT, 'src', 'tools', 'build-exe.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  building = child;
  let out = '';
  allBuilt = new Promise((resolve, reject) =>
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`build-exe exited ${code ?? signal}:\n${out}`)))),
  );
  // It prints a line per executable as it is written: the linux-x64 one comes first.
  const linuxWritten = new Promise<void>((resolve) =>
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes(`build-exe: dist/exe/${target('linux-x64').out} `)) resolve();
    }),
  );
  await Promise.race([linuxWritten, allBuilt]);
}, 900_000);

afterAll(async () => {
  if (building && building.exitCode === null && building.signalCode === null) {
    const exited = new Promise((r) => building!.once('exit', r));
    process.kill(-building.pid!, 'SIGTERM');
    await exited;
  }
});

/** The manifest the build put in a blob (the `sea.json` asset, stored as it is). */
function manifestIn(blob: Buffer): { addon: { sha256: string }; modules: Record<string, string>; codeCache: string[] } {
  const start = blob.indexOf('{"assets":[');
  expect(start).toBeGreaterThan(0);
  let depth = 0;
  for (let i = start; i < blob.length; i++) {
    if (blob[i] === 0x7b) depth++;
    else if (blob[i] === 0x7d && --depth === 0) return JSON.parse(blob.toString('utf8', start, i + 1));
  }
  throw new Error('no manifest in the blob');
}

/** The keychain addon of `name`'s platform, as the registry serves it. */
const addonOf = (name: string) => readFileSync(join(cachedPackage(target(name).keyring.spec), target(name).keyring.file));

describe('single-file executable (linux-x64) with an empty PATH', () => {
  let home: string;
  let emulator: ChildProcess;
  let url: string;
  /** Only what the executable needs: no PATH at all (so no node, no xdg-open), its own HOME and config. */
  const env = () => ({ HOME: home, PATH: '', LANYARD_CONFIG_DIR: join(home, 'config'), NO_COLOR: '1' });
  const run = (args: string[], input?: string) =>
    spawnSync(EXE, args, { env: { ...env(), LANYARD_KEYCHAIN: 'off' }, input, encoding: 'utf8', timeout: 30_000 });
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${url}/_emulator/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(200);
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'lanyard-exe-'));
    emulator = spawn(EXE, ['emulator', 'start', '--port', '0'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    emulator.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: emulator.stdout! }).once('line', resolve);
      emulator.once('exit', (code) => reject(new Error(`emulator exited ${code}: ${stderr}`)));
    });
    url = /^Emulator listening on (\S+)$/.exec(first)![1]!;
    for (let i = 0; i < 100 && !/Profile "emulator"/.test(stderr); i++) await new Promise((r) => setTimeout(r, 20));
    expect(stderr).toMatch(/Profile "emulator"/);
  });
  afterAll(async () => {
    if (emulator && emulator.exitCode === null) {
      emulator.kill('SIGTERM');
      await new Promise((r) => emulator.once('exit', r));
    }
    await rm(home, { recursive: true, force: true });
  });

  it('answers --version, --help and a usage error (exit 2) with no Node anywhere, whatever NODE_OPTIONS says', () => {
    expect(run(['--version']).stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
    const help = run(['--help']);
    expect(help.status).toBe(0);
    // The root help the build rendered (an asset), as the npm install prints it to a pipe.
    expect(help.stdout).toBe(readFileSync(join(ROOT, 'dist', 'root-help.txt'), 'utf8'));
    // A CI job's NODE_OPTIONS is meant for its own Node programs: the executable ignores it.
    const withOptions = spawnSync(EXE, ['--version'], { env: { ...env(), NODE_OPTIONS: '--require /nonexistent/loader.js' }, encoding: 'utf8' });
    expect(withOptions.status, withOptions.stderr).toBe(0);
    const bad = run(['api']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).not.toMatch(/\n\s+at /); // one line, no stack trace
  });

  it('starts the commands scripts run most from the code caches it carries: their first run in an empty cache directory writes none (V8 accepted them)', async () => {
    const cache = join(home, 'first-run-cache');
    const first = (args: string[]) =>
      spawnSync(EXE, ['--profile', 'emulator', ...args], {
        env: { ...env(), LANYARD_KEYCHAIN: 'off', LANYARD_CACHE_DIR: cache, LANYARD_TOKEN: 'lyp_emulator_default_token_0000000000000001' },
        encoding: 'utf8',
        timeout: 30_000,
      });
    for (const args of [
      ['api', '/user'],
      ['auth', 'status', '--json'],
      ['ratelimit', 'status', '--json'],
      ['exec', '--', '/bin/true'],
    ]) {
      const r = first(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    // A command it carries no cache of starts from the root one and writes its own: the directory is writable.
    expect(first(['profile', 'list']).status).toBe(0);
    const [dir, ...others] = await readdir(join(cache, 'compile-cache'));
    expect(others).toEqual([]);
    // Without the carried caches (or with ones V8 rejects), each first run writes its command's cache here.
    expect(await readdir(join(cache, 'compile-cache', dir!))).toEqual(['profile.list.bin']);
  });

  it('prints the same completion scripts as the npm install, and completes profile names', () => {
    for (const [shell, file] of [
      ['bash', 'lanyard.bash'],
      ['zsh', '_lanyard'],
      ['fish', 'lanyard.fish'],
    ]) {
      const r = run(['completion', shell!]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(ROOT, 'completions', file!), 'utf8'));
    }
    expect(run(['__complete', 'profiles']).stdout.split('\n')).toContain('emulator');
  });

  it('signs in (device flow) into a real Secret Service, calls the API, and loads the keychain addon only after checking it', async () => {
    await admin('hosting/device-policy', { interval: 1 });
    const native = join(home, '.cache', 'lanyard', 'native');
    const work = join(home, 'work');
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { recursive: true });
    const ly = `PATH= ${q(EXE)} --profile emulator`;
    const script = [
      'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97',
      `${ly} auth device --scopes repo 2> ${q(join(work, 'device.err'))}; echo "rc_device=$?"`,
      `${ly} auth status --json > ${q(join(work, 'status.json'))}; echo "rc_status=$?"`,
      `echo "LOGIN=$(${ly} api /user --jq .login)"`,
      LIST_KEYCHAIN,
      // Someone changes the unpacked addon and opens its directory: the next
      // run must not load that file, but put its own back, privately.
      `for f in ${q(native)}/keyring-*.node; do printf 'not the addon' > "$f"; done; chmod 755 ${q(native)}`,
      `${ly} auth status > /dev/null 2> ${q(join(work, 'after.err'))}; echo "rc_after=$?"`,
      // git's credential helper is the executable itself (not "node script"), and answers git from the keychain.
      `export GIT_CONFIG_GLOBAL=${q(join(work, 'gitconfig'))} GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0`,
      // (setup-git runs git, so git's PATH here; the helper git runs needs none.)
      `${q(EXE)} --profile emulator auth setup-git 2>&1; echo "rc_setup_git=$?"`,
      `printf 'protocol=http\nhost=%s\n\n' ${q(new URL(url).host)} | git credential fill > ${q(join(work, 'fill.out'))}; echo "rc_fill=$?"`,
      `${ly} auth logout; echo "rc_logout=$?"`,
      LIST_KEYCHAIN.replace("'KEYCHAIN='", "'AFTER='"),
    ].join('\n');
    const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
      cwd: ROOT,
      env: { ...env(), PATH: process.env.PATH, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home, KEYRING_PASSWORD: 'test-keyring-password' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // The person's part: the code the executable printed, approved on the emulator.
    let code: string | undefined;
    for (let i = 0; i < 300 && !code; i++) {
      await new Promise((r) => setTimeout(r, 100));
      code = /one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(await readFile(join(work, 'device.err'), 'utf8').catch(() => ''))?.[1];
    }
    expect(code, `${stdout}\n${stderr}`).toBeDefined();
    await admin('hosting/device-approve', { user_code: code });
    expect(await exited, stderr).toBe(0);

    const device = await readFile(join(work, 'device.err'), 'utf8');
    expect(stdout, device).toContain('rc_device=0');
    expect(device).toContain('Logged in as mona');
    expect(device).toContain('OS keychain');
    expect(stdout).toContain('rc_status=0');
    const status = JSON.parse(await readFile(join(work, 'status.json'), 'utf8')) as { accounts: Array<{ source: string; account: string }> };
    expect(status.accounts).toMatchObject([{ source: 'keychain', account: 'mona' }]);
    expect(stdout).toContain('LOGIN=mona');
    const host = new URL(url).host;
    expect(stdout).toContain(`KEYCHAIN=${JSON.stringify([`hosting:${host}`, `hosting:${host}:mona`])}`);
    expect(existsSync(join(home, 'config', 'credentials.json'))).toBe(false);

    // After the tampering: the command worked from the keychain, the file is the registry's addon again, the directory private.
    expect(stdout, await readFile(join(work, 'after.err'), 'utf8')).toContain('rc_after=0');
    const files = (await readdir(native)).filter((f) => f.endsWith('.node'));
    expect(files).toHaveLength(1);
    expect(sha256(await readFile(join(native, files[0]!)))).toBe(sha256(addonOf('linux-x64')));
    expect((await stat(native)).mode & 0o777).toBe(0o700);
    expect(stdout).toContain('rc_setup_git=0');
    expect(await readFile(join(work, 'gitconfig'), 'utf8')).toContain(`helper = !${q(EXE)} --profile 'emulator' auth git-credential`);
    expect(stdout).toContain('rc_fill=0');
    expect(await readFile(join(work, 'fill.out'), 'utf8')).toMatch(/^password=\S+$/m);
    expect(stdout).toContain('rc_logout=0');
    expect(stdout).toContain('AFTER=[]');
  }, 120_000);
});

describe('single-file executables: files', () => {
  beforeAll(() => allBuilt, 900_000);

  it('SHA256SUMS lists the three executables with their digests (sha256sum -c passes)', async () => {
    const lines = (await readFile(join(OUT, 'SHA256SUMS'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => l.split('  ')[1]).sort()).toEqual(TARGETS.map((t) => t.out).sort());
    // coreutils' check and ours side by side (each reads the 400 MB).
    const checked = new Promise<number | null>((resolve) =>
      spawn('sha256sum', ['--check', '--strict', 'SHA256SUMS'], { cwd: OUT, stdio: 'ignore' }).once('exit', resolve),
    );
    for (const line of lines) {
      const [digest, name] = line.split('  ');
      expect(digest).toBe(await sha256File(join(OUT, name!)));
    }
    expect(await checked).toBe(0);
  });

  it(`each weighs at most ${MAX_GROWTH}x the Node binary it was made from`, async () => {
    for (const t of TARGETS) {
      const node = (await stat(join(cachedPackage(t.node.spec), t.node.file))).size;
      const size = (await stat(join(OUT, t.out))).size;
      expect(size, t.out).toBeGreaterThan(node);
      expect(size / node, t.out).toBeLessThanOrEqual(MAX_GROWTH);
    }
  });

  it('linux-x64 and linux-arm64: ELF executables of their machine, the SEA note injected, the fuse flipped, their own addon inside', async () => {
    for (const [name, machine] of [
      ['linux-x64', EM_X86_64],
      ['linux-arm64', EM_AARCH64],
    ] as const) {
      const b = await readFile(join(OUT, target(name).out));
      const elf = readElf(b);
      expect(elf.machine, name).toBe(machine);
      expect(elf.blob, name).toBeDefined();
      expect(elf.blob!.readUInt32LE(0)).toBe(SEA_MAGIC);
      expect(fuseState(b), name).toBe('flipped');
      const addon = addonOf(name);
      expect(manifestIn(elf.blob!).addon.sha256).toBe(sha256(addon));
      expect(readElf(addon).machine).toBe(machine);
      // Code caches are made by the executable's own Node, which runs here only for linux-x64.
      if (name === 'linux-x64') expect(manifestIn(elf.blob!).codeCache).toEqual(expect.arrayContaining(['api', 'auth.status', 'main']));
      else expect(manifestIn(elf.blob!).codeCache).toEqual([]);
      // The registry's binary itself has neither: the check tells them apart.
      const plain = await readFile(join(cachedPackage(target(name).node.spec), 'bin', 'node'));
      expect(readElf(plain).blob).toBeUndefined();
      expect(fuseState(plain)).toBe('unflipped');
    }
  });

  it('win-x64: a PE32+ x86-64 console program with the NODE_SEA_BLOB resource, the fuse flipped, the Windows addon inside, no broken signature', async () => {
    const t = target('win-x64');
    const b = await readFile(join(OUT, t.out));
    const pe = readPe(b);
    expect(pe.machine).toBe(IMAGE_FILE_MACHINE_AMD64);
    expect(pe.optionalMagic).toBe(0x20b);
    expect(pe.subsystem).toBe(3);
    expect(pe.blob).toBeDefined();
    expect(pe.blob!.readUInt32LE(0)).toBe(SEA_MAGIC);
    expect(fuseState(b)).toBe('flipped');
    const addon = addonOf('win-x64');
    expect(manifestIn(pe.blob!).addon.sha256).toBe(sha256(addon));
    expect(manifestIn(pe.blob!).codeCache).toEqual([]);
    expect(readPe(addon).machine).toBe(IMAGE_FILE_MACHINE_AMD64);
    const plain = await readFile(join(cachedPackage(t.node.spec), t.node.file));
    expect(readPe(plain).blob).toBeUndefined();
    // Node's signature, which the blob would break, is taken off rather than left broken.
    expect(readPe(plain).certificates.size).toBeGreaterThan(0);
    expect(pe.certificates).toEqual({ offset: 0, size: 0 });
    expect(fuseState(plain)).toBe('unflipped');
  });
});
