/**
 * Every example a user can paste — each `$ …` line of every command's
 * `--help` and every command of the shell blocks of the README and the manual
 * in docs/ (MANUAL in examples.ts) — runs against the
 * emulator as pasted into bash: the built CLI (`npm run build`) on PATH as
 * `lanyard`, stdin closed, no CI variables. The examples shown together (one
 * page's block, one help text) are pasted one after another into one shell,
 * in a fresh working directory holding the files examples read, with a fresh
 * copy of a config directory signed in to every service (profiles `default`
 * (active), `work` and `old-work` point at the emulator) and the variables the
 * examples use set to real values of the emulator (see `vars`). An example
 * passes when it exits with the code it shows (`# exit N`, else 0) and prints
 * no "unexpected error" or stack trace. A server (`lanyard emulator start`)
 * keeps running, as in a second terminal, until its block has run; then
 * Ctrl-C (SIGINT) must end it with 0. Sign-ins meet a stand-in for the
 * person: LANYARD_BROWSER is person-browser.mjs (signs in on the emulator's
 * pages and allows), the one-time codes a block prints are entered on the
 * device page, URLs printed for --no-browser are opened (playThePerson), and
 * a password asked at a hidden prompt is typed on a pseudo-terminal
 * (TYPED_AT_PROMPT).
 *
 * New examples are picked up from the help texts and the manual's pages by
 * themselves. A line shown in several places runs once (README first). SKIP
 * holds the few that cannot run here, each with its reason. Blocks that steer
 * the emulator (`lanyard emulator budget|fault|advance|reset|…`) run one at a
 * time after all others, each followed by a reset, so they cannot disturb the
 * blocks that run side by side. Hosts that stand for the reader's own server
 * are the emulator when pasted against it (PASTED_AGAINST_EMULATOR).
 */
import { execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examples, LOCAL_EXITS } from '../../src/cli/command-kit.js';
import { type Example, helpExamples, makeProgram, manualExamples } from './examples.js';
import { BIN, cleanEnv, ROOT, selfSignedCert, startWorld, type World } from './harness.js';

/** Examples that cannot run here, by their text without its trailing comment: why. */
export const SKIP: Record<string, string> = {
  'npm install && npm run demo': "installs into this checkout's node_modules, then runs the demo (test/e2e/demo.test.ts runs it)",
  'npm test': 'runs this very suite',
  'npm run build': 'rebuilds dist/ under the examples that run it (`npm test` builds first)',
  'npm link': "changes the machine's global npm prefix",
  'ssh build-host lanyard auth device': 'needs an ssh server and a person (test/e2e/auth-device-headless.test.ts runs auth device without a terminal)',
  'ssh build-host lanyard auth login --server https://tools.example.com/mcp --device':
    'needs an ssh server and a person (the device grant of a protocol server is tested without a terminal in test/unit/core/protocol)',
  'lanyard emulator requests --follow --ndjson': 'follows the journal until interrupted (test/e2e/emulator-journal.test.ts follows it)',
  'lanyard exec -- gh repo list': 'gh speaks HTTPS on port 443 only (test/e2e/emulator-gh.test.ts runs gh against the emulator that way)',
  'lanyard api https://git.example.com/api/v4/user -H @- < private-token-header.txt':
    "another host's own credential header, which the emulator does not take (test/e2e/api-debug-headers.test.ts sends -H @FILE and -H @- to a server of its own)",
};

/** Example hosts that stand for the reader's own server: pasted against the emulator, they are its URL. */
const PASTED_AGAINST_EMULATOR: Array<[RegExp, (info: EmulatorInfo) => string]> = [
  [/https:\/\/tools\.example\.com\/mcp/g, (info) => info.protocol.serverUrl],
  [/http:\/\/127\.0\.0\.1:(8080|8765)(?=\/|\s|$)/g, (info) => info.url],
  [/(?<=--audience )echo-api\.example\.com\b/g, (info) => info.echo.audience],
  [/(?<=auth token --hostname )github\.example\.com\b/g, (info) => new URL(info.url).host],
  [/(?<=--client-id )my-app\b/g, (info) => info.protocol.clients.find((c) => !c.client_secret)!.client_id],
  // the reader's other account of the host (work, corporate): the account the template signed in
  [/(?<=--user )mona-(work|corp)\b/g, () => 'mona'],
  [/(?<=--project )(my-project|example-project)\b/g, (info) => info.echo.appPlatform.projects[0]!.id],
];

