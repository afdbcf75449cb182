/**
 * Token storage for real: the OS keychain through a real Secret Service
 * (gnome-keyring under its own D-Bus session, unlocked with a password on
 * stdin), the 0600 file fallback when there is no D-Bus, and
 * --insecure-storage.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { BIN, inSecretService, LIST_KEYCHAIN, ROOT, shellQuote as q, type World } from './harness.js';
import { APP, cli, credentialsFile, PERSONAL_TOKEN, useAuthWorld } from './auth-helpers.js';

let world: World;
let home: string;
useAuthWorld((w) => (world = w));
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'lanyard-keyring-home-'));
});
afterAll(async () => rm(home, { recursive: true, force: true }));

/** `steps` in a private Secret Service session (harness.ts); `$LY` runs the CLI with the emulator profile. */
const inKeyringSession = (steps: string) => inSecretService(steps, { ...world.env, HOME: home }, '--profile emulator');

/**
 * The CLI (with the emulator profile) beside a copy of node_modules whose platform package holds an addon that
 * cannot be mapped (as on an older glibc or a noexec mount): a shell command line.
 */
async function brokenBindingCli(): Promise<string> {
  const farm = join(home, 'broken-binding');
  await rm(farm, { recursive: true, force: true });
  const pkg = `keyring-linux-${process.arch}-gnu`;
  await mkdir(join(farm, 'node_modules', '@napi-rs', pkg), { recursive: true });
  for (const e of ['bin', 'dist', 'package.json']) await symlink(join(ROOT, e), join(farm, e));
  for (const e of await readdir(join(ROOT, 'node_modules'))) if (e !== '@napi-rs') await symlink(join(ROOT, 'node_modules', e), join(farm, 'node_modules', e));
  await symlink(join(ROOT, 'node_modules', '@napi-rs', 'keyring'), join(farm, 'node_modules', '@napi-rs', 'keyring'));
  const main = `keyring.linux-${process.arch}-gnu.node`;
  await writeFile(join(farm, 'node_modules', '@napi-rs', pkg, 'package.json'), JSON.stringify({ name: `@napi-rs/${pkg}`, version: '2.1.2', main }));
  await writeFile(join(farm, 'node_modules', '@napi-rs', pkg, main), 'not an ELF object');
  return `${q(process.execPath)} --preserve-symlinks --preserve-symlinks-main ${q(join(farm, 'bin', 'lanyard.js'))} --profile emulator`;
}

