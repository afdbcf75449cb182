/**
 * `npm run demo`: a tour of Lanyard. Starts the embedded emulator in this
 * process (127.0.0.1, port 0), then runs the real CLI (`bin/lanyard.js`) as
 * separate processes over real HTTP, with an isolated temporary config
 * directory and no keychain, and shows each command, what it printed, its
 * exit code and what that means. Non-interactive: no TTY, no stdin needed.
 *
 * Secrets (seeded passwords, tokens, keys, the token the device flow obtains,
 * stored credentials, minted JWTs) are never printed: any output containing
 * one is masked and the step counts as failed. Exit 0 only when every step
 * behaved as expected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigStore } from '../core/config/store.js';
import type { ProfileSettings } from '../core/config/settings.js';
import { startEmulator } from '../emulator/server.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'lanyard.js');
const MAX_LINES = 14;
const STEP_TIMEOUT_MS = 30_000;
/** Seconds until the spent rate-limit budget resets: long enough for the two refusals before `--wait` (about a second; on a machine too slow for that, the `--wait` step passes without waiting, as its check allows). */
const RESET_IN_S = 4;

const out = (s = ''): void => void process.stdout.write(`${s}\n`);
const useColour = !!process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
const paint =
  (code: string) =>
  (s: string): string =>
    useColour ? `\x1b[${code}m${s}\x1b[0m` : s;
const bold = paint('1');
const dim = paint('2');
const green = paint('32');
const red = paint('31');

/* ------------------------------------------------------------------ secrets */

/** Every secret value the demo knows of; output containing one is masked and fails its step. */
class Secrets {
  private readonly values = new Set<string>();
  /** Shapes of credentials whose values the demo cannot know in advance (minted JWTs, hosting tokens). */
  /** Field names that hold secrets (fixtures, key files, stored credential records, admin answers). */
  static readonly KEYS =
    /^(password|token|personalToken|clientSecret|client_secret|secret|key|apiKey|private_key|privateKey|accessToken|access_token|refreshToken|refresh_token|idToken|id_token)$/i;
  private static readonly SHAPES = [
    /\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/g, // JWTs (echo schemes)
    /\bly[a-z]_[A-Za-z0-9_]{16,}/g, // hosting tokens
    /\bctx[a-z]{1,3}_[\w-]{16,}/g, // protocol tokens
    /\bemu-health-[\w-]{16,}/g, // health tokens
    /-----BEGIN [A-Z ]*PRIVATE KEY-----/g,
  ];

  add(v: unknown): void {
    if (typeof v === 'string' && v.length >= 6) this.values.add(v);
  }

  /** Walks a JSON value and adds every string under a secret-looking key. */
  collect(v: unknown, key = ''): void {
    if (Array.isArray(v)) for (const x of v) this.collect(x, key);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) this.collect(x, k);
    else if (typeof v === 'string' && Secrets.KEYS.test(key) && !/^https?:\/\//.test(v)) {
      this.add(v);
      // A PEM key: its base64 lines are secret on their own too.
      if (v.includes('PRIVATE KEY')) for (const line of v.split('\n')) if (line.length >= 40) this.add(line);
    }
  }

  /** Adds what the CLI stored in the file credential store (LANYARD_KEYCHAIN=off). */
  collectStored(configDir: string): void {
    const file = join(configDir, 'credentials.json');
    if (!existsSync(file)) return;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return;
    }
    const walk = (v: unknown, key: string): void => {
      if (typeof v === 'string') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(v);
        } catch {
          parsed = undefined;
        }
        if (parsed && typeof parsed === 'object') this.collect(parsed, key);
        else if (v.length >= 16) this.add(v); // a bare stored secret (an API key); short values are logins
      } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    walk(data, '');
  }

  /** Masks every known secret; says whether anything was masked. */
  mask(text: string): { text: string; leaked: boolean } {
    let leaked = false;
    let t = text;
    for (const s of [...this.values].sort((a, b) => b.length - a.length)) {
      if (t.includes(s)) {
        leaked = true;
        t = t.split(s).join('[SECRET MASKED BY THE DEMO]');
      }
    }
    for (const re of Secrets.SHAPES) {
      t = t.replace(re, () => {
        leaked = true;
        return '[SECRET MASKED BY THE DEMO]';
      });
    }
    return { text: t, leaked };
  }
}

