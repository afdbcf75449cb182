/**
 * Credentials written to the 0600 file while the keychain could not be used
 * (no session bus: the Secret Service cannot answer) move into the keychain
 * once it works again — at the next write of any entry, or on `lanyard
 * doctor` — and not on a read. Real gnome-keyring under dbus-run-session.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP, credentialsFile, PERSONAL_TOKEN, useAuthWorld } from './auth-helpers.js';
import { inSecretService, LIST_KEYCHAIN, shellQuote as q, type World } from './harness.js';

let world: World;
let home: string;
useAuthWorld((w) => (world = w));
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'lanyard-keychain-move-'));
});
afterAll(async () => rm(home, { recursive: true, force: true }));
beforeEach(async () => rm(join(world.configDir, 'credentials.json'), { force: true }));

const inKeyringSession = (steps: string) => inSecretService(steps, { ...world.env, HOME: home }, '--profile emulator');
/** The CLI as it runs where the Secret Service cannot answer (no session bus): it falls back to the file, marking what it writes. */
const NO_BUS = 'DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/lanyard-no-bus';
const FILE_SHOWS = (label: string) => `echo "${label}=$(tr -d ' \\n' < ${q(join(world.configDir, 'credentials.json'))} 2>/dev/null)"`;

/** Mona's older token and an older echo key in the keychain; then, without the keychain, a newer token and key in the file. */
async function afterAFallback(): Promise<{ newer: string; steps: string[] }> {
  const newer = (await world.admin('hosting/issue-token', { login: 'mona', clientId: APP.clientId, scopes: ['repo'] })) as { access_token: string };
  await writeFile(join(home, 'older.txt'), `${PERSONAL_TOKEN}\n`);
  await writeFile(join(home, 'newer.txt'), `${newer.access_token}\n`);
  const steps = [
    `$LY auth token --with-token < ${q(join(home, 'older.txt'))} 2>/dev/null; echo "rc_older=$?"`,
    'printf %s older-echo-key-0001 | $LY echo key set 2>/dev/null; echo "rc_key_older=$?"',
    `${NO_BUS} $LY auth token --with-token < ${q(join(home, 'newer.txt'))} 2>/dev/null; echo "rc_newer=$?"`,
    `printf %s newer-echo-key-0002 | ${NO_BUS} $LY echo key set 2>/dev/null; echo "rc_key_newer=$?"`,
    FILE_SHOWS('FALLBACK'),
  ];
  return { newer: newer.access_token, steps };
}

const rcs = (out: string, names: string[]) => {
  for (const rc of names) expect(out, out).toContain(`${rc}=0`);
};
/** `echo key status` shows a key masked: its first and last characters. */
const masked = (label: string, key: string) => new RegExp(`^${label}=${key.slice(0, 4)}.*${key.slice(-4)}$`, 'm');

