/**
 * The storage line of `auth status` says where the listed tokens are. A
 * Secret Service with no login collection (gnome-keyring started without a
 * password, as on a headless machine) answers the probe but refuses the
 * write: `auth token` stores the token in the 0600 file instead, and
 * `auth status` must then name the file, not "the OS keychain".
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inSecretService, type World } from './harness.js';
import { PERSONAL_TOKEN, useAuthWorld } from './auth-helpers.js';

let world: World;
useAuthWorld((w) => (world = w));
const homes: string[] = [];
afterEach(async () => Promise.all(homes.splice(0).map((h) => rm(h, { recursive: true, force: true }))));

/** `steps` in a private D-Bus session whose gnome-keyring has no login collection; a HOME of its own, the token in `$HOME/token.txt`. */
async function inBareKeyring(steps: string[]) {
  const home = await mkdtemp(join(tmpdir(), 'lanyard-nocollection-home-'));
  homes.push(home);
  await writeFile(join(home, 'token.txt'), `${PERSONAL_TOKEN}\n`);
  const r = inSecretService(steps.join('\n'), { ...world.env, HOME: home }, '--profile emulator', { noCollection: true });
  return r;
}

describe('auth status: the storage line', () => {
  it('a keychain that refused the write: the token is in the 0600 file, and the line says so', async () => {
    const r = await inBareKeyring([
      '$LY auth token --with-token < "$HOME/token.txt"; echo "rc_store=$?"',
      '$LY auth status; echo "rc_status=$?"',
      '$LY auth status --json > "$HOME/status.json"; echo "rc_json=$?"',
      'cat "$HOME/status.json"',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('rc_store=0');
    expect(r.stderr).toMatch(/instead of the OS keychain/);
    expect(r.stdout).toContain('rc_status=0');
    expect(r.stdout).toMatch(/\tmona \(active\)\tfile\t/);
    expect(r.stderr).not.toMatch(/Hosting tokens are stored in the OS keychain/);
    expect(r.stderr).toMatch(/Hosting tokens are stored in \S+credentials\.json \(mode 0600\)\./);
    const json = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { storage: { kind: string; path?: string } };
    expect(json.storage).toMatchObject({ kind: 'file', path: expect.stringMatching(/credentials\.json$/) });
  });

  it('some tokens in the keychain, some in the file: the line names both', async () => {
    const r = await inBareKeyring([
      '$LY auth token --with-token < "$HOME/token.txt" 2>/dev/null; echo "rc_store=$?"',
      // The keychain gets its login collection: the next sign-in is stored there.
      'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1; sleep 0.5',
      'printf %s hubot-emulator-password | $LY auth token create --user hubot --note second; echo "rc_second=$?"',
      '$LY auth status; echo "rc_status=$?"',
    ]);
    expect(r.stdout).toContain('rc_store=0');
    expect(r.stdout).toContain('rc_second=0');
    expect(r.stdout).toMatch(/\tmona\tfile\t/);
    expect(r.stdout).toMatch(/\thubot \(active\)\tkeychain\t/);
    expect(r.stderr).toMatch(/Hosting tokens are stored in the OS keychain, those whose source is "file" in \S+credentials\.json \(mode 0600\)\./);
  });
});