/* -------------------------------------------------------------------- steps */

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

interface Step {
  /** Arguments of `lanyard`. */
  args: string[];
  /** What the demo shows before `lanyard` (env assignments, a pipe), secrets named, never given. */
  prefix?: string;
  /** Shown after the command (e.g. `| jq length`). */
  suffix?: string;
  env?: Record<string, string>;
  input?: string;
  expect: number;
  /** One line: what happened and why. */
  explain: string;
  /** Further checks of a result; returns what is wrong, if anything. */
  check?: (r: Result) => string | undefined;
  /** Runs while the process is running (e.g. answering the device flow as the user). */
  during?: (child: ChildProcess, stderrSoFar: () => string) => Promise<string | undefined>;
  /** Replaces the display of stdout (e.g. a count of a piped JSON array). */
  showStdout?: (stdout: string) => string;
  timeoutMs?: number;
}

const shellQuote = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

function indent(text: string, label: string): string[] {
  const lines = text.replace(/\r/g, '').replace(/\n$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return [];
  const shown = lines.length > MAX_LINES ? lines.slice(0, MAX_LINES - 1) : lines;
  const res = shown.map((l) => `    ${dim(label)} ${l.replace(/\t/g, '  ')}`);
  if (shown.length < lines.length) res.push(`    ${dim(label)} ${dim(`… ${lines.length - shown.length} more lines`)}`);
  return res;
}

class Tour {
  private n = 0;
  private failed: string[] = [];
  /** Warning lines (`! …`) already shown; repeats are hidden to keep the tour readable. */
  private readonly warnings = new Set<string>();

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly secrets: Secrets,
    private readonly configDir: string,
  ) {}

  section(title: string, intro: string): void {
    out();
    out(bold(`== ${title} ${'='.repeat(Math.max(3, 72 - title.length))}`));
    out(dim(intro));
  }

  /** A remark of the demo itself (between steps: after a blank line). */
  note(text: string, betweenSteps = true): void {
    if (betweenSteps) out();
    out(dim(`  (${text})`));
  }

  async step(s: Step): Promise<Result> {
    this.n++;
    const shown = [s.prefix, 'lanyard', ...s.args.map(shellQuote), s.suffix].filter(Boolean).join(' ');
    out();
    out(`${dim(`[${this.n}]`)} ${bold(`$ ${shown}`)}`);
    const r = await run(s.args, { env: { ...this.env, ...s.env }, input: s.input, timeoutMs: s.timeoutMs ?? STEP_TIMEOUT_MS, during: s.during });
    this.secrets.collectStored(this.configDir);
    const problems: string[] = [];
    if (r.duringProblem) problems.push(r.duringProblem);
    const so = this.secrets.mask(r.stdout);
    const se = this.secrets.mask(r.stderr);
    if (so.leaked || se.leaked) problems.push('printed a secret (masked above)');
    for (const l of indent(s.showStdout && !so.leaked ? s.showStdout(r.stdout) : so.text, 'out |')) out(l);
    let hidden = 0;
    const stderrShown = se.text
      .split('\n')
      .filter((l) => {
        if (!l.startsWith('! ') || !this.warnings.has(l)) return this.warnings.add(l.startsWith('! ') ? l : ''), true;
        hidden++;
        return false;
      })
      .join('\n');
    for (const l of indent(stderrShown, 'err |')) out(l);
    if (hidden) out(`    ${dim(`err | (${hidden} warning line${hidden > 1 ? 's' : ''} shown before, hidden)`)}`);
    if (r.code !== s.expect) problems.push(`exit ${r.code}, expected ${s.expect}`);
    else {
      let extra: string | undefined;
      try {
        extra = s.check?.(r);
      } catch (err) {
        extra = `unexpected output (${(err as Error).message})`;
      }
      if (extra) problems.push(extra);
    }
    const secs = (r.ms / 1000).toFixed(1);
    if (problems.length === 0) {
      out(`  ${green('ok')}  exit ${r.code}${s.expect !== 0 ? ' (as expected)' : ''}, ${secs} s: ${s.explain}`);
    } else {
      out(`  ${red('NOT AS EXPECTED')}  exit ${r.code}, ${secs} s: ${problems.join('; ')}`);
      out(`      ${dim(`expected: ${s.explain}`)}`);
      this.failed.push(`[${this.n}] lanyard ${s.args.join(' ')}: ${problems.join('; ')}`);
    }
    return r;
  }

  summary(): boolean {
    const ok = this.n - this.failed.length;
    out();
    out(bold(`${ok} of ${this.n} steps as expected.`));
    for (const f of this.failed) out(red(`  not as expected: ${f}`));
    return this.failed.length === 0;
  }
}