/** How long a block may take: 30 s, and 10 s more per line (a block that does not end is a failure). */
const blockTimeoutMs = (lines: number) => 30_000 + 10_000 * lines;
/** Blocks run side by side (one emulator; a block is a few short CLI processes). */
const POOL = 4;

export interface Unit {
  block: string;
  examples: Example[];
}

/** The example without a trailing `# comment` (outside quotes): what is compared, skipped and run. */
export function withoutComment(text: string): string {
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) return text.slice(0, i).trimEnd();
  }
  return text.trimEnd();
}

/** The manual's blocks (README first), then help texts; a line already shown elsewhere is left out of the later block. */
export function units(manual: Example[], help: Example[] = helpExamples()): Unit[] {
  const seen = new Set<string>();
  const byBlock = new Map<string, Example[]>();
  for (const e of [...manual, ...help]) {
    const key = withoutComment(e.text);
    if (seen.has(key)) continue;
    seen.add(key);
    byBlock.set(e.block, [...(byBlock.get(e.block) ?? []), e]);
  }
  return [...byBlock].map(([block, examples]) => ({ block, examples }));
}

/** `lanyard [global options] emulator `: the words before a command of the emulator group. */
const EMULATOR_GROUP = String.raw`(?:^|[\s;&|(])lanyard\s+(?:(?:-p|--profile|--max-wait|--timeout)\s+\S+\s+|--(?!profile\b|max-wait\b|timeout\b)[\w-]+\s+)*emulator\s+`;

/** `lanyard … emulator start`: a server, left running while the rest of its block runs. */
export function isServer(text: string): boolean {
  const t = withoutComment(text);
  return new RegExp(`${EMULATOR_GROUP}start\\b`).test(t) && !t.endsWith('&');
}

/** Does the example steer the emulator's shared state (budgets, faults, clock, reset)? Its block runs alone. */
export function steersEmulator(text: string): boolean {
  return new RegExp(`${EMULATOR_GROUP}(?!info\\b|start\\b|service-account\\b|budgets\\b|fault\\s+list\\b)\\S`).test(withoutComment(text));
}

const MARK = '@@lanyard-example';

/**
 * Lines that ask the person at the terminal to type something: they run on a
 * pseudo-terminal (util-linux `script`), and once the prompt has appeared the
 * person types the answer (a shell word, expanded in the block's shell).
 */
const TYPED_AT_PROMPT: Array<{ line: RegExp; prompt: string; type: string }> = [
  { line: /^lanyard auth token create\b[^|<]*$/, prompt: 'Password for', type: '"$PASSWORD"' },
];

/** The line as run: in zsh when it is zsh's, on a pseudo-terminal when the person types at its prompt. */
function asRun(line: string, k: number): string {
  const typed = TYPED_AT_PROMPT.find((t) => t.line.test(withoutComment(line)));
  if (!typed) return inItsShell(line);
  const log = `.pty-${k}.log`;
  const waitForPrompt = `for i in $(seq 1 300); do grep -q '${typed.prompt}' ${log} 2>/dev/null && break; sleep 0.1; done`;
  return `(${waitForPrompt}; printf '%s\\n' ${typed.type}) | script -qfec '${line.replace(/'/g, "'\\''")}' ${log}`;
}

/** LANYARD_BROWSER of the examples: signs in on the emulator's pages as the person would. */
const PERSON_BROWSER = join(ROOT, 'test', 'e2e', 'person-browser.mjs');

