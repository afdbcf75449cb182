/**
 * A Secret Service that accepts the D-Bus connection and never answers (a
 * frozen gnome-keyring: SIGSTOP), and a locked one: every command finishes
 * promptly, falls back to the 0600 file with a warning, and gives its answer.
 * Real gnome-keyring under its own dbus-run-session.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, collect, ROOT } from '../e2e/harness.js';
import { hostileWorld, type HostileWorld } from './hostile.js';

let w: HostileWorld;
let home: string;
beforeAll(async () => {
  w = await hostileWorld();
  home = await mkdtemp(join(tmpdir(), 'lanyard-fault-keyring-'));
  w.server.handle((req, res) => {
    if (req.url === '/api/v3/user') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-oauth-scopes': 'repo' });
      res.end(JSON.stringify({ login: 'mona', id: 1 }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"message":"Not Found"}');
    }
  });
});
afterAll(async () => {
  await w.close();
  await rm(home, { recursive: true, force: true });
});

const TOKEN = 'keyring-fault-token-000000000001';
/** The pid of the process that owns org.freedesktop.secrets on this session bus. */
const DAEMON_PID =
  "dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '/uint32/{print $2}'";

/** Runs `steps` (sh) in a private session bus; `$LY` is the CLI; `step NAME cmd…` records its exit code and seconds. */
async function inSession(setup: string, steps: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const script = [
    setup,
    `LY="${process.execPath} ${BIN}"`,
    // A command that does not finish within 30 s is killed (exit 124): the test fails on it.
    'step() { name=$1; shift; s=$(date +%s); timeout 30 "$@"; rc=$?; echo; echo "$name rc=$rc secs=$(( $(date +%s) - s ))"; }',
    steps,
  ].join('\n');
  const env = cleanEnv({
    LANYARD_CONFIG_DIR: w.configDir,
    LANYARD_KEYCHAIN: undefined,
    LANYARD_KEYCHAIN_TIMEOUT_MS: '1500',
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_RUNTIME_DIR: home,
    KEYRING_PASSWORD: 'fault-keyring-password',
    TOKEN,
  });
  // Not spawnSync: the hostile server answers from this process's event loop.
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child);
}

function rcOf(out: string, name: string): number {
  const m = new RegExp(`^${name} rc=(\\d+) secs=(\\d+)$`, 'm').exec(out);
  if (!m) throw new Error(`no result for ${name} in:\n${out}`);
  return Number(m[1]);
}

describe.sequential('a wedged Secret Service (accepts the connection, never answers)', () => {
  it('token write, token read and an API call each finish, fall back to the 0600 file and give their answer', async () => {
    const r = await inSession(
      [
        'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97',
        // The daemon takes the name a moment after it starts.
        `for i in $(seq 50); do PID=$(${DAEMON_PID} 2>/dev/null); [ -n "$PID" ] && break; sleep 0.1; done; [ -n "$PID" ] || exit 98`,
        'kill -STOP "$PID"',
      ].join('\n'),
      [
        'printf %s "$TOKEN" | step write $LY auth token --with-token',
        'echo "TOKEN=$(step read $LY auth token)"',
        'step api $LY api /user',
        'kill -CONT "$PID"',
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(rcOf(r.stdout, 'write'), r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`TOKEN=${TOKEN}\\s*read rc=0`));
    expect(rcOf(r.stdout, 'api'), r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('"login":"mona"');
    expect(r.stderr).toMatch(/keychain is unavailable \(the Secret Service did not answer within 1500 ms\)/);
  });
});

describe.sequential('a locked Secret Service (a keyring that needs a password no one can type)', () => {
  it('finishes, falls back to the 0600 file and gives the answer', async () => {
    // First session: create the login keyring with a password; second: start it locked.
    const created = await inSession(
      'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97',
      `${process.execPath} -e "import('@napi-rs/keyring/keytar.js').then(async (m) => { const k = m.default ?? m; await k.setPassword('lanyard-fault', 'x', 'y'); })"`,
    );
    expect(created.status, created.stderr).toBe(0);
    const r = await inSession(
      'gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1 || exit 97',
      ['printf %s "$TOKEN" | step write $LY auth token --with-token', 'echo "TOKEN=$(step read $LY auth token)"', 'step api $LY api /user'].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(rcOf(r.stdout, 'write'), r.stdout + r.stderr).toBe(0);
    expect(r.stdout, r.stderr).toMatch(new RegExp(`TOKEN=${TOKEN}\\s*read rc=0`));
    expect(rcOf(r.stdout, 'api'), r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('"login":"mona"');
  });
});