/** Runs lanyard without blocking this process (the emulator answers from this event loop). */
function run(
  args: string[],
  o: { env: NodeJS.ProcessEnv; input?: string; timeoutMs: number; during?: Step['during'] },
): Promise<Result & { duringProblem?: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let duringProblem: string | undefined;
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeoutMs);
    const during = o
      .during?.(child, () => stderr)
      .then(
        (p) => void (duringProblem = p),
        (err: unknown) => void (duringProblem = `while the command ran: ${(err as Error).message}`),
      );
    child.on('error', reject);
    child.on('close', async (code) => {
      clearTimeout(timer);
      await during;
      if (timedOut) duringProblem = `killed after ${o.timeoutMs / 1000} s without finishing`;
      resolve({ code, stdout, stderr, ms: performance.now() - started, duringProblem });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.input ?? '');
  });
}

/* --------------------------------------------------------------- emulator */

type Info = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function http(method: string, url: string, body?: Record<string, string> | object, headers: Record<string, string> = {}): Promise<Response> {
  const form = body && headers['content-type'] === 'application/x-www-form-urlencoded';
  return fetch(url, {
    method,
    headers: body && !form ? { 'content-type': 'application/json', ...headers } : headers,
    body: body === undefined ? undefined : form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
    redirect: 'manual',
  });
}

/**
 * Plays the user on the emulator's device page, over HTTP as a browser would:
 * sign in and enter the code (POST /login/device), then press Authorize
 * (POST /login/device/authorize) with the session cookie.
 */
async function approveOnDevicePage(webUrl: string, login: string, password: string, userCode: string): Promise<string> {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const page = await http('POST', `${webUrl}/login/device`, { login, password, user_code: userCode }, form);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('id="authorize"')) throw new Error(`the device page answered ${page.status} without an Authorize button`);
  const cookie = (page.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const done = await http('POST', `${webUrl}/login/device/authorize`, { user_code: userCode, authorize: '1' }, { ...form, cookie });
  const text = await done.text();
  if (done.status !== 200 || !text.includes('id="done"')) throw new Error(`authorizing answered ${done.status}`);
  return `signed in on ${webUrl}/login/device as ${login}, entered ${userCode}, pressed Authorize`;
}

/** Environment of the children: nothing of the developer's own Lanyard settings or tokens. */
function childEnv(configDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith('LANYARD_') || k === 'WORKFLOW_TOKEN' || k === 'BROWSER' || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  return { ...env, LANYARD_CONFIG_DIR: configDir, LANYARD_KEYCHAIN: 'off', LANYARD_BROWSER: 'true', NO_COLOR: '1' };
}

/* --------------------------------------------------------------------- tour */

const SAMPLE_MESSAGE = [
  'From: Demo Sender <sender@example.com>',
  'To: Alice <alice@example.com>',
  'Subject: Hello from the Lanyard demo',
  'Date: Sun, 22 Nov 2026 09:00:00 +0000',
  'Message-ID: <demo-1@lanyard.example>',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'This message was stored by `lanyard mailbox store` from stdin.',
  '',
].join('\r\n');

async function tour(t: Tour, info: Info, workDir: string): Promise<void> {
  await setupSection(t, info);
  await hostingSignIn(t, info);
  await hostingBudget(t);
  await echoSection(t, info, workDir);
  await protocolSection(t, info);
  await mailboxSection(t);
  await healthSection(t, info);
  await credentialsSection(t, info);
}