/** A line in zsh's syntax (`${fpath[1]}`) runs in zsh, whose function path starts in the home directory as a user's .zshrc would set it. */
function inItsShell(line: string): string {
  if (!/\$\{?fpath\b/.test(line)) return line;
  return `zsh -fc 'fpath=("$HOME/.zfunc" $fpath); '${JSON.stringify(line).replace(/\$/g, '\\$')}`;
}

/** One bash script pasting the block's lines in order, each followed by a marker line with its exit status. */
export function script(lines: string[]): string {
  const out = ['exec 2>&1', 'set -o pipefail'];
  const servers: number[] = [];
  lines.forEach((line, k) => {
    out.push(`printf '\\n${MARK} ${k} start\\n'`);
    if (isServer(line)) {
      servers.push(k);
      out.push(
        `${withoutComment(line)} > .server-${k}.log 2>&1 &`,
        `server_${k}=$!`,
        `for i in $(seq 1 300); do grep -q 'listening on' .server-${k}.log && break; kill -0 $server_${k} 2>/dev/null || break; sleep 0.1; done`,
        `cat .server-${k}.log`,
        `kill -0 $server_${k} 2>/dev/null; printf '\\n${MARK} ${k} running %s\\n' "$?"`,
      );
    } else out.push(asRun(line, k), `printf '\\n${MARK} ${k} exit %s\\n' "$?"`);
  });
  for (const k of servers.reverse())
    out.push(
      `printf '\\n${MARK} ${k} start\\n'`,
      `kill -INT $server_${k} && wait $server_${k}; printf '\\n${MARK} ${k} exit %s\\n' "$?"`,
      `tail -n 3 .server-${k}.log`,
    );
  return `${out.join('\n')}\n`;
}

interface Outcome {
  example: Example;
  code?: number;
  output: string;
  problem?: string;
}

function shown(o: Outcome): string {
  const out = o.output.trim().split('\n');
  return `$ ${o.example.text}\n  (${o.example.source})\n  ${o.problem}\n${out
    .slice(0, 15)
    .map((l) => `    | ${l}`)
    .join('\n')}${out.length > 15 ? `\n    | … ${out.length - 15} more lines` : ''}`;
}

interface EmulatorInfo {
  url: string;
  hosting: { personalToken: string; users: Array<{ login: string; password: string }>; apps: Array<{ clientId: string; clientSecret: string }> };
  echo: {
    baseUrl: string;
    audience: string;
    apiKeys: Array<{ key: string }>;
    appPlatform: { projects: Array<{ id: string }>; users: Array<{ email: string; password: string }> };
  };
  protocol: { serverUrl: string; clients: Array<{ client_id: string; client_secret?: string; grant_types: string[] }> };
  mailbox: { apiUrl: string };
  health: { token: string; subscriptionId: string; user: { login: string; password: string } };
}

describe('every --help and README example runs against the emulator', () => {
  let world: World;
  let info: EmulatorInfo;
  let root: string;
  let binDir: string;
  let template: { config: string; work: string };
  let vars: Record<string, string>;
  let persons: Record<string, { login: string; password: string }>;

  const run = (args: string[], o: { cwd?: string; env?: Record<string, string>; input?: string } = {}) =>
    new Promise<{ code: number; out: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, ...args],
        { cwd: o.cwd, env: cleanEnv({ ...world.env, ...o.env }), timeout: 30_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      );
      child.stdin?.end(o.input ?? '');
    });
  const must = async (args: string[], o: Parameters<typeof run>[1] = {}) => {
    const r = await run(args, o);
    if (r.code !== 0) throw new Error(`set-up: lanyard ${args.join(' ')} exited ${r.code}: ${r.out}`);
    return r.out;
  };

  /** A message with parts 1.1 (text), 1.2 (html) and 2 (an image with a content id and a file name). */
  async function storeMessage(): Promise<string> {
    const res = await fetch(`${info.mailbox.apiUrl}/message`, { method: 'POST', headers: { 'content-type': 'message/rfc822' }, body: SAMPLE_MESSAGE });
    const body = (await res.json()) as { id?: string };
    if (!res.ok || !body.id) throw new Error(`set-up: storing a message answered ${res.status} ${JSON.stringify(body)}`);
    return body.id;
  }

  /** The working directory every block starts from: the files examples read. */
  async function makeWorkFiles(dir: string, tplEnv: Record<string, string>): Promise<void> {
    const work = (f: string) => join(dir, f);
    await Promise.all([
      must(['emulator', 'service-account', 'create', '--output', work('sa.json')], { env: tplEnv }),
      must(['emulator', 'service-account', 'create', '--scheme', 'default-service-account', '--output', work('default-sa.json')], { env: tplEnv }),
    ]);
    await writeFile(work('key.txt'), info.echo.apiKeys[0]!.key);
    // the private_key_jwt clients the examples name, registered at the emulator with their public keys
    for (const [id, file] of [
      ['svc', 'svc-key.pem'],
      ['ci-bot', 'ci-bot.pem'],
    ]) {
      const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      await world.admin('protocol/key-client', { client_id: id, public_key: pair.publicKey.export({ type: 'spki', format: 'pem' }) });
      await writeFile(work(file!), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    await writeFile(work('message.eml'), SAMPLE_MESSAGE);
    await writeFile(work('edited.eml'), SAMPLE_MESSAGE.replace('Subject: Logo', 'Subject: Logo (edited)'));
    for (const name of ['bulk-job.sh', 'deploy.sh']) {
      await writeFile(work(name), '#!/bin/sh\necho "$0 ran"\n');
      await chmod(work(name), 0o755);
    }
    selfSignedCert(dir);
  }

  beforeAll(async () => {
    world = await startWorld();
    root = await mkdtemp(join(tmpdir(), 'lanyard-examples-'));
    binDir = join(root, 'bin');
    await mkdir(binDir);
    await writeFile(join(binDir, 'lanyard'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(join(binDir, 'lanyard'), 0o755);
    info = (await world.admin('info', undefined, 'GET')) as EmulatorInfo;

    // The config directory every block starts from: profiles default (active), work and old-work on the emulator, signed in to each service.
    template = { config: join(root, 'config'), work: join(root, 'work') };
    await mkdir(template.config);
    const profile = JSON.parse(await readFile(join(world.configDir, 'config.json'), 'utf8')).profiles.emulator as Record<string, string>;
    const tplEnv = { LANYARD_CONFIG_DIR: template.config };
    await writeFile(
      join(template.config, 'config.json'),
      JSON.stringify({ profiles: Object.fromEntries(['default', 'work', 'old-work', 'emulator'].map((name) => [name, profile])) }, null, '\t'),
      { mode: 0o600 },
    );
    // The working directory's files are made beside the sign-ins below (they read the config, never write it).
    await mkdir(template.work);
    const workFiles = makeWorkFiles(template.work, tplEnv);
    workFiles.catch(() => {}); // its failure is reported where it is awaited below
    await must(['profile', 'use', 'default'], { env: tplEnv });
    await must(['auth', 'token', '--with-token'], { env: tplEnv, input: info.hosting.personalToken });
    await must(['echo', 'key', 'set'], { env: tplEnv, input: info.echo.apiKeys[0]!.key });
    const { openCredentialStore } = await import('../../src/core/credentials/open.js');
    const { saveHealthToken } = await import('../../src/core/health/token.js');
    const now = Date.now();
    // what `auth login --health` stores (its implicit flow needs a browser)
    await saveHealthToken(await openCredentialStore({ configDir: template.config, insecure: true }), profile['health.authUrl']!, {
      access_token: info.health.token,
      token_type: 'Bearer',
      expires_at: now + 3_599_000,
      client_id: profile['health.clientId'],
      obtained_at: now,
    });
    await world.admin('hosting/device-policy', { interval: 1 });
    persons = {
      hosting: { login: info.hosting.users[0]!.login, password: info.hosting.users[0]!.password },
      health: info.health.user,
      echo: { login: info.echo.appPlatform.users[0]!.email, password: info.echo.appPlatform.users[0]!.password },
    };
    const svc = info.protocol.clients.find((c) => c.grant_types.includes('client_credentials'))!;
    await must(['auth', 'login', '--server', info.protocol.serverUrl, '--client-id', svc.client_id, '--client-credentials'], {
      env: tplEnv,
      input: svc.client_secret,
    });

    await workFiles;

    const app = info.hosting.apps[0]!;
    vars = {
      TOKEN: info.hosting.personalToken,
      MY_TOKEN: info.hosting.personalToken,
      PASSWORD: info.hosting.users[0]!.password,
      CLIENT_SECRET: app.clientSecret,
      SECRET: svc.client_secret!,
      API_KEY: info.echo.apiKeys[0]!.key,
      HEALTH_TOKEN: info.health.token,
      SUB: info.health.subscriptionId,
      URL: info.echo.baseUrl,
    };
  }, 120_000);

  afterAll(async () => {
    await world?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /**
   * What the person at the terminal does while a block runs: enters each
   * one-time code it prints on the device page (the emulator's approval, as
   * mona), and opens each URL it asks to be opened (--no-browser) in the
   * stand-in browser.
   */
  function playThePerson(env: Record<string, string>): (output: string) => void {
    const done = new Set<string>();
    return (output) => {
      for (const m of output.matchAll(/one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})/g)) {
        if (done.has(m[1]!)) continue;
        done.add(m[1]!);
        void world.admin('hosting/device-approve', { user_code: m[1], login: info.hosting.users[0]!.login }).catch(() => {});
      }
      for (const m of output.matchAll(/^Open this URL in a browser to [^\n]*:\n {2}(\S+)$/gm)) {
        if (done.has(m[1]!)) continue;
        done.add(m[1]!);
        execFile(PERSON_BROWSER, [m[1]!], { env }, () => {});
      }
    };
  }

  async function runUnit(unit: Unit, n: number): Promise<Outcome[]> {
    const dir = join(root, `block-${n}`);
    const home = join(dir, 'home');
    const cwd = join(dir, 'cwd');
    const config = join(dir, 'config');
    const lines = unit.examples.map((e) => {
      let text = e.text;
      for (const [re, to] of PASTED_AGAINST_EMULATOR) text = text.replace(re, to(info));
      return text;
    });
    const all = lines.join('\n');
    await cp(template.config, config, { recursive: true });
    // files the block writes itself (`-o sa.json`, `> message.eml`) are not there before
    await cp(template.work, cwd, {
      recursive: true,
      filter: (src) => {
        const name = src.slice(template.work.length + 1);
        return !name || !new RegExp(`(?:-o|--output|>)\\s*(?:\\./)?${name.replace(/\./g, '\\.')}(?:\\s|$)`).test(all);
      },
    });
    await writeFile(join(cwd, 'body.json'), `${JSON.stringify({ name: `from-body-json-${n}` })}\n`);
    await mkdir(join(home, '.local/share/bash-completion/completions'), { recursive: true });
    await mkdir(join(home, '.config/fish/completions'), { recursive: true });
    await mkdir(join(home, '.zfunc'));
    // The reader's checkout that the directory-binding examples name (~/src/work); the blocks that remove a
    // binding, or say which one applies, find one there as after `profile use work --dir` and `auth switch --dir`.
    await mkdir(join(home, 'src', 'work'), { recursive: true });
    const prebind = /--dir ~\/src\/work/.test(all);
    const env = cleanEnv({
      ...vars,
      ID: /\$\{?ID\b/.test(all) ? await storeMessage() : undefined,
      PATH: `${binDir}:${process.env.PATH}`,
      HOME: home,
      LANYARD_CONFIG_DIR: config,
      LANYARD_STATE_DIR: join(dir, 'state'),
      LANYARD_CACHE_DIR: join(root, 'cache'),
      XDG_CONFIG_HOME: join(home, '.config'),
      GIT_CONFIG_NOSYSTEM: '1',
      LANYARD_BROWSER: PERSON_BROWSER,
      LANYARD_TEST_PERSONS: JSON.stringify(persons),
      CI: undefined,
    });
    if (prebind) {
      const bound = join(home, 'src', 'work');
      await must(['profile', 'use', 'work', '--dir', bound], { env: env as Record<string, string> });
      await must(['auth', 'switch', '--user', 'mona', '--dir', bound], { env: env as Record<string, string> });
    }
    const r = await new Promise<{ output: string; timedOut: boolean }>((resolve) => {
      const child = spawn('bash', ['-c', script(lines)], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let output = '';
      let timedOut = false;
      const person = playThePerson(env);
      const take = (c: Buffer) => {
        output += c.toString();
        person(output);
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {}
      }, blockTimeoutMs(lines.length));
      child.on('close', () => {
        clearTimeout(timer);
        resolve({ output, timedOut });
      });
    });
    await rm(dir, { recursive: true, force: true });
    // split the output at the markers
    const outcomes: Outcome[] = unit.examples.map((example) => ({ example, output: '' }));
    let current: Outcome | undefined;
    for (const l of r.output.split('\n')) {
      const m = new RegExp(`^${MARK} (\\d+) (start|exit|running) ?(\\d*)$`).exec(l);
      if (!m) {
        if (current) current.output += `${l}\n`;
        continue;
      }
      current = outcomes[Number(m[1])]!;
      if (m[2] === 'exit') current.code = Number(m[3]);
      if (m[2] === 'running' && m[3] !== '0') current.problem = 'the server did not keep running';
    }
    for (const o of outcomes) {
      if (o.problem) continue;
      if (o.code === undefined)
        o.problem = r.timedOut ? `did not end within ${blockTimeoutMs(unit.examples.length) / 1000} s (its block's limit)` : 'did not run';
      else if (o.code !== o.example.exit) o.problem = `exited ${o.code}, expected ${o.example.exit}`;
      else if (/unexpected error|^\s+at .+:\d+:\d+\)?$/m.test(o.output)) o.problem = 'printed an unexpected error or a stack trace';
    }
    return outcomes;
  }

  it('the check can fail: a wrong exit code, an unknown flag, a stack trace, a server that stops', { timeout: 120_000 }, async () => {
    const bad = (text: string, exit = 0): Example => ({ text, exit, source: 'self-test', block: 'self-test' });
    const outcomes = await runUnit(
      {
        block: 'self-test',
        examples: [
          bad('lanyard ratelimit status --nope'),
          bad('lanyard api /user   # exit 3', 3),
          bad(`node -e 'console.error(new Error("boom").stack)'`),
          bad('lanyard emulator start --port 0 --nope'),
          bad('lanyard api /user --jq .login'),
        ],
      },
      -1,
    );
    expect(outcomes.map((o) => o.problem)).toEqual([
      'exited 2, expected 0',
      'exited 0, expected 3',
      'printed an unexpected error or a stack trace',
      'the server did not keep running',
      undefined,
    ]);
    expect(outcomes[4]!.output.trim()).toBe('mona');
  });

  it('tells servers and emulator steering from the rest', () => {
    expect(isServer('lanyard emulator start --port 0   # first line: …')).toBe(true);
    expect(isServer('lanyard --profile emulator ratelimit status')).toBe(false);
    expect(steersEmulator('lanyard --profile emulator protocol request --method ping')).toBe(false);
    expect(steersEmulator('lanyard emulator fault list --json')).toBe(false);
    expect(steersEmulator('lanyard emulator budget --remaining 0 --anonymous')).toBe(true);
    expect(steersEmulator('lanyard --profile work emulator advance 1h')).toBe(true);
    expect(withoutComment(`lanyard api /user --template '{{ a }} # b'   # c`)).toBe(`lanyard api /user --template '{{ a }} # b'`);
  });

  it('a new example in a help text is picked up by itself', () => {
    const tree = makeProgram();
    examples(tree.program.command('brand-new').description('added today'), ['lanyard brand-new --fast'], LOCAL_EXITS);
    const picked = units([], helpExamples(tree)).flatMap((u) => u.examples);
    expect(picked).toContainEqual({ text: 'lanyard brand-new --fast', source: 'lanyard brand-new --help', block: 'lanyard brand-new --help', exit: 0 });
    expect(picked.length).toBe(units([]).flatMap((u) => u.examples).length + 1);
  });

  it('each example exits as shown', { timeout: 600_000 }, async () => {
    const all = units(manualExamples(ROOT));
    const skipped = all.flatMap((u) => u.examples).filter((e) => withoutComment(e.text) in SKIP);
    const runnable = all.map((u) => ({ ...u, examples: u.examples.filter((e) => !(withoutComment(e.text) in SKIP)) })).filter((u) => u.examples.length);
    const side = runnable.filter((u) => !u.examples.some((e) => steersEmulator(e.text)));
    const alone = runnable.filter((u) => u.examples.some((e) => steersEmulator(e.text)));
    const outcomes: Outcome[] = [];
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: POOL }, async () => {
        while (next < side.length) {
          const k = next++;
          outcomes.push(...(await runUnit(side[k]!, k)));
        }
      }),
    );
    const sideMs = Date.now() - started;
    for (const [k, u] of alone.entries()) {
      outcomes.push(...(await runUnit(u, side.length + k)));
      await world.admin('reset');
      await world.admin('hosting/device-policy', { interval: 1 });
    }
    const failed = outcomes.filter((o) => o.problem);
    console.log(
      `${outcomes.length} examples ran in ${runnable.length} blocks (${side.length} side by side in ${Math.round(sideMs / 1000)} s, ${alone.length} alone in ${Math.round((Date.now() - started - sideMs) / 1000)} s), ${failed.length} failed, ${skipped.length} skipped: ${skipped.map((e) => `${e.text} (${SKIP[withoutComment(e.text)]})`).join('; ')}`,
    );
    expect(failed.map(shown).join('\n\n')).toBe('');
  });
});

const SAMPLE_MESSAGE = [
  'From: Carol Reports <carol@example.com>',
  'To: alice@example.com',
  'Subject: Logo',
  'Date: Mon, 02 Nov 2026 09:00:00 +0000',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="outer"',
  '',
  '--outer',
  'Content-Type: multipart/alternative; boundary="inner"',
  '',
  '--inner',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'The new logo is attached.',
  '--inner',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>The new logo is attached.</p>',
  '--inner--',
  '--outer',
  'Content-Type: image/png; name="logo.png"',
  'Content-Disposition: attachment; filename="logo.png"',
  'Content-ID: <logo@example.com>',
  'Content-Transfer-Encoding: base64',
  '',
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  '--outer--',
  '',
].join('\r\n');
