/**
 * An honest context (#40): nothing writes into a context or an IO after it
 * is made. A command's run function gets a new context, made by its action
 * after parsing (command-kit.ts's `runs`), with the IO and Output its
 * `--json`, `--jq`, `--template` and the pager chose; the pager is an IO
 * decorator; the root options are declared once (root-options.ts). Checked
 * at run time on fakes and, for what a run cannot show, on the source.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { types } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Context, createContext } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/program.js';
import { ROOT_OPTIONS } from '../../../src/cli/root-options.js';
import { HttpClient } from '../../../src/core/http/client.js';
import { FakeClock } from '../../fakes/clock.js';
import { contextOnFakes } from '../../fakes/context.js';
import { MemoryCredentialStore } from '../../fakes/credential-store.js';
import { createTestIO, type TestIO } from '../../fakes/io.js';
import { StubHttp } from '../../fakes/stub-http.js';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src');

let stub: StubHttp;
let http: HttpClient;
let dir: string;
beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
  dir = mkdtempSync(join(tmpdir(), 'lanyard-honest-'));
});
afterEach(async () => {
  await http.close();
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each own property of `o` as it is now (values and accessors), to compare after a run. */
const shape = (o: object) => Object.entries(Object.getOwnPropertyDescriptors(o)).map(([k, d]) => [k, d.value, d.get, d.set, d.writable]);

/** `lanyard <args>` through the real command tree on fakes: the root context, its IO, and the context the run function got. */
async function lanyard(args: string[], o: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const io = createTestIO({ tty: o.tty });
  const runs: Context[] = [];
  const profiles = { active: 'fake', profiles: { fake: { 'hosting.apiUrl': `${stub.url}/api/v3` } } };
  let program: ReturnType<typeof buildProgram> | undefined;
  const ctx = createContext({
    io,
    env: { LANYARD_TOKEN: 'lyp_honest', PATH: process.env.PATH, ...o.env },
    signal: new AbortController().signal,
    version: '0.0.0',
    globals: () => program?.opts() ?? {},
    clock: new FakeClock(),
    ports: { http, credentials: new MemoryCredentialStore(), profiles },
    onRun: (run) => runs.push(run),
  });
  const before = { ctx: shape(ctx), io: shape(io) };
  program = buildProgram(ctx, { group: args[0]! });
  await program.parseAsync(['node', 'lanyard', ...args]);
  await runs[0]?.output.finish();
  return { ctx, io, before, runs };
}

