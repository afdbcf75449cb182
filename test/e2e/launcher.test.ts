/**
 * bin/lanyard.js: the V8 code cache of dist/cli.cjs (one file per command:
 * group and subcommand, in a private directory per Node version and build), and the ways
 * it must never get in the way: a corrupt cache, an unwritable directory,
 * caches of an older build, turning it off.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateCa } from './private-ca.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, startWorld } from './harness.js';
import { runOnPty } from './pty.js';
import { useInProcessEmulator } from './in-process-emulator.js';

const work = mkdtempSync(join(tmpdir(), 'lanyard-launcher-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const buildId = /\/\/# lanyard-build=([0-9a-f]+)\s*$/.exec(readFileSync(join(ROOT, 'dist', 'cli.cjs'), 'latin1').slice(-64))?.[1];
const versionDir = `${process.version}-${process.arch}-${buildId}`;

let n = 0;
function fresh(): { cache: string; config: string; dir: string } {
  const base = join(work, String(n++));
  return { cache: join(base, 'cache'), config: join(base, 'config'), dir: join(base, 'cache', 'compile-cache', versionDir) };
}

const mode = (p: string) => statSync(p).mode & 0o777;

/** The root help through the CLI and commander (plain `--help` to a pipe is answered from dist/root-help.txt). */
const ROOT_HELP = ['--no-color', '--help'];

