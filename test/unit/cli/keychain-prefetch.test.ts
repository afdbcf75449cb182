/**
 * Which command lines start the keychain's opening before the CLI loads
 * (bin/lanyard.js, dist/keychain-prefetch.cjs): those that read stored
 * credentials, unless the keychain is off or the command will not read it.
 */
import { describe, expect, it } from 'vitest';
import { wantsKeychain } from '../../../src/cli/keychain-prefetch.js';
import { buildProgram } from '../../../src/cli/program.js';
import { createContext } from '../../../src/cli/context.js';

const bus = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' };
/**
 * wantsKeychain for a command line, with its group as bin/lanyard.js reads it
 * (root options are skipped there; program.test.ts checks the launcher's list
 * of them): the first word, else `main`.
 */
function wants(line: string, env: NodeJS.ProcessEnv): boolean {
  const args = line.split(' ').filter(Boolean);
  return wantsKeychain(args.find((a) => !a.startsWith('-')) ?? 'main', args, env);
}

describe('wantsKeychain', () => {
  it('starts for the commands that read stored credentials', () => {
    for (const line of [
      'auth status',
      'auth token',
      'api /user',
      'ratelimit status --json',
      'exec -- env',
      'echo send hi',
      'protocol request x',
      'mailbox list',
      'health events',
    ]) {
      expect(wants(line, bus), line).toBe(true);
    }
  });

  it('does not start for commands that never read credentials, for help, or with the keychain off', () => {
    for (const line of ['config list', 'profile list', 'emulator start', 'completion bash', '', '--help', 'auth --help', 'auth status -h', 'help auth']) {
      expect(wants(line, bus), line).toBe(false);
    }
    expect(wants('auth login --insecure-storage', bus)).toBe(false);
    expect(wants('auth status', { ...bus, LANYARD_KEYCHAIN: 'off' })).toBe(false);
    expect(wants('auth status', { ...bus, LANYARD_INSECURE_STORAGE: '1' })).toBe(false);
  });

  it('an argument after -- is the program’s, not a help request', () => {
    expect(wants('exec -- gh --help', bus)).toBe(true);
  });

  it('with a token in the environment only `auth` reads the store', () => {
    expect(wants('api /user', { ...bus, LANYARD_TOKEN: 't' })).toBe(false);
    expect(wants('ratelimit status', { ...bus, WORKFLOW_TOKEN: 't' })).toBe(false);
    expect(wants('auth status', { ...bus, LANYARD_TOKEN: 't' })).toBe(true);
  });

  it.runIf(process.platform === 'linux')('on Linux, not without a session bus (the ping needs one)', () => {
    expect(wants('auth status', {})).toBe(false);
  });

  it('names only groups the program has, and every group that is not listed is one that holds no credential command', () => {
    const ctx = createContext({ io: { out() {}, err() {} } as never, env: {}, signal: new AbortController().signal, version: '0', globals: () => ({}) });
    const groups = buildProgram(ctx, 'full').commands.map((c) => c.name());
    const wanted = groups.filter((g) => wantsKeychain(g, [g], bus));
    expect(wanted.sort()).toEqual(['api', 'auth', 'doctor', 'echo', 'exec', 'health', 'mailbox', 'protocol', 'ratelimit']);
    expect(groups.filter((g) => !wanted.includes(g)).sort()).toEqual(['__complete', 'completion', 'config', 'emulator', 'profile']);
  });
});