describe('a command runs on a context made for it, and writes into none', () => {
  it('the root context and its IO are as they were; the run got a new frozen context (paged: the pager decorates the IO)', async () => {
    stub.on('GET', '/api/v3/user', { body: { login: 'mona' } });
    const paged = join(dir, 'paged');
    const r = await lanyard(['api', '/user'], { tty: true, env: { LANYARD_PAGER: `sh -c 'cat > "${paged}"'` } });
    expect(Object.isFrozen(r.ctx)).toBe(true);
    expect({ ctx: shape(r.ctx), io: shape(r.io) }).toEqual(r.before);
    expect(r.runs).toHaveLength(1);
    const run = r.runs[0]!;
    expect(run).not.toBe(r.ctx);
    expect(Object.isFrozen(run)).toBe(true);
    expect(run.io).not.toBe(r.io);
    expect(run.output.io).toBe(run.io);
    expect(r.ctx.output.format).toBe('human');
    // What the command printed went through the pager, not to the root IO.
    expect(r.io.stdoutText()).toBe('');
    expect(readFileSync(paged, 'utf8')).toContain('mona');
  });

  it('--jq: the run context carries the shaped output; the root one still prints for a person', async () => {
    stub.on('GET', '/api/v3/user', { body: { login: 'mona' } });
    const r = await lanyard(['api', '/user', '--jq', '.login']);
    expect({ ctx: shape(r.ctx), io: shape(r.io) }).toEqual(r.before);
    expect(r.runs[0]!.output.shaped).toBe(true);
    expect(r.runs[0]!.io).toBe(r.io);
    expect(r.ctx.output.shaped).toBe(false);
    expect(r.io.stdoutText()).toBe('mona\n');
  });

  it("a test's context (contextOnFakes) is frozen, with the output it asked for", () => {
    const io: TestIO = createTestIO();
    const ctx = contextOnFakes(io, {}, { http }, new FakeClock(), { format: 'json' });
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(ctx.output.format).toBe('json');
    expect(contextOnFakes(io, {}, { http }).output.format).toBe('human');
    expect(() => Object.assign(ctx, { output: undefined })).toThrow(TypeError);
  });

  it('the credential storage port hands out plain objects, not Proxies', async () => {
    const store = new MemoryCredentialStore();
    await store.set('echo:key', 'k-1');
    const ctx = contextOnFakes(createTestIO(), { LANYARD_CONFIG_DIR: dir }, { http, credentials: store });
    const given = await ctx.credentialStorage();
    expect(types.isProxy(given.file)).toBe(false);
    expect(given.file.path).toBe('(a store handed in)');
    expect(await given.file.get('echo:key')).toBe('k-1');
    const opened = await contextOnFakes(createTestIO(), { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off' }, { http }).credentialStorage();
    for (const s of [opened.primary, opened.file, opened.store(), ...opened.lookup()]) expect(types.isProxy(s)).toBe(false);
    expect(opened.file.path).toBe(join(dir, 'credentials.json'));
  });
});

describe('the root options are declared once', () => {
  it('each key of ROOT_OPTIONS is the name commander parses its option into, and the root declares no other', () => {
    const io = createTestIO();
    const ctx = contextOnFakes(io, {}, {});
    const root = buildProgram(ctx, 'shallow');
    const declared = root.options.map((o) => o.attributeName()).filter((n) => n !== 'version');
    expect(declared).toEqual(Object.keys(ROOT_OPTIONS));
    for (const [key, [flags]] of Object.entries(ROOT_OPTIONS)) {
      const option = root.options.find((o) => o.flags === flags)!;
      expect(option.attributeName(), flags).toBe(key);
      expect(option.required || option.optional, flags).toBe(flags.includes('<'));
    }
  });
});

function cliFiles(dir = join(SRC, 'cli'), out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) cliFiles(p, out);
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}
const code = (f: string) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
/** The actions declared without runs(): they would give the run function the root context. */
const rootActions = (text: string) => [...text.matchAll(/\.action\((?!\s*runs\(ctx,)\s*(.{0,40})/g)].map((m) => m[1]!);
const commandFiles = () => cliFiles().filter((f) => relative(SRC, f).startsWith('cli/commands/'));
/** The output options (command-kit.ts's OutputOptions) and the root options, by the name commander parses them into. */
const NOT_A_COMMAND_OPTION = new Set(['json', 'ndjson', 'jq', 'template', ...Object.keys(ROOT_OPTIONS)]);
/** Keys of optional members (`name?: type;`, as option types declare them) that are output or root options. */
const optionKeysOf = (text: string) => [...text.matchAll(/^\s+(\w+)\?:\s/gm)].map((m) => m[1]!).filter((k) => NOT_A_COMMAND_OPTION.has(k));
/** A command's own option whose name is a root option's (and why it is its own). */
const OWN_OPTIONS_NAMED_LIKE_ROOT: Readonly<Record<string, string>> = {
  'cli/commands/emulator/options.ts: profile':
    '`emulator start --no-profile` (do not write the emulator profile); the root has no --no-profile, so commander leaves it to the command',
};

describe('on the source', () => {
  it("every command's action gets its run's context through runs() (command-kit.ts), never the root context", () => {
    const bad = commandFiles().flatMap((f) => rootActions(code(f)).map((l) => `${relative(SRC, f)}: .action(${l}`));
    expect(bad).toEqual([]);
    expect(rootActions('.action(async (opts: O) => (await run()).runX(ctx, opts))\n.action(\n  runs(ctx, async (ctx) => f(ctx)),')).toHaveLength(1);
  });

  it('no option type of a command declares an output option (the Output says what --json, --ndjson, --jq and --template chose) or a root option (ctx.globals())', () => {
    const bad = cliFiles()
      .filter((f) => /^cli\/(commands|services)\//.test(relative(SRC, f)))
      .flatMap((f) => optionKeysOf(code(f)).map((k) => `${relative(SRC, f)}: ${k}`))
      .filter((k) => !(k in OWN_OPTIONS_NAMED_LIKE_ROOT));
    expect(bad).toEqual([]);
  });

  it('the check finds such a key in an option type, not in an object literal; each exception is still there', () => {
    expect(optionKeysOf('export interface XOptions {\n  all?: boolean;\n  ndjson?: boolean;\n  jq?: string;\n  timeout?: string;\n}')).toEqual([
      'ndjson',
      'jq',
      'timeout',
    ]);
    expect(optionKeysOf('const r = { profile: (await ctx.profile()).name, json: 1 };')).toEqual([]);
    for (const k of Object.keys(OWN_OPTIONS_NAMED_LIKE_ROOT)) {
      const [file, key] = k.split(': ');
      expect(optionKeysOf(code(join(SRC, file!))), k).toContain(key);
    }
  });
});