/** The emulator profile selected, and what it holds. */
async function setupSection(t: Tour, info: Info): Promise<void> {
  t.section(
    'Setup',
    `The emulator runs inside this process at ${info.url}; the profile "emulator" points every service at it.\nEach step below is a separate \`lanyard\` process (config in a fresh temporary directory, no keychain).`,
  );
  await t.step({
    args: ['profile', 'use', 'emulator'],
    expect: 0,
    explain: 'every following command uses the emulator profile (no --profile needed)',
  });
  await t.step({
    args: ['config', 'list'],
    expect: 0,
    explain: 'the endpoints of all five services, as `lanyard emulator start` would register them; no secret is ever in this file',
    check: (r) => (r.stdout.includes(`hosting.apiUrl=${info.hosting.apiUrl}`) ? undefined : 'hosting.apiUrl is not the emulator'),
  });
}

/** Hosting, part 1: nobody signed in, the device flow (the demo plays the user in a browser), then the token used. */
async function hostingSignIn(t: Tour, info: Info): Promise<void> {
  const hosting = info.hosting;
  const mona = (hosting.users as { login: string; password: string }[]).find((u) => u.login === 'mona')!;

  t.section(
    '1. Hosting: sign in, call the API, watch the rate-limit budget',
    'Device-flow sign-in (what a user on a headless machine does), then the token is used for everything.',
  );
  await t.step({
    args: ['auth', 'status'],
    expect: 4,
    explain: 'nobody is signed in yet, so `auth status` exits 4 (authentication needed); scripts can test this',
  });
  const policy = await http('POST', `${info.url}/_emulator/hosting/device-policy`, { interval: 1 });
  if (!policy.ok) throw new Error(`POST /_emulator/hosting/device-policy answered ${policy.status}`);
  t.note(
    'emulator knob, to keep the demo short: new device codes ask clients to poll every 1 s instead of 5 s (POST /_emulator/hosting/device-policy, also `lanyard emulator admin hosting device-policy`)',
  );
  let userCode = '';
  await t.step({
    args: ['auth', 'device', '--no-browser'],
    expect: 0,
    explain: `the CLI showed a one-time code, polled the token endpoint while "${mona.login}" approved it on the device page, then stored the token (file store: LANYARD_KEYCHAIN=off)`,
    during: async (child, stderr) => {
      for (let i = 0; i < 200 && !/one-time code: \S+/.test(stderr()); i++) {
        if (child.exitCode !== null) return 'exited before showing a code';
        await new Promise((r) => setTimeout(r, 50));
      }
      userCode = /one-time code: (\S+)/.exec(stderr())?.[1] ?? '';
      if (!userCode) return 'no one-time code on stderr';
      const did = await approveOnDevicePage(hosting.webUrl, mona.login, mona.password, userCode);
      t.note(`meanwhile, the demo played the user in a browser: ${did}`, false);
      return undefined;
    },
    check: (r) => (/Logged in as mona/.test(r.stderr) ? undefined : 'no "Logged in as mona"'),
  });
  // The token the device flow obtained must never be printed from now on.
  const tokens = (await (await http('POST', `${info.url}/_emulator/hosting/tokens`, { login: 'mona' })).json()) as { tokens: { value: string }[] };
  for (const tk of tokens.tokens) t.secrets.add(tk.value);
  await t.step({
    args: ['auth', 'status'],
    expect: 0,
    explain: 'the stored account is valid (checked with GET /user); the token is shown masked',
    check: (r) => (/mona/.test(r.stdout + r.stderr) ? undefined : 'mona is not listed'),
  });
  await t.step({
    args: ['api', '/user'],
    expect: 0,
    explain: 'a generic authenticated call: the stored token is injected as Authorization: Bearer, never on the command line',
    check: (r) => (/"login":\s*"mona"/.test(r.stdout) ? undefined : 'the body does not say login "mona"'),
  });
}