describe('compile cache', () => {
  it('the build ends dist/cli.cjs with its id', () => {
    expect(buildId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('is written per command (0700 directory, 0600 files), then used, with the same output', async () => {
    const t = fresh();
    const env = { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config };
    const first = await runCli(ROOT_HELP, { env });
    expect(first.code).toBe(0);
    expect(readdirSync(t.dir)).toEqual(['main.bin']);
    expect(mode(t.dir)).toBe(0o700);
    expect(mode(join(t.dir, 'main.bin'))).toBe(0o600);
    const written = statSync(join(t.dir, 'main.bin')).mtimeMs;

    const again = await runCli(ROOT_HELP, { env });
    expect(again).toEqual(first);
    // A usable cache is not written again.
    expect(statSync(join(t.dir, 'main.bin')).mtimeMs).toBe(written);

    const list = await runCli(['profile', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ active: null, selected: { name: 'default', reason: 'default' }, profiles: [] });
    expect(readdirSync(t.dir).sort()).toEqual(['main.bin', 'profile.list.bin']);
  });

  it('a typo or an unknown word is cached as the root, not under its own name', async () => {
    const t = fresh();
    const r = await runCli(['ratelimt', 'status'], { env: { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'ratelimt'/);
    expect(readdirSync(t.dir)).toEqual(['main.bin']);
  });

  it('a corrupt cache is rejected by V8, the command works, and the file is rewritten', async () => {
    const t = fresh();
    const env = { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config };
    const expected = await runCli(ROOT_HELP, { env: { ...env, LANYARD_COMPILE_CACHE: '0' } });
    mkdirSync(t.dir, { recursive: true, mode: 0o700 });
    const garbage = Buffer.alloc(4096, 0x5a);
    writeFileSync(join(t.dir, 'main.bin'), garbage);
    const r = await runCli(ROOT_HELP, { env });
    expect(r).toEqual(expected);
    expect(readFileSync(join(t.dir, 'main.bin')).equals(garbage)).toBe(false);
  });

  it("the first cache of a build removes all but the three most recent other builds' caches", async () => {
    const t = fresh();
    const root = join(t.cache, 'compile-cache');
    const old = [1, 2, 3, 4, 5].map((d) => `${process.version}-${process.arch}-000000000000000${d}`);
    for (const [i, name] of old.entries()) {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(join(root, name, 'main.bin'), 'old');
      const when = new Date(Date.now() - (i + 1) * 86_400_000); // 1 to 5 days ago
      utimesSync(join(root, name), when, when);
    }
    expect((await runCli(ROOT_HELP, { env: { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config } })).code).toBe(0);
    expect(readdirSync(root).sort()).toEqual([...old.slice(0, 3), versionDir].sort());
  });

  it('LANYARD_COMPILE_CACHE=0 writes nothing', async () => {
    const t = fresh();
    const r = await runCli(ROOT_HELP, { env: { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config, LANYARD_COMPILE_CACHE: '0' } });
    expect(r.code).toBe(0);
    expect(existsSync(t.cache)).toBe(false);
  });

  it('a cache directory that cannot be written is skipped silently', async () => {
    const t = fresh();
    mkdirSync(join(t.cache), { recursive: true });
    writeFileSync(join(t.cache, 'compile-cache'), 'a file where the directory should be');
    const r = await runCli(ROOT_HELP, { env: { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: lanyard/);
    if (process.getuid?.() !== 0) {
      // (root writes through permissions; the file above covers it)
      const ro = join(work, 'readonly');
      mkdirSync(ro, { recursive: true });
      chmodSync(ro, 0o500);
      const r2 = await runCli(ROOT_HELP, { env: { LANYARD_CACHE_DIR: ro, LANYARD_CONFIG_DIR: t.config } });
      expect(r2.code).toBe(0);
      expect(r2.stderr).toBe('');
    }
  });

  it('defaults to $XDG_CACHE_HOME/lanyard', async () => {
    const t = fresh();
    const xdg = join(work, 'xdg');
    const r = await runCli(ROOT_HELP, { env: { XDG_CACHE_HOME: xdg, LANYARD_CONFIG_DIR: t.config } });
    expect(r.code).toBe(0);
    if (process.platform === 'linux') expect(readdirSync(join(xdg, 'lanyard', 'compile-cache', versionDir))).toEqual(['main.bin']);
  });

  it('a group whose commands set V8 flags (mailbox: --expose-gc) gets them before compiling: its cache is used, not rewritten every run', async () => {
    const t = fresh();
    const world = await startWorld({ env: { LANYARD_CACHE_DIR: t.cache } });
    try {
      const { id } = (await world.admin('mailbox/generate', { bytes: 1024 })) as { id: string };
      for (const [command, args] of [
        ['mailbox.raw', ['mailbox', 'raw', id]],
        ['ratelimit.status', ['ratelimit', 'status', '--json']],
      ] as const) {
        const first = await world.run(['--profile', 'emulator', ...args]);
        expect(first.code, first.stderr).toBe(0);
        const file = join(t.dir, `${command}.bin`);
        const written = readFileSync(file);
        const again = await world.run(['--profile', 'emulator', ...args]);
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toBe(first.stdout);
        // Rewritten only when V8 rejected it (the flags differed from when it was made).
        expect(readFileSync(file).equals(written), `${command}.bin was rewritten`).toBe(true);
      }
    } finally {
      await world.stop();
    }
  });

  it('each command of a group has its own cache: `auth status` after `auth token` compiles its own functions once, then reads them; none is rewritten', async () => {
    const t = fresh();
    // The emulator's default personal access token (user mona), as CI jobs give theirs.
    const world = await startWorld({ env: { LANYARD_CACHE_DIR: t.cache, LANYARD_TOKEN: 'lyp_emulator_default_token_0000000000000001' } });
    try {
      const run = async (args: string[], code = 0) => {
        const r = await world.run(['--profile', 'emulator', ...args]);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
        return r;
      };
      await run(['auth', 'token']);
      expect(readdirSync(t.dir)).toEqual(['auth.token.bin']);
      // (One cache per group was written by `auth token` and read by `auth status` ever after, without status's own functions.)
      const first = await run(['auth', 'status', '--json']);
      expect(readdirSync(t.dir).sort()).toEqual(['auth.status.bin', 'auth.token.bin']);
      const written = ['auth.status.bin', 'auth.token.bin'].map((f) => readFileSync(join(t.dir, f)));
      for (let i = 0; i < 2; i++) {
        expect(JSON.parse((await run(['auth', 'status', '--json'])).stdout)).toEqual(JSON.parse(first.stdout));
        await run(['auth', 'token']);
      }
      // Accepted by V8 (a rejected cache is rewritten), so neither file changed.
      expect(['auth.status.bin', 'auth.token.bin'].map((f) => readFileSync(join(t.dir, f)))).toEqual(written);
      // A word after the group that names none of its commands is cached under the group, once: the tree bounds the files.
      for (let i = 0; i < 2; i++) await run(['auth', 'statsu'], 2);
      expect(readdirSync(t.dir).sort()).toEqual(['auth.bin', 'auth.status.bin', 'auth.token.bin']);
    } finally {
      await world.stop();
    }
  });

  it('an install without dist/ says so in one line (exit 1), no stack trace', () => {
    const pkg = join(work, 'broken');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    for (const f of ['bin/lanyard.js', 'bin/package.json', 'package.json']) writeFileSync(join(pkg, f), readFileSync(join(ROOT, f)));
    const r = spawnSync(process.execPath, [join(pkg, 'bin', 'lanyard.js'), '--help'], {
      encoding: 'utf8',
      env: { ...process.env, LANYARD_CACHE_DIR: join(work, 'broken-cache') },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('lanyard: dist/cli.cjs is missing (run `npm run build` in a source checkout)\n');
    // --version needs no bundle.
    expect(spawnSync(process.execPath, [join(pkg, 'bin', 'lanyard.js'), '--version'], { encoding: 'utf8' }).status).toBe(0);
  });
});

describe('the root help without the CLI', () => {
  it("`lanyard`, `--help`, `-h` and `help` to a pipe print commander's root help from dist/root-help.txt, loading no CLI (no code cache written)", async () => {
    const t = fresh();
    const env = { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config };
    const commander = await runCli(ROOT_HELP, { env: { ...env, LANYARD_COMPILE_CACHE: '0' } });
    expect(commander.code).toBe(0);
    expect(commander.stdout).toMatch(/^Usage: lanyard \[options\] \[command\]\n/);
    expect(readFileSync(join(ROOT, 'dist', 'root-help.txt'), 'utf8')).toBe(commander.stdout);
    for (const args of [[], ['--help'], ['-h'], ['help']]) {
      const r = await runCli(args, { env });
      expect(r, args.join(' ')).toEqual(commander);
    }
    expect(existsSync(t.cache)).toBe(false);
  });

  it('to /dev/null (a character device but no terminal) too', () => {
    const t = fresh();
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'lanyard.js'), '--help'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config },
    });
    expect(r.status).toBe(0);
    expect(r.stderr.toString()).toBe('');
    expect(existsSync(t.cache)).toBe(false);
  });

  it("on a terminal, at the terminal's width (or COLUMNS) exactly as commander wraps it, loading no CLI", async () => {
    const onPty = async (args: string[], cols: number, env: Record<string, string | undefined> = {}) => {
      const t = fresh();
      const r = await runOnPty({
        args,
        env: { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config, LANYARD_PAGER: '', COLUMNS: undefined, ...env },
        send: null,
        cols,
      });
      expect(r.exitCode, args.join(' ')).toBe(0);
      return { text: r.output.replace(/\r/g, ''), cliRan: existsSync(join(t.cache, 'compile-cache')) };
    };
    // Narrower than a pipe's 80 columns; wider, from COLUMNS, which wins over the terminal's own width.
    for (const [cols, env] of [
      [70, {}],
      [50, { COLUMNS: '132' }],
    ] as const) {
      // `--no-color --help` is answered by the CLI and commander.
      const commander = await onPty(ROOT_HELP, cols, env);
      expect(commander.cliRan).toBe(true);
      const lines = commander.text.split('\n');
      expect(lines[0]).toBe('Usage: lanyard [options] [command]');
      // Not the 80 columns of a pipe.
      expect(commander.text, `${cols} columns, ${JSON.stringify(env)}`).not.toBe(readFileSync(join(ROOT, 'dist', 'root-help.txt'), 'utf8'));
      for (const args of cols === 70 ? [['--help'], []] : [['--help']]) {
        const launcher = await onPty(args, cols, env);
        expect(launcher.text, `${args.join(' ')} on ${cols} columns, ${JSON.stringify(env)}`).toBe(commander.text);
        expect(launcher.cliRan).toBe(false);
      }
    }
  });

  it('on a terminal, the text wrapped at a width is kept in the cache directory (0600) and read the next time; a new build keeps the three most recent others', async () => {
    const t = fresh();
    const env = { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config, LANYARD_PAGER: '', COLUMNS: undefined };
    const onPty = async (cols: number, extra: Record<string, string> = {}) => {
      const r = await runOnPty({ args: ['--help'], env: { ...env, ...extra }, send: null, cols });
      expect(r.exitCode).toBe(0);
      return r.output.replace(/\r/g, '');
    };
    const dir = join(t.cache, 'root-help');
    const first = await onPty(70);
    const [kept, ...more] = readdirSync(dir);
    expect(more).toEqual([]);
    expect(kept).toMatch(/^70\.[0-9a-f]{16}\.txt$/);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, kept!))).toBe(0o600);
    expect(readFileSync(join(dir, kept!), 'utf8')).toBe(first);
    // Read, not rendered again.
    writeFileSync(join(dir, kept!), 'kept text\n');
    expect(await onPty(70)).toBe('kept text\n');
    // Another build's text (another stamp) is never shown.
    writeFileSync(join(dir, '90.1111111111111111.txt'), 'an older build\n');
    expect(await onPty(90)).not.toMatch(/older build/);
    expect(readdirSync(dir).sort()).toEqual([kept, kept!.replace(/^70/, '90'), '90.1111111111111111.txt'].sort());
    // This build's first text removes all but the three most recent other builds' texts.
    const others = fresh();
    const otherDir = join(others.cache, 'root-help');
    mkdirSync(otherDir, { recursive: true });
    for (const [i, s] of ['1', '2', '3', '4'].entries()) {
      writeFileSync(join(otherDir, `70.${s.repeat(16)}.txt`), 'another build\n');
      utimesSync(join(otherDir, `70.${s.repeat(16)}.txt`), new Date(2020, 0, i + 1), new Date(2020, 0, i + 1));
    }
    await runOnPty({ args: ['--help'], env: { ...env, LANYARD_CACHE_DIR: others.cache }, send: null, cols: 70 });
    expect(readdirSync(otherDir).sort()).toEqual([kept, ...['2', '3', '4'].map((s) => `70.${s.repeat(16)}.txt`)].sort());
    // No cache directory: rendered each time, nothing written.
    const off = fresh();
    const r = await runOnPty({ args: ['--help'], env: { ...env, LANYARD_CACHE_DIR: off.cache, LANYARD_COMPILE_CACHE: '0' }, send: null, cols: 70 });
    expect(r.output.replace(/\r/g, '')).toBe(first);
    expect(existsSync(off.cache)).toBe(false);
  });

  it('on a terminal, a build whose layout has the size and mtime of the one before (npm fixes every mtime) shows its own text; two installs keep theirs', async () => {
    const t = fresh();
    const env = { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config, LANYARD_PAGER: '', COLUMNS: undefined };
    // Two installs of the launcher and the root help's files: the second's text differs by one letter, its build hash by one digit.
    const layout = readFileSync(join(ROOT, 'dist', 'root-help.json'), 'utf8');
    const stamp = /^\{"build":"([0-9a-f]{16})"/.exec(layout)![1]!;
    const other = `${stamp.slice(0, -1)}${stamp.endsWith('0') ? '1' : '0'}`;
    const install = (name: string, text: string) => {
      const root = join(t.dir, name);
      mkdirSync(join(root, 'bin'), { recursive: true });
      mkdirSync(join(root, 'dist'));
      for (const f of ['package.json', 'bin/lanyard.js', 'bin/package.json', 'dist/root-help.cjs', 'dist/root-help.txt'])
        writeFileSync(join(root, f), readFileSync(join(ROOT, f)));
      writeFileSync(join(root, 'dist', 'root-help.json'), text);
      const npmTime = new Date('1985-10-26T08:15:00Z');
      utimesSync(join(root, 'dist', 'root-help.json'), npmTime, npmTime);
      return join(root, 'bin', 'lanyard.js');
    };
    const a = install('a', layout);
    const b = install('b', layout.replace(`"build":"${stamp}"`, `"build":"${other}"`).replace('Usage: lanyard', 'Usage: lanyarx'));
    const onPty = async (bin: string) => {
      const r = await runOnPty({ bin, args: ['--help'], env, send: null, cols: 70 });
      expect(r.exitCode).toBe(0);
      return r.output.replace(/\r/g, '');
    };
    for (let round = 0; round < 2; round++) {
      expect(await onPty(a)).toMatch(/^Usage: lanyard /);
      expect(await onPty(b)).toMatch(/^Usage: lanyarx /);
    }
    // Both kept: the second round read them (neither removed the other's).
    expect(readdirSync(join(t.cache, 'root-help')).sort()).toEqual([`70.${stamp}.txt`, `70.${other}.txt`].sort());
  });

  it('on a terminal with Node asked to report deprecations, the CLI renders it (the width is asked of a deprecated API)', async () => {
    const t = fresh();
    const env = { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config, LANYARD_PAGER: '', COLUMNS: undefined, NODE_OPTIONS: '--pending-deprecation' };
    const r = await runOnPty({ args: ['--help'], env, send: null, cols: 70 });
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatch(/^Usage: lanyard \[options\] \[command\]/);
    expect(r.output).not.toMatch(/DeprecationWarning|DEP0/);
    expect(existsSync(join(t.dir, 'main.bin'))).toBe(true);
  });

  it("a help word among other arguments is the CLI's (`lanyard help auth`)", async () => {
    const r = await runCli(['help', 'auth'], { env: { LANYARD_COMPILE_CACHE: '0' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: lanyard auth /);
  });
});

describe("the API's TLS connection, opened while the CLI loads (`api`)", () => {
  const tls = useInProcessEmulator({ tls: true }, { resetEach: false });
  /** A config directory whose profile `t` points at `apiUrl`; the token comes from the environment. */
  const world = (apiUrl: string, env: Record<string, string | undefined> = {}) => {
    const t = fresh();
    mkdirSync(t.config, { recursive: true, mode: 0o700 });
    writeFileSync(join(t.config, 'config.json'), JSON.stringify({ profiles: { t: { 'hosting.apiUrl': apiUrl } } }));
    return { LANYARD_CACHE_DIR: t.cache, LANYARD_CONFIG_DIR: t.config, LANYARD_TOKEN: 'lyp_emulator_default_token_0000000000000001', ...env };
  };
  const api = () => `${tls.emu.url}/api/v3`;
  const trusted = () => ({ NODE_EXTRA_CA_CERTS: tls.emu.tls!.caFile });
  const OPENED_AHEAD = /^\* connection to 127\.0\.0\.1:\d+: the one opened ahead$/m;

  it('carries the request, run after run; LANYARD_CONNECT_PREFETCH=0 turns it off', async () => {
    const env = world(api(), trusted());
    for (let i = 0; i < 4; i++) {
      const r = await runCli(['--debug', '--profile', 't', 'api', '/user'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).login).toBe('mona');
      expect(r.stderr).toMatch(OPENED_AHEAD);
    }
    const off = await runCli(['--debug', '--profile', 't', 'api', '/user'], { env: { ...env, LANYARD_CONNECT_PREFETCH: '0' } });
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout).login).toBe('mona');
    expect(off.stderr).not.toMatch(OPENED_AHEAD);
  });

  it("with LANYARD_CA_FILE: made under the file's CA and carries the request; a file of another CA is refused as without it", async () => {
    const env = world(api());
    const r = await runCli(['--debug', '--profile', 't', 'api', '/user'], { env: { ...env, LANYARD_CA_FILE: tls.emu.tls!.caFile } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).login).toBe('mona');
    // Ignoring the file, its handshake would fail and the command would connect on its own.
    expect(r.stderr).toMatch(OPENED_AHEAD);
    const otherDir = join(fresh().config, 'other-ca');
    mkdirSync(otherDir, { recursive: true });
    const other = { ...env, LANYARD_CA_FILE: privateCa(otherDir).caFile };
    const ahead = await runCli(['--profile', 't', 'api', '/user'], { env: other });
    expect(ahead.code).toBe(1);
    expect(ahead.stderr).toMatch(/TLS: the certificate of 127\.0\.0\.1:\d+ is self-signed and not trusted/);
    expect(ahead).toEqual(await runCli(['--profile', 't', 'api', '/user'], { env: { ...other, LANYARD_CONNECT_PREFETCH: '0' } }));
  });

  it('is not opened where the CLI connects otherwise (the OS store, another service, a full URL), and those work as before', async () => {
    const env = world(api());
    const cases = [
      { args: ['api', '/user'], env: { ...trusted(), LANYARD_SYSTEM_CA: '1' } },
      { args: ['api', `${api()}/user`], env: trusted() },
      { args: ['api', '--service', 'hosting', '--jq', '.login', '/user'], env: { ...trusted(), LANYARD_SYSTEM_CA: '0' } },
    ];
    for (const c of cases) {
      const r = await runCli(['--debug', '--profile', 't', ...c.args], { env: { ...env, ...c.env } });
      expect(r.code, `${c.args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/mona/);
      expect(r.stderr, c.args.join(' ')).not.toMatch(OPENED_AHEAD);
    }
  });

  it('a connection that fails (an untrusted certificate, a closed port) is reported exactly as the command reports it without one', async () => {
    for (const apiUrl of [api(), 'https://127.0.0.1:1/api/v3']) {
      const env = world(apiUrl);
      const ahead = await runCli(['--profile', 't', 'api', '/user'], { env });
      const without = await runCli(['--profile', 't', 'api', '/user'], { env: { ...env, LANYARD_CONNECT_PREFETCH: '0' } });
      expect(ahead.code, apiUrl).toBe(1);
      expect(ahead.stderr).toMatch(/certificate|ECONNREFUSED|connect/i);
      expect({ ...ahead, stderr: ahead.stderr.replace(/\d+ ms/g, 'N ms') }).toEqual({ ...without, stderr: without.stderr.replace(/\d+ ms/g, 'N ms') });
    }
  });

  it('one the command does not take keeps nothing waiting: a usage error ends at once, as without it', async () => {
    const env = world(api(), trusted());
    const started = Date.now();
    const r = await runCli(['--profile', 't', 'api', '-X', 'BOGUS', '/user'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid method "BOGUS"/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r).toEqual(await runCli(['--profile', 't', 'api', '-X', 'BOGUS', '/user'], { env: { ...env, LANYARD_CONNECT_PREFETCH: '0' } }));
  });
});
