/**
 * `auth login` takes the protocol client options of `protocol request`
 * (declared once), and refuses them without `--server` as a usage error.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../../src/cli/context.js';
import { exitCodeFor } from '../../../src/cli/errors/exit.js';
import { buildProgram } from '../../../src/cli/program.js';
import { createTestIO } from '../../fakes/io.js';

function program(): Command {
  let p: Command | undefined;
  const ctx = createContext({
    io: createTestIO(),
    env: { LANYARD_CONFIG_DIR: '/nonexistent/lanyard-login-options-test', LANYARD_KEYCHAIN: 'off' },
    signal: new AbortController().signal,
    version: '0.0.0-test',
    globals: () => p?.opts() ?? {},
  });
  p = buildProgram(ctx, 'full');
  p.exitOverride();
  return p;
}

const find = (p: Command, ...path: string[]) => path.reduce((c, name) => c.commands.find((s) => s.name() === name)!, p);
const longs = (c: Command) => c.options.map((o) => o.long);

describe('auth login --server', () => {
  it('declares the client options protocol request declares', () => {
    const p = program();
    const login = longs(find(p, 'auth', 'login'));
    for (const flag of ['--client-key', '--client-metadata-url', '--idp-token-endpoint', '--idp-client-id']) {
      expect(longs(find(p, 'protocol', 'request'))).toContain(flag);
      expect(login).toContain(flag);
    }
  });
  it.each([
    ['--client-key', 'k.pem'],
    ['--client-metadata-url', 'https://app.example.com/client.json'],
    ['--idp-token-endpoint', 'https://idp.example.com/token'],
    ['--idp-client-id', 'idp-client'],
  ])('refuses %s without --server (exit 2)', async (flag, value) => {
    const err = await program()
      .parseAsync(['auth', 'login', flag, value], { from: 'user' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(String((err as Error).message)).toBe(`${flag} applies to protocol servers (--server)`);
    expect(exitCodeFor(err)).toBe(2);
  });
});