/** Hosting, part 2: the rate-limit budget checked, spent (an emulator knob), refused with exit 3, then waited for. */
async function hostingBudget(t: Tour): Promise<void> {
  await t.step({
    args: ['ratelimit', 'status', '--resource', 'core'],
    expect: 0,
    explain: "resource, limit, used, remaining, reset: mona's hourly budget (5,000 per user, shared by all her tokens); GET /rate_limit costs nothing",
  });
  await t.step({
    args: ['ratelimit', 'status', '--resource', 'core', '--fail-under', '100', '--json'],
    expect: 0,
    explain: 'CI budget check: at least 100 requests left, so exit 0 and the job may go on',
    check: (r) => ((JSON.parse(r.stdout) as { resources: { core: { remaining: number } } }).resources.core.remaining >= 100 ? undefined : 'remaining < 100'),
  });
  let resetAt = 0;
  await t.step({
    args: ['emulator', 'budget', '--user', 'mona', '--remaining', '0', '--reset-in', `${RESET_IN_S}s`],
    expect: 0,
    explain: `emulator knob: mona's core budget is spent, and the window resets in ${RESET_IN_S} s`,
    check: (r) => void (resetAt = Date.now() - r.ms + RESET_IN_S * 1000),
  });
  await t.step({
    args: ['ratelimit', 'status', '--resource', 'core', '--fail-under', '100'],
    expect: 3,
    explain: 'the same CI check now fails with exit 3 (rate limit / budget) and says when the budget resets',
    check: (r) => (/budget check failed/.test(r.stderr) ? undefined : 'no "budget check failed" on stderr'),
  });
  await t.step({
    args: ['api', '/user'],
    expect: 3,
    explain: 'the server answers 403 with remaining 0: Lanyard does not retry before the reset, exits 3 and suggests --wait',
  });
  await t.step({
    args: ['--wait', 'api', '/user', '--silent'],
    expect: 0,
    explain: 'with --wait the same call sleeps until x-ratelimit-reset (computed from the server Date header) and then succeeds',
    // Exit 0 before the reset is only possible by waiting; after it, no wait was needed (a very slow machine).
    // In CI (CI=true) the wait is announced as a JSON event line instead of a sentence.
    check: (r) => (/waiting|"event":"rate_limit_wait"/.test(r.stderr) || Date.now() - r.ms >= resetAt ? undefined : 'it did not say it was waiting'),
  });
}

/** Echo: an API key from stdin, then a self-signed service-account JWT. */
async function echoSection(t: Tour, info: Info, workDir: string): Promise<void> {
  t.section(
    '2. Echo API: an API key and a self-signed service-account JWT',
    'The API key comes from stdin (never argv); the JWT is minted locally from a key file.',
  );
  const apiKey = String(info.echo.apiKeys[0].key);
  await t.step({
    prefix: 'printf %s "$ECHO_API_KEY" |',
    args: ['echo', 'key', 'set'],
    input: apiKey,
    expect: 0,
    explain: 'the seeded API key (from GET /_emulator/info) is read from stdin and stored in the credential store',
  });
  await t.step({
    args: ['echo', 'key', 'status'],
    expect: 0,
    explain: 'where the key comes from, masked',
  });
  await t.step({
    args: ['echo', 'send', 'hello from the Lanyard demo'],
    expect: 0,
    explain: 'POST /echo with the key as query parameter `key` (redacted in --debug traces)',
    check: (r) => (r.stdout.includes('hello from the Lanyard demo') ? undefined : 'the message did not come back'),
  });
  const saFile = join(workDir, 'vendor-jwt-sa.json');
  await t.step({
    args: ['emulator', 'service-account', 'create', '--scheme', 'vendor-jwt', '--output', saFile],
    expect: 0,
    explain: 'the emulator creates a key for the vendor-jwt account and writes its key file (mode 0600); the private key is not printed',
    check: () => (existsSync(saFile) ? undefined : 'no key file written'),
  });
  if (existsSync(saFile)) t.secrets.collect(JSON.parse(readFileSync(saFile, 'utf8')));
  await t.step({
    args: ['echo', 'auth-info', '--scheme', 'vendor-jwt', '--credentials', saFile],
    expect: 0,
    explain: 'an RS256 JWT signed with that key is checked by the gateway (issuer, audience, JWKS) and GET /auth/info/vendorjwt answers who we are',
    check: (r) => (r.stdout.includes('jwt-client@') ? undefined : 'the account e-mail is not in the answer'),
  });
}