describe('OS keychain (real Secret Service)', () => {
  it('round-trip: store, read, status, logout — nothing in the files', async () => {
    const tokenFile = join(home, 'token.txt');
    await writeFile(tokenFile, PERSONAL_TOKEN + '\n');
    const r = inKeyringSession(
      [
        `$LY auth token --with-token < ${q(tokenFile)}; echo "rc_store=$?"`,
        LIST_KEYCHAIN,
        'echo "TOKEN=$($LY auth token)"',
        `$LY auth status --json > ${q(join(home, 'status.json'))}; echo "rc_status=$?"`,
        '$LY auth logout; echo "rc_logout=$?"',
        LIST_KEYCHAIN.replace("'KEYCHAIN='", "'AFTER='"),
        '$LY auth status >/dev/null 2>&1; echo "rc_status_after=$?"',
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    const host = new URL(world.url).host;
    expect(r.stdout).toContain('rc_store=0');
    expect(r.stdout).toContain(`KEYCHAIN=${JSON.stringify([`hosting:${host}`, `hosting:${host}:mona`])}`);
    expect(r.stdout).toContain(`TOKEN=${PERSONAL_TOKEN}`);
    expect(r.stdout).toContain('rc_status=0');
    expect(r.stdout).toContain('rc_logout=0');
    expect(r.stdout).toContain('AFTER=[]');
    expect(r.stdout).toContain('rc_status_after=4');
    expect(r.stderr).toContain('token stored in the OS keychain');
    expect(r.stderr).not.toMatch(/plain file|0600/);
    const status = JSON.parse(await readFile(join(home, 'status.json'), 'utf8')) as {
      accounts: Array<{ source: string; account: string; valid: boolean }>;
      storage: { kind: string };
    };
    expect(status.accounts).toMatchObject([{ source: 'keychain', account: 'mona', valid: true }]);
    expect(status.storage.kind).toBe('keychain');
    await expect(stat(join(world.configDir, 'credentials.json'))).rejects.toThrow();
    expect(await readFile(join(world.configDir, 'config.json'), 'utf8')).not.toContain(PERSONAL_TOKEN);
  });

  it('--insecure-storage chooses the 0600 file even when the keychain works', async () => {
    const tokenFile = join(home, 'token.txt');
    await writeFile(tokenFile, PERSONAL_TOKEN);
    const r = inKeyringSession(
      [`$LY auth token --with-token --insecure-storage < ${q(tokenFile)}; echo "rc=$?"`, LIST_KEYCHAIN, 'echo "TOKEN=$($LY auth token)"'].join('\n'),
    );
    expect(r.stdout).toContain('rc=0');
    expect(r.stdout).toContain('KEYCHAIN=[]');
    expect(r.stdout).toContain(`TOKEN=${PERSONAL_TOKEN}`);
    expect(r.stderr).toMatch(/insecure storage chosen/);
    expect((await stat(join(world.configDir, 'credentials.json'))).mode & 0o777).toBe(0o600);
  });
  it('the launcher opens the keychain before the CLI loads, for commands that read credentials; the command uses that opening', async () => {
    const tokenFile = join(home, 'token.txt');
    await writeFile(tokenFile, PERSONAL_TOKEN);
    const r = inKeyringSession(
      [
        `$LY auth token --with-token < ${q(tokenFile)} 2>/dev/null; echo "rc_store=$?"`,
        'echo "PRE=$(LANYARD_DEBUG=1 $LY auth status --json 2>&1 >/dev/null | grep credential.store)"',
        'echo "OFF=$(LANYARD_KEYCHAIN_PREFETCH=0 LANYARD_DEBUG=1 $LY auth status --json 2>&1 >/dev/null | grep credential.store)"',
        'echo "TOKEN=$($LY auth token)"',
        // What logout said on stderr stays in the output, so a failure shows why.
        'echo "LOGOUT=$($LY auth logout 2>&1 >/dev/null; echo "rc_logout=$?")"',
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('rc_store=0');
    expect(r.stdout).toContain('PRE=* credential store: OS keychain, opened before the CLI loaded (bin/lanyard.js)');
    expect(r.stdout).toContain('OFF=* credential store: OS keychain, opened by the command');
    expect(r.stdout).toContain(`TOKEN=${PERSONAL_TOKEN}`);
    expect(r.stdout, r.stdout).toContain('rc_logout=0');
  });

  it('`auth status` reads the keychain without loading the native binding, from a prefetch compiled with its own code cache; a write loads it', async () => {
    const tokenFile = join(home, 'token.txt');
    await writeFile(tokenFile, PERSONAL_TOKEN);
    // Prints, at exit, whether the keychain's native binding (@napi-rs/keyring) was loaded.
    const preload = join(home, 'binding-loaded.mjs');
    await writeFile(
      preload,
      "import { createRequire } from 'node:module';\nimport { writeSync } from 'node:fs';\n" +
        'const cache = createRequire(import.meta.url).cache;\n' +
        "process.on('exit', () => writeSync(2, '\\nBINDING=' + Object.keys(cache).some((k) => k.includes('keyring')) + '\\n'));\n",
    );
    const cache = join(home, 'prefetch-cache-test');
    const ly = `LANYARD_CACHE_DIR=${q(cache)} ${q(process.execPath)} --import ${q(pathToFileURL(preload).href)} ${q(BIN)} --profile emulator`;
    const stamp = `find ${q(join(cache, 'prefetch-cache'))} -name 'keychain-prefetch.bin' -printf '%p:%T@\\n'`;
    const r = inKeyringSession(
      [
        `${ly} auth token --with-token < ${q(tokenFile)} 2>/dev/null; echo "rc_store=$?"`,
        `echo "STATUS1=$(${ly} auth status --json 2>&1 >/dev/null | grep BINDING)"`,
        `echo "CACHE1=$(${stamp})"`,
        `echo "STATUS2=$(${ly} auth status --json 2>&1 >${q(join(home, 'status2.json'))} | grep BINDING)"`,
        `echo "CACHE2=$(${stamp})"`,
        `echo "LOGOUT=$(${ly} auth logout 2>&1 >/dev/null | grep BINDING)"`,
        LIST_KEYCHAIN,
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('rc_store=0');
    expect(r.stdout).toContain('STATUS1=BINDING=false');
    expect(r.stdout).toContain('STATUS2=BINDING=false');
    const status = JSON.parse(await readFile(join(home, 'status2.json'), 'utf8')) as { accounts: Array<{ source: string; valid: boolean }> };
    expect(status.accounts).toMatchObject([{ source: 'keychain', valid: true }]);
    // The prefetch's cache is written once, by the first run that opened the keychain, and read (not rewritten) by the next.
    const cache1 = /^CACHE1=(.+)$/m.exec(r.stdout)?.[1];
    expect(cache1).toMatch(/keychain-prefetch\.bin:/);
    expect(r.stdout).toContain(`CACHE2=${cache1}`);
    // Deleting needs the binding: loaded then, and the entry is gone.
    expect(r.stdout).toContain('LOGOUT=BINDING=true');
    expect(r.stdout).toContain('KEYCHAIN=[]');
  });

  it.runIf(process.arch === 'x64' || process.arch === 'arm64')(
    'a binding installed but unable to load: read over D-Bus, and at the first read or write of one entry the 0600 file, saying why',
    async () => {
      const bad = await brokenBindingCli();
      const hubot = (await world.admin('hosting/issue-token', { login: 'hubot', clientId: APP.clientId, scopes: ['repo'] })) as { access_token: string };
      await writeFile(join(home, 'mona.txt'), PERSONAL_TOKEN + '\n');
      await writeFile(join(home, 'hubot.txt'), hubot.access_token + '\n');
      const r = inKeyringSession(
        [
          `$LY auth token --with-token < ${q(join(home, 'mona.txt'))} 2>/dev/null; echo "rc_mona=$?"`,
          `echo "STATUS=$(${bad} auth status --json 2>&1 >/dev/null; echo "rc=$?")"`,
          `echo "READ=$(${bad} auth token --user mona 2>${q(join(home, 'read.err'))}) rc_read=$?"`,
          `${bad} auth token --with-token < ${q(join(home, 'hubot.txt'))} 2>${q(join(home, 'write.err'))}; echo "rc_hubot=$?"`,
          `echo "HUBOT=$(${bad} auth token --user hubot 2>/dev/null)"`,
          // The active account: the file's pointer (hubot) wins over the keychain's (mona).
          `echo "ACTIVE=$(${bad} auth token 2>/dev/null)"`,
          // Logging out: the file's account goes; the keychain's cannot go without the binding, and nothing is said deleted.
          `${bad} auth logout --user hubot 2>/dev/null; echo "rc_out_hubot=$?"`,
          `echo "OUT_MONA=$(${bad} auth logout --user mona 2>&1 | grep -c 'nothing was deleted') rc=$?"`,
          LIST_KEYCHAIN,
        ].join('\n'),
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('rc_mona=0');
      // Listing needs no binding: as before, no warning.
      expect(r.stdout).toMatch(/^STATUS=rc=0$/m);
      const why = 'the OS keychain is unavailable (the keychain binding could not be loaded); credentials are kept in a plain file (mode 0600)';
      const read = await readFile(join(home, 'read.err'), 'utf8');
      const written = await readFile(join(home, 'write.err'), 'utf8');
      // A read of one entry: the Secret Service's, said once.
      expect(r.stdout, read).toContain(`READ=${PERSONAL_TOKEN} rc_read=0`);
      expect(read.split(why)).toHaveLength(2);
      // A write: kept in the file, said once, named as the file.
      expect(r.stdout, written).toContain('rc_hubot=0');
      expect(written.split(why)).toHaveLength(2);
      expect(written).toMatch(/token stored in .*credentials\.json/);
      expect(r.stdout).toContain(`HUBOT=${hubot.access_token}`);
      expect(r.stdout).toContain(`ACTIVE=${hubot.access_token}`);
      expect(r.stdout).toContain('rc_out_hubot=0');
      expect(r.stdout).toContain('OUT_MONA=1 rc=0');
      expect(await credentialsFile(world)).toEqual({});
      expect(r.stdout).toContain(`KEYCHAIN=${JSON.stringify([`hosting:${new URL(world.url).host}`, `hosting:${new URL(world.url).host}:mona`])}`);
    },
  );

  it.runIf(process.arch === 'x64' || process.arch === 'arm64')(
    '`doctor` loads the binding to tell: one that cannot load is a warning (new credentials go to the file), a failure when the keychain is required',
    async () => {
      const bad = await brokenBindingCli();
      await writeFile(join(home, 'mona.txt'), PERSONAL_TOKEN + '\n');
      const out = (name: string) => q(join(home, `${name}.json`));
      const r = inKeyringSession(
        [
          `$LY auth token --with-token < ${q(join(home, 'mona.txt'))} 2>/dev/null; echo "rc_mona=$?"`,
          `$LY doctor --json > ${out('good')}; echo "rc_good=$?"`,
          `${bad} doctor --json > ${out('broken')}; echo "rc_broken=$?"`,
          `LANYARD_KEYCHAIN=required ${bad} doctor --json > ${out('required')}; echo "rc_required=$?"`,
        ].join('\n'),
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain('rc_mona=0');
      const keychain = async (name: string) =>
        (JSON.parse(await readFile(join(home, `${name}.json`), 'utf8')) as { keychain: Record<string, string> }).keychain;
      expect(r.stdout).toContain('rc_good=0');
      expect(await keychain('good')).toMatchObject({ status: 'ok' });
      expect(r.stdout).toContain('rc_broken=0');
      const broken = await keychain('broken');
      expect(broken).toMatchObject({ status: 'warn', problem: 'keychain-binding', fix: expect.stringMatching(/reinstall lanyard-cli.*LANYARD_KEYCHAIN=off/) });
      // The reason is the loader's try that found the addon, not the package loader's generic message.
      expect(broken.summary).toMatch(
        /answers, but its native binding cannot be loaded \(\S+\.node: file too short\): what it holds is read, new credentials go to a plain file/,
      );
      expect(r.stdout).toContain('rc_required=1');
      expect(await keychain('required')).toMatchObject({
        status: 'fail',
        problem: 'keychain-required',
        summary: expect.stringMatching(/binding cannot be loaded/),
      });
    },
  );

  it.runIf(process.arch === 'x64' || process.arch === 'arm64')(
    'what the 0600 file took while the binding was broken wins over the keychain’s older copies once it works again; the next write moves it into the keychain',
    async () => {
      const bad = await brokenBindingCli();
      const newer = (await world.admin('hosting/issue-token', { login: 'mona', clientId: APP.clientId, scopes: ['repo'] })) as { access_token: string };
      await writeFile(join(home, 'older.txt'), PERSONAL_TOKEN + '\n');
      await writeFile(join(home, 'newer.txt'), newer.access_token + '\n');
      const file = q(join(world.configDir, 'credentials.json'));
      const r = inKeyringSession(
        [
          // In the keychain: mona's older token and an echo key.
          `$LY auth token --with-token < ${q(join(home, 'older.txt'))} 2>/dev/null; echo "rc_older=$?"`,
          'printf %s older-echo-key-0001 | $LY echo key set 2>/dev/null; echo "rc_key_older=$?"',
          // The binding broken: mona signs in again and the echo key changes; both go to the file.
          `${bad} auth token --with-token < ${q(join(home, 'newer.txt'))} 2>/dev/null; echo "rc_newer=$?"`,
          `printf %s newer-echo-key-0002 | ${bad} echo key set 2>/dev/null; echo "rc_key_newer=$?"`,
          `echo "IN_FILE=$(grep -c ${newer.access_token} ${file})"`,
          // The binding works again: the newer copies are the ones used.
          'echo "TOKEN=$($LY auth token)"',
          'echo "KEY=$($LY echo key status --json --jq .key)"',
          `$LY auth status --json > ${q(join(home, 'status.json'))}; echo "rc_status=$?"`,
          // The next write of each moves it into the keychain, and out of the file.
          `$LY auth token --with-token < ${q(join(home, 'newer.txt'))} 2>/dev/null; echo "rc_again=$?"`,
          'printf %s newest-echo-key-003 | $LY echo key set 2>/dev/null; echo "rc_key_again=$?"',
          'echo "TOKEN_AFTER=$($LY auth token)"',
          'echo "KEY_AFTER=$($LY echo key status --json --jq .key)"',
        ].join('\n'),
      );
      expect(r.status, r.stderr).toBe(0);
      for (const rc of ['rc_older', 'rc_key_older', 'rc_newer', 'rc_key_newer', 'rc_status', 'rc_again', 'rc_key_again']) expect(r.stdout).toContain(`${rc}=0`);
      expect(r.stdout).toContain('IN_FILE=1');
      expect(r.stdout).toContain(`TOKEN=${newer.access_token}`);
      // `echo key status` shows a key masked: its first and last characters.
      const masked = (label: string, key: string) => new RegExp(`^${label}=${key.slice(0, 4)}.*${key.slice(-4)}$`, 'm');
      expect(r.stdout).toMatch(masked('KEY', 'newer-echo-key-0002'));
      const status = JSON.parse(await readFile(join(home, 'status.json'), 'utf8')) as { accounts: Array<{ account: string; source: string; valid: boolean }> };
      // Said where it is: the file's copy, the one in use, valid.
      expect(status.accounts.filter((a) => a.account === 'mona')).toMatchObject([{ source: 'file', valid: true }]);
      expect(r.stdout).toContain(`TOKEN_AFTER=${newer.access_token}`);
      expect(r.stdout).toMatch(masked('KEY_AFTER', 'newest-echo-key-003'));
      expect(await credentialsFile(world)).toEqual({});
    },
  );

  it('a 0600 file from a release before the fallback mark (or written with LANYARD_INSECURE_STORAGE on purpose) never beats the keychain’s newer copy, and the source says the keychain', async () => {
    const creds = join(world.configDir, 'credentials.json');
    await rm(creds, { force: true });
    const host = new URL(world.url).host;
    const r = inKeyringSession(
      [
        // The reviewer's steps: a key kept in the file on purpose (LANYARD_INSECURE_STORAGE=1), then a newer one stored in the keychain,
        'printf %s OLDKEY_insecure_1111 | LANYARD_INSECURE_STORAGE=1 $LY echo key set 2>/dev/null; echo "rc_old=$?"',
        'printf %s NEWKEY_keychain_2222 | $LY echo key set 2>/dev/null; echo "rc_new=$?"',
        // which the release before the mark did without removing the file's copy: its credentials.json, as it left it.
        `printf '{"echo:apikey:${host}":"OLDKEY_insecure_1111"}' > ${q(creds)}`,
        'echo "STATUS=$($LY echo key status --json | tr -d \'\\n\')"',
        `echo "AUTH=$($LY auth status --json --jq '.accounts[] | select(.service == "echo") | .source')"`,
        '$LY echo key delete 2>/dev/null; echo "rc_delete=$?"',
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    for (const rc of ['rc_old', 'rc_new', 'rc_delete']) expect(r.stdout).toContain(`${rc}=0`);
    const status = JSON.parse(/^STATUS=(.*)$/m.exec(r.stdout)![1]!) as { key: string; source: string };
    expect(status).toMatchObject({ source: 'keychain', key: expect.stringMatching(/^NEWK.*2222$/) });
    expect(r.stdout).toMatch(/^AUTH=keychain$/m);
    expect(await credentialsFile(world)).toEqual({});
  });

  it('completion of --user: the logins stored in an unlocked keychain; from a locked one none, at once and without unlocking it', async () => {
    const hubot = (await world.admin('hosting/issue-token', { login: 'hubot', clientId: APP.clientId, scopes: ['repo', 'read:org'] })) as {
      access_token: string;
    };
    await writeFile(join(home, 'mona.txt'), PERSONAL_TOKEN + '\n');
    await writeFile(join(home, 'hubot.txt'), hubot.access_token + '\n');
    const lock =
      'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/aliases/default >/dev/null';
    const locked =
      "dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets/aliases/default org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked | grep -c 'boolean true'";
    const r = inKeyringSession(
      [
        `$LY auth token --with-token < ${q(join(home, 'mona.txt'))} 2>/dev/null; echo "rc_mona=$?"`,
        `$LY auth token --with-token < ${q(join(home, 'hubot.txt'))} 2>/dev/null; echo "rc_hubot=$?"`,
        'echo "UNLOCKED=$($LY __complete accounts | tr "\\n" ,)"',
        lock,
        's=$(date +%s%N); echo "LOCKED=$($LY __complete accounts | tr "\\n" ,)"; echo "locked_ms=$(( ($(date +%s%N) - s) / 1000000 ))"',
        `echo "still_locked=$(${locked})"`,
        // A login kept in the 0600 file is offered whatever the keychain's state.
        `$LY auth token --with-token --insecure-storage < ${q(join(home, 'hubot.txt'))} 2>/dev/null; echo "rc_file=$?"`,
        'echo "FILE=$($LY __complete accounts | tr "\\n" ,)"',
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('rc_mona=0');
    expect(r.stdout).toContain('rc_hubot=0');
    expect(r.stdout).toContain('UNLOCKED=hubot,mona,');
    expect(r.stdout).toContain('LOCKED=\n');
    expect(Number(/locked_ms=(\d+)/.exec(r.stdout)?.[1])).toBeLessThan(3000);
    expect(r.stdout).toContain('still_locked=1');
    expect(r.stdout).toContain('rc_file=0');
    expect(r.stdout).toContain('FILE=hubot,\n');
  });
});

describe('no Secret Service (no D-Bus): the 0600 file fallback', () => {
  const noBus = { LANYARD_KEYCHAIN: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/lanyard-no-bus', LANYARD_KEYCHAIN_TIMEOUT_MS: '3000' };

  it('stores in a 0600 file and says so on stderr and in auth status', async () => {
    const t0 = Date.now();
    const r = await cli(world, ['auth', 'token', '--with-token'], { input: PERSONAL_TOKEN, env: noBus });
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.stderr).toMatch(/the OS keychain is unavailable .*; storing the token in .*credentials\.json \(mode 0600\)/);
    expect((await stat(join(world.configDir, 'credentials.json'))).mode & 0o777).toBe(0o600);
    expect(Object.keys(await credentialsFile(world))).toContain(`hosting:${new URL(world.url).host}:mona`);
    const s = await cli(world, ['auth', 'status', '--json'], { env: noBus });
    expect(s.code).toBe(0);
    const j = JSON.parse(s.stdout) as { accounts: Array<{ source: string; detail?: string }>; storage: { kind: string; warning: string } };
    expect(j.storage.kind).toBe('file');
    expect(j.storage.warning).toMatch(/keychain is unavailable/);
    expect(j.accounts[0]!.source).toBe('file');
    expect(j.accounts[0]!.detail).toMatch(/plain file/);
    // Said once, though the hosting accounts and every other service's credentials were looked up.
    expect(s.stderr.match(/keychain is unavailable/g)).toHaveLength(1);
    const human = await cli(world, ['auth', 'status'], { env: noBus });
    expect(human.stderr.match(/keychain is unavailable/g)).toHaveLength(1);
    expect(r.stderr.match(/keychain is unavailable/g)).toHaveLength(1);
  });
});

describe('a session bus address with a malformed %-escape', () => {
  it('is no usable bus: a one-line answer, never a stack trace or an unhandled rejection', async () => {
    const env = { LANYARD_KEYCHAIN: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=%ZZ', LANYARD_KEYCHAIN_TIMEOUT_MS: '3000' };
    for (const args of [
      ['auth', 'status'],
      ['auth', 'logout'],
    ]) {
      const r = await cli(world, args, { env });
      expect([0, 1, 4], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
      expect(r.stderr).not.toMatch(/URIError|URI malformed|\n\s+at /);
    }
  });
});

describe('LANYARD_KEYCHAIN=required with no Secret Service', () => {
  const required = { LANYARD_KEYCHAIN: 'required', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/lanyard-no-bus', LANYARD_KEYCHAIN_TIMEOUT_MS: '3000' };
  const REASON = /the OS keychain is required \(LANYARD_KEYCHAIN=required\), and the OS keychain is unavailable \(.+\): not falling back to the file/;

  it('storing a token: exit 1 with the reason, nothing written to the file', async () => {
    const before = await credentialsFile(world);
    const r = await cli(world, ['auth', 'token', '--with-token'], { input: PERSONAL_TOKEN, env: required });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(REASON);
    expect(r.stderr).toMatch(/unset LANYARD_KEYCHAIN/);
    expect(r.stderr).not.toContain(PERSONAL_TOKEN);
    expect(await credentialsFile(world)).toEqual(before);
  });

  it('--insecure-storage is refused as well, and reading never falls back to the file', async () => {
    const insecure = await cli(world, ['auth', 'token', '--with-token', '--insecure-storage'], { input: PERSONAL_TOKEN, env: required });
    expect(insecure.code).toBe(1);
    expect(insecure.stderr).toMatch(/insecure storage \(a 0600 file\) was asked for: not falling back to the file/);
    const token = await cli(world, ['auth', 'token'], { env: required });
    expect(token.code).toBe(1);
    expect(token.stderr).toMatch(REASON);
  });

  it('the profile setting keychain=required does the same when the variable is unset', async () => {
    await cli(world, ['config', 'set', 'keychain', 'required']);
    try {
      const env = { ...required, LANYARD_KEYCHAIN: undefined };
      const r = await cli(world, ['auth', 'token', '--with-token'], { input: PERSONAL_TOKEN, env });
      expect(r.code).toBe(1);
      // What requires it is named: the profile's setting, not the variable (unset).
      expect(r.stderr).toMatch(/the OS keychain is required \(profile "[^"]+": keychain required\), and the OS keychain is unavailable/);
      expect(r.stderr).not.toContain('LANYARD_KEYCHAIN=required)');
      const doctor = await cli(world, ['doctor', '--json'], { env });
      expect(doctor.code).toBe(1);
      const { keychain } = JSON.parse(doctor.stdout) as { keychain: { status: string; problem: string; summary: string } };
      expect(keychain).toMatchObject({ status: 'fail', problem: 'keychain-required' });
      expect(keychain.summary).toMatch(/^the OS keychain is required \(profile "[^"]+": keychain required\), and/);
    } finally {
      await cli(world, ['config', 'unset', 'keychain']);
    }
  });
});