describe('the 0600 file’s copies from a fallback move into the keychain once it works again (real Secret Service)', () => {
  it('reads leave them in the file; the next write of another entry moves them all, and the newer copies stay the ones used', async () => {
    const { newer, steps } = await afterAFallback();
    const hubot = (await world.admin('hosting/issue-token', { login: 'hubot', clientId: APP.clientId, scopes: ['repo'] })) as { access_token: string };
    await writeFile(join(home, 'hubot.txt'), `${hubot.access_token}\n`);
    const r = inKeyringSession(
      [
        ...steps,
        // Reads: the file's newer copies are used, and stay where they are.
        'echo "TOKEN=$($LY auth token)"',
        `$LY auth status --json >/dev/null; echo "rc_status=$?"`,
        'echo "KEY=$($LY echo key status --json --jq .key)"',
        FILE_SHOWS('AFTER_READS'),
        // A write of another account: the keychain works, and takes what the file held since the fallback.
        `$LY auth token --with-token < ${q(join(home, 'hubot.txt'))} 2>/dev/null; echo "rc_hubot=$?"`,
        FILE_SHOWS('AFTER_WRITE'),
        LIST_KEYCHAIN,
        'echo "MONA=$($LY auth token --user mona)"',
        'echo "KEY_AFTER=$($LY echo key status --json --jq .key)"',
        `echo "SOURCE=$($LY echo key status --json --jq .source)"`,
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    rcs(r.stdout, ['rc_older', 'rc_key_older', 'rc_newer', 'rc_key_newer', 'rc_status', 'rc_hubot']);
    const fallback = /^FALLBACK=(.*)$/m.exec(r.stdout)?.[1] ?? '';
    expect(fallback).toContain(newer);
    expect(fallback).toContain('"lanyard:keychain-fallback"');
    expect(r.stdout).toContain(`TOKEN=${newer}`);
    expect(r.stdout).toMatch(masked('KEY', 'newer-echo-key-0002'));
    expect(/^AFTER_READS=(.*)$/m.exec(r.stdout)?.[1]).toBe(fallback);
    expect(r.stdout).toMatch(/^AFTER_WRITE=\{\}$/m);
    const host = new URL(world.url).host;
    const keychain = JSON.parse(/^KEYCHAIN=(.*)$/m.exec(r.stdout)?.[1] ?? '[]') as string[];
    expect(keychain).toEqual(expect.arrayContaining([`hosting:${host}:mona`, `hosting:${host}:hubot`, expect.stringMatching(/^echo:apikey:/)]));
    expect(r.stdout).toContain(`MONA=${newer}`);
    expect(r.stdout).toMatch(masked('KEY_AFTER', 'newer-echo-key-0002'));
    expect(r.stdout).toMatch(/^SOURCE=keychain$/m);
    expect(await credentialsFile(world)).toEqual({});
  });

  it('`lanyard doctor` moves them and says so; the next doctor has nothing to move', async () => {
    const { newer, steps } = await afterAFallback();
    const r = inKeyringSession(
      [
        ...steps,
        `$LY doctor --json --jq .keychain > ${q(join(home, 'doctor.json'))}; echo "rc_doctor=$?"`,
        `echo "DOCTOR=$(tr -d '\\n' < ${q(join(home, 'doctor.json'))})"`,
        FILE_SHOWS('AFTER_DOCTOR'),
        `echo "AGAIN=$($LY doctor --json --jq .keychain.summary)"`,
        'echo "TOKEN=$($LY auth token)"',
        'echo "KEY=$($LY echo key status --json --jq .key)"',
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    rcs(r.stdout, ['rc_older', 'rc_key_older', 'rc_newer', 'rc_key_newer']);
    // doctor's exit status is the services' (the profile's hosting service answers; others may be skipped): the keychain check is what counts here.
    const doctor = JSON.parse(/^DOCTOR=(.*)$/m.exec(r.stdout)?.[1] ?? 'null') as { status: string; summary: string };
    // The active login of the host, mona's token and the echo key.
    expect(doctor).toMatchObject({ status: 'ok', summary: expect.stringMatching(/reachable and unlocked; it took the 3 credentials written to a plain file/) });
    expect(r.stdout).toMatch(/^AFTER_DOCTOR=\{\}$/m);
    expect(r.stdout).toMatch(/^AGAIN=the OS keychain \(Secret Service\) is reachable and unlocked$/m);
    expect(r.stdout).toContain(`TOKEN=${newer}`);
    expect(r.stdout).toMatch(masked('KEY', 'newer-echo-key-0002'));
  });

  it('after a downgrade and an upgrade, a marked copy older than what the older release wrote to the keychain is removed, not moved over it', async () => {
    const { newer, steps } = await afterAFallback();
    const issue = async (login: string) =>
      ((await world.admin('hosting/issue-token', { login, clientId: APP.clientId, scopes: ['repo'] })) as { access_token: string }).access_token;
    const [newest, hubot] = [await issue('mona'), await issue('hubot')];
    await writeFile(join(home, 'hubot.txt'), `${hubot}\n`);
    const host = new URL(world.url).host;
    // What a release before the mark does on a sign-in: the record to the keychain, the file left as it is.
    const record = `JSON.stringify({ login: 'mona', token: ${JSON.stringify(newest)}, scopes: ['repo'], origin: 'pasted', createdAt: new Date().toISOString() })`;
    const olderRelease = `${process.execPath} -e ${q(
      `import('@napi-rs/keyring/keytar.js').then((m) => (m.default ?? m).setPassword('lanyard', ${JSON.stringify(`hosting:${host}:mona`)}, ${record}))`,
    )}`;
    const r = inKeyringSession(
      [
        ...steps,
        `${olderRelease}; echo "rc_downgraded=$?"`,
        // Upgraded again: the next write moves what the file holds, but not mona's stale copy over the keychain's newer one.
        `$LY auth token --with-token < ${q(join(home, 'hubot.txt'))} 2>/dev/null; echo "rc_hubot=$?"`,
        FILE_SHOWS('AFTER_WRITE'),
        'echo "MONA=$($LY auth token --user mona)"',
        'echo "KEY=$($LY echo key status --json --jq .key)"',
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    rcs(r.stdout, ['rc_older', 'rc_key_older', 'rc_newer', 'rc_key_newer', 'rc_downgraded', 'rc_hubot']);
    expect(/^FALLBACK=(.*)$/m.exec(r.stdout)?.[1]).toContain(newer);
    expect(r.stdout).toMatch(/^AFTER_WRITE=\{\}$/m);
    expect(r.stdout).toContain(`MONA=${newest}`);
    expect(r.stdout).toMatch(masked('KEY', 'newer-echo-key-0002'));
  });
});