/** The context-protocol server: client credentials found by discovery, then a tool call with the stored token. */
async function protocolSection(t: Tour, info: Info): Promise<void> {
  t.section(
    '3. Context-protocol server: OAuth 2.1 client credentials, then JSON-RPC',
    'Discovery (RFC 9728 + RFC 8414) and the client-credentials grant, no browser; the secret comes from the environment.',
  );
  const service = (info.protocol.clients as { client_id: string; client_secret?: string; grant_types: string[] }[]).find((c) =>
    c.grant_types.includes('client_credentials'),
  )!;
  const secretEnv = { LANYARD_CLIENT_SECRET: String(service.client_secret) };
  await t.step({
    prefix: 'LANYARD_CLIENT_SECRET="$CTX_SERVICE_SECRET"',
    args: ['protocol', 'request', '--client-id', service.client_id, '--client-credentials', '--method', 'tools/list'],
    env: secretEnv,
    expect: 0,
    explain: 'the first request got 401; Lanyard discovered the authorization server, got a token with client_credentials, stored it and retried once',
    check: (r) => (r.stdout.includes('echo') ? undefined : 'the tool list does not mention the echo tool'),
  });
  await t.step({
    args: ['protocol', 'request', '--method', 'tools/call', '--params', '{"name":"echo","arguments":{"text":"hi from the demo"}}'],
    expect: 0,
    explain: 'the stored token is reused (no new sign-in); tools/call answers with the echoed text',
    check: (r) => (r.stdout.includes('hi from the demo') ? undefined : 'the text did not come back'),
  });
}

/** Mailbox: a message stored from stdin, listed, read, labelled, downloaded and deleted. */
async function mailboxSection(t: Tour): Promise<void> {
  t.section('4. Mailbox: store, list, read, label, download, delete', 'A mail store REST API without authentication; the message comes from stdin.');
  let id = '';
  await t.step({
    prefix: 'printf "$MESSAGE" |',
    args: ['mailbox', 'store', '-', '--label', '1', '--json'],
    input: SAMPLE_MESSAGE,
    expect: 0,
    explain: 'the raw RFC 5322 message is streamed up; the store answers with a new time-based UUID',
    check: (r) => {
      try {
        id = String((JSON.parse(r.stdout) as { id: string }).id);
      } catch {
        return 'no JSON id';
      }
      return /^[0-9a-f-]{36}$/.test(id) ? undefined : `not a UUID: ${id}`;
    },
  });
  const uuid = id || '00000000-0000-1000-8000-000000000000';
  await t.step({
    args: ['mailbox', 'list', '--metadata'],
    expect: 0,
    explain: 'newest first: our message and the three seeded ones (tab-separated when piped; a table on a terminal)',
    check: (r) => (r.stdout.includes(uuid) ? undefined : 'the new message is not listed'),
  });
  await t.step({
    args: ['mailbox', 'get', uuid],
    expect: 0,
    explain: 'the parsed message: headers, labels, markers and the text body',
    check: (r) => (r.stdout.includes('Hello from the Lanyard demo') ? undefined : 'the subject is missing'),
  });
  await t.step({
    args: ['mailbox', 'label', uuid, '--add', '4', '--add-marker', 'seen', '--json'],
    expect: 0,
    explain: 'label 4 and the SEEN marker added in one PUT',
  });
  await t.step({
    args: ['mailbox', 'raw', uuid],
    expect: 0,
    explain: 'the original RFC 5322 bytes, streamed to stdout',
    check: (r) => (r.stdout.includes('stored by `lanyard mailbox store` from stdin') ? undefined : 'the body is not the one stored'),
  });
  await t.step({
    args: ['mailbox', 'delete', uuid],
    expect: 0,
    explain: 'removed from every label (it stays readable by id until the store purges it)',
  });
  await t.step({
    args: ['mailbox', 'list'],
    expect: 0,
    explain: 'one id per line when piped: the deleted message is gone from label 0',
    check: (r) => (r.stdout.includes(uuid) ? 'the deleted message is still listed' : undefined),
  });
}

/** The token of the health service for scripts, in the environment (never on the command line). */
const healthEnvOf = (info: Info) => ({ LANYARD_HEALTH_TOKEN: String(info.health.token) });

