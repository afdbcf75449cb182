/**
 * Lanyard's own Secret Service reader (src/core/credentials/secret-service.ts)
 * against the real thing: gnome-keyring under a private dbus-run-session,
 * with items written by an independent client (Python's SecretStorage over
 * jeepney, which opens a Diffie-Hellman session) and by the native binding
 * (`auth token`). Lanyard's reader and the binding's own search must read the
 * same entries; what the reader leaves to the binding (a locked collection)
 * gets the binding's answer.
 */
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python, withPython } from '../interop-py/venv.js';
import { APP, PERSONAL_TOKEN, useAuthWorld } from './auth-helpers.js';
import { inSecretService, ROOT, shellQuote as q, type World } from './harness.js';

let world: World;
let home: string;
useAuthWorld((w) => (world = w));
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'lanyard-keychain-dbus-'));
});
afterAll(async () => rm(home, { recursive: true, force: true }));

/** Writes items of service `lanyard` with SecretStorage: argv[1] is a JSON object of account → secret. */
const WRITE_PY = `
import json, sys, secretstorage
conn = secretstorage.dbus_init()
coll = secretstorage.get_default_collection(conn)
for account, secret in json.loads(sys.argv[1]).items():
    coll.create_item('py:' + account, {'service': 'lanyard', 'username': account}, secret.encode('utf-8'), replace=True)
print('written by', type(coll.connection).__module__)
`;

/** Prints what the library's opening read (and how) and what the binding's own search reads, as CMP=<json>. */
const compareScript = (lib: string) => `
const { createRequire } = await import('node:module');
const { startKeychainOpen } = await import(${JSON.stringify(lib)});
const keytar = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})('@napi-rs/keyring/keytar.js');
const r = await startKeychainOpen({ sessionBus: process.env.DBUS_SESSION_BUS_ADDRESS, timeoutMs: 5000 }).result;
const sorted = (xs) => [...xs].sort((a, b) => a.account.localeCompare(b.account));
const binding = await keytar.findCredentials('lanyard').then(sorted, (e) => ({ error: String(e.message ?? e) }));
console.log('CMP=' + JSON.stringify({ lanyard: r.ok ? { via: r.via, entries: sorted(r.entries) } : r, binding }));
`;

describe(
  'the Secret Service read over D-Bus by Lanyard itself (real gnome-keyring)',
  withPython(() => {
    it("reads what SecretStorage (DH session) and the binding wrote, as the binding reads it; a locked collection is the binding's answer", async () => {
      const host = new URL(world.url).host;
      const hubot = (await world.admin('hosting/issue-token', { login: 'hubot', clientId: APP.clientId, scopes: ['repo'] })) as { access_token: string };
      await writeFile(join(home, 'hubot.txt'), `${hubot.access_token}\n`);
      // Mona's login as Lanyard stores one (the active login, then the record), and an entry that is not ASCII.
      const record = JSON.stringify({ login: 'mona', token: PERSONAL_TOKEN, scopes: ['repo'], origin: 'pasted', createdAt: '2026-11-28T12:00:00.000Z' });
      const written = { [`hosting:${host}`]: 'mona', [`hosting:${host}:mona`]: record, 'note:ünïcode ✓': 'sécret ✓ 🔑 — not ASCII' };
      await writeFile(join(home, 'write.py'), WRITE_PY);
      await writeFile(join(home, 'compare.mjs'), compareScript(pathToFileURL(join(ROOT, 'dist', 'lib', 'index.js')).href));
      const lock =
        'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/aliases/default >/dev/null';
      const r = inSecretService(
        [
          `${q(python)} ${q(join(home, 'write.py'))} ${q(JSON.stringify(written))}`,
          'echo "PRE=$(LANYARD_DEBUG=1 $LY auth status --json 2>&1 >/dev/null | grep credential.store)"',
          `$LY auth status --json > ${q(join(home, 'status.json'))}; echo "rc_status=$?"`,
          'echo "TOKEN=$($LY auth token)"',
          // Written by the binding: hubot becomes the active account.
          `$LY auth token --with-token < ${q(join(home, 'hubot.txt'))} 2>/dev/null; echo "rc_hubot=$?"`,
          'echo "TOKEN2=$($LY auth token)"',
          `${q(process.execPath)} ${q(join(home, 'compare.mjs'))}`,
          lock,
          `${q(process.execPath)} ${q(join(home, 'compare.mjs'))} | sed s/^CMP=/LOCKED=/`,
          'echo "LOCKED_STATUS=$($LY auth status --json 2>&1 >/dev/null | head -1)"',
        ].join('\n'),
        { ...world.env, HOME: home },
        '--profile emulator',
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/written by jeepney/);
      expect(r.stdout).toContain('PRE=* credential store: OS keychain, opened before the CLI loaded (bin/lanyard.js); entries read over D-Bus');
      expect(r.stdout).toContain('rc_status=0');
      expect(r.stdout).toContain(`TOKEN=${PERSONAL_TOKEN}`);
      expect(r.stdout).toContain('rc_hubot=0');
      expect(r.stdout).toContain(`TOKEN2=${hubot.access_token}`);
      const cmp = JSON.parse(/^CMP=(.*)$/m.exec(r.stdout)?.[1] ?? 'null') as { lanyard: { via: string; entries: unknown[] }; binding: unknown[] };
      expect(cmp.lanyard.via).toBe('secret-service');
      expect(cmp.lanyard.entries).toEqual(cmp.binding);
      expect(cmp.lanyard.entries).toEqual(
        expect.arrayContaining([
          { account: 'note:ünïcode ✓', password: 'sécret ✓ 🔑 — not ASCII' },
          { account: `hosting:${host}:mona`, password: record },
          { account: `hosting:${host}`, password: 'hubot' },
        ]),
      );
      // Locked: the reader leaves it to the binding, whose search fails as it always did; the command falls back to the file, saying why.
      const locked = JSON.parse(/^LOCKED=(.*)$/m.exec(r.stdout)?.[1] ?? 'null') as { lanyard: { ok: boolean; reason: string }; binding: { error: string } };
      expect(locked.lanyard.ok).toBe(false);
      expect(locked.binding.error).toMatch(/IsLocked/);
      expect(locked.lanyard.reason).toContain(locked.binding.error.split('\n')[0]);
      expect(r.stdout).toMatch(/LOCKED_STATUS=! the OS keychain is unavailable \(keychain list failed: .*IsLocked/);
    });
  }),
);
