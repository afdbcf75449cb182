/**
 * The library names no variable of the CLI (test/unit/cli/architecture.test.ts):
 * the CLI says which of its own turned the keychain off when it warns about
 * the 0600 file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCredentialStore } from '../../../src/core/credentials/open.js';
import { noLock } from '../../../src/core/credentials/lock.js';
import { openStoragePort } from '../../../src/cli/ports/credential-port.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-port-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('the keychain turned off', () => {
  it('the library says it is disabled; the CLI adds that LANYARD_KEYCHAIN=off did it', async () => {
    const said: string[] = [];
    await openCredentialStore({ configDir: dir, lock: noLock, disableKeychain: true, onFallback: (why) => said.push(why) });
    expect(said).toEqual(['the keychain is disabled']);

    const warnings: string[] = [];
    const port = await openStoragePort(
      {
        env: { LANYARD_KEYCHAIN: 'off' },
        configDir: async () => dir,
        lock: async () => noLock,
        keychainRequired: async () => undefined,
        warnOnce: (_key, text) => warnings.push(text),
        remember: () => undefined,
        onWaiting: () => undefined,
      },
      false,
    );
    await port.store().set('k', 'v');
    expect(warnings).toEqual([`the keychain is disabled (LANYARD_KEYCHAIN=off): storing the credential in a plain file (mode 0600) in ${dir}`]);
  });
});