/** Service health: refused without a token, then events with the token from the environment. */
async function healthSection(t: Tour, info: Info): Promise<void> {
  const healthEnv = healthEnvOf(info);
  t.section(
    '5. Service health: events of a subscription',
    'CI style: the token comes from LANYARD_HEALTH_TOKEN (a long-lived token the emulator seeds for scripts).',
  );
  await t.step({
    args: ['health', 'events'],
    expect: 4,
    explain: 'no health token stored and none in the environment: exit 4 (authentication needed) before any request',
  });
  await t.step({
    prefix: 'LANYARD_HEALTH_TOKEN="$HEALTH_TOKEN"',
    args: ['health', 'events', '--service', 'Virtual Machines'],
    env: healthEnv,
    expect: 0,
    explain: "first page of the last 3 days, filtered server-side with $filter=service eq 'Virtual Machines'",
  });
  await t.step({
    prefix: 'LANYARD_HEALTH_TOKEN="$HEALTH_TOKEN"',
    args: ['health', 'events', '--all', '--json'],
    suffix: '  # stdout piped into the demo, which counts the array',
    env: healthEnv,
    expect: 0,
    explain: 'every page followed through nextLink; the JSON array is for scripts (here only counted)',
    showStdout: (s) => {
      try {
        const events = JSON.parse(s) as { properties?: { status?: string } }[];
        const active = events.filter((e) => e.properties?.status === 'Active').length;
        return `${events.length} events (${active} active)`;
      } catch {
        return s;
      }
    },
    check: (r) => {
      try {
        return (JSON.parse(r.stdout) as unknown[]).length > 10 ? undefined : 'not more than one page of events';
      } catch {
        return 'stdout is not a JSON array';
      }
    },
  });
}

/** Every credential of the tour, masked. */
async function credentialsSection(t: Tour, info: Info): Promise<void> {
  t.section('All credentials at a glance', 'Hosting, echo, protocol and health credentials, all masked.');
  await t.step({
    prefix: 'LANYARD_HEALTH_TOKEN="$HEALTH_TOKEN"',
    args: ['auth', 'status'],
    env: healthEnvOf(info),
    expect: 0,
    explain: 'one line per credential with its source and validity; tokens masked (--show-token would reveal them)',
  });
}

async function main(): Promise<void> {
  const began = performance.now();
  const workDir = mkdtempSync(join(tmpdir(), 'lanyard-demo-'));
  // `npm run demo | head`: stop quietly when the reader goes away.
  process.stdout.on('error', () => {
    rmSync(workDir, { recursive: true, force: true });
    process.exit(1);
  });
  // Ctrl-C reaches the lanyard child too (same process group); clean up and exit 130.
  process.once('SIGINT', () => {
    rmSync(workDir, { recursive: true, force: true });
    process.exit(130);
  });
  const configDir = join(workDir, 'config');
  const emu = await startEmulator({ port: 0, host: '127.0.0.1', dataDir: join(workDir, 'emulator') });
  let ok = false;
  try {
    const info = (await (await fetch(`${emu.url}/_emulator/info`)).json()) as Info;
    const secrets = new Secrets();
    secrets.collect(info);
    // Register the "emulator" profile as `lanyard emulator start` does.
    const settings: ProfileSettings = {};
    for (const s of emu.services) Object.assign(settings, (s.info?.().profile as ProfileSettings | undefined) ?? {});
    await (await ConfigStore.open({ dir: configDir })).putProfile('emulator', settings);

    out(bold('Lanyard demo'));
    out(`Emulator: ${emu.url} (in this process)   config: ${configDir}   keychain: off`);
    out(dim('Secrets are never shown: commands name them as $VARIABLES, and the demo masks (and fails) any output that contains one.'));
    const t = new Tour(childEnv(configDir), secrets, configDir);
    await tour(t, info, workDir);
    ok = t.summary();
  } catch (err) {
    out(red(`The demo stopped: ${(err as Error).message}`));
  } finally {
    await emu.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  out(dim(`Finished in ${((performance.now() - began) / 1000).toFixed(1)} s.`));
  if (!ok) process.exitCode = 1;
}

await main();
