/**
 * The library's errors carry a remedy, never a command; formatError turns
 * the remedy into the CLI's advice line through the service registry.
 */
import { describe, expect, it } from 'vitest';
import { AuthRequiredError, ConfigError, HttpError, LanyardError, TimeoutError, ValidationError } from '../../../src/core/errors.js';
import { requireSetting } from '../../../src/core/config/settings.js';
import { resolveHealthToken } from '../../../src/core/health/token.js';
import { refusal } from '../../../src/core/echo/api.js';
import { ExitStatus, exitCodeFor, formatError } from '../../../src/cli/errors/exit.js';
import { adviceFor } from '../../../src/cli/errors/hints.js';

const shown = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return formatError(err, false);
  }
  throw new Error('did not throw');
};

describe('hints: remedies as the CLI says them', () => {
  it('a missing setting: the config set to run, on the line under the message', () => {
    expect(shown(() => requireSetting({}, 'hosting.apiUrl', 'work'))).toBe(
      'profile "work" has no hosting.apiUrl\nrun `lanyard config set hosting.apiUrl <url> --profile work`, or use a profile that has it: `--profile NAME` (`lanyard profile list`; after `lanyard emulator start`: `--profile emulator`)',
    );
  });

  it("the library's own hint comes first, then the advice", async () => {
    const err = await resolveHealthToken({ envToken: undefined, stores: async () => [], authUrl: 'https://login.example.com', nowMs: 0 }).catch(
      (e: unknown) => e,
    );
    expect(formatError(err, false)).toBe(
      'not signed in to the health API at login.example.com\nrun `lanyard auth login --health` (or set LANYARD_HEALTH_TOKEN)',
    );
    const expired = new AuthRequiredError('the health API token expired', {
      hint: 'the implicit flow gives no refresh token',
      remedy: { kind: 'sign-in', service: 'health', again: true },
    });
    expect(formatError(expired, false)).toBe('the health API token expired\nthe implicit flow gives no refresh token: run `lanyard auth login --health` again');
  });

  it('sign-in advice is the service’s own', () => {
    expect(adviceFor({ kind: 'sign-in', service: 'hosting', again: true })).toBe('run `lanyard auth device` again');
    expect(adviceFor({ kind: 'sign-in', service: 'echo' })).toBe('set LANYARD_API_KEY, or store a key with `lanyard echo key set`');
    expect(adviceFor({ kind: 'sign-in', service: 'protocol', serverUrl: 'https://t.example/mcp', scopes: 'a b' })).toBe(
      'run `lanyard auth login --server https://t.example/mcp --scopes "a b"`',
    );
    expect(adviceFor({ kind: 'sign-in', service: 'mailbox' })).toBeUndefined();
  });

  it('a deadline, a setting with its option, a secret', () => {
    const t = Object.assign(new TimeoutError('GET', 'https://x/', 'total', 'GET https://x/: no complete answer within 5 min (the request deadline)'), {
      remedy: { kind: 'longer-deadline' } as const,
    });
    expect(formatError(t, false)).toBe(
      'GET https://x/: no complete answer within 5 min (the request deadline)\nraise it with --timeout or LANYARD_TIMEOUT, 0 for none',
    );
    const v = new ValidationError('no audience', { remedy: { kind: 'set-setting', setting: 'echo.audience', example: '<value>', option: '--audience' } });
    expect(formatError(v, false)).toBe('no audience\npass --audience, or set echo.audience in the profile (`lanyard config set echo.audience <value>`)');
    expect(formatError(new LanyardError('client_secret_missing', 'needs the client secret', { remedy: { kind: 'client-secret' } }), false)).toBe(
      'needs the client secret\nset LANYARD_CLIENT_SECRET or pipe it on stdin',
    );
    expect(formatError(new LanyardError('credential_store', 'nothing was deleted', { remedy: { kind: 'keychain-binding' } }), false)).toBe(
      'nothing was deleted\nsee `lanyard doctor`; LANYARD_KEYCHAIN=off works with the 0600 file alone',
    );
    expect(formatError(new ConfigError('no profile named "x"', { remedy: { kind: 'choose-profile' } }), false)).toBe(
      'no profile named "x"\nsee `lanyard profile list`',
    );
  });

  it("an echo audience the API refuses: the library's reason, then the CLI's flag and setting", () => {
    const e = refusal(new HttpError(403, 'GET', 'https://x/', { code: 7, message: 'JWT validation failed: Audience not allowed' }, {}), 'token');
    expect(formatError(e, false)).toBe(
      'the echo API refused the token (HTTP 403): JWT validation failed: Audience not allowed\nthe API does not accept this audience: pass --audience, or set echo.audience in the profile (`lanyard config set echo.audience <audience>`)',
    );
  });

  it('an unexplained 401 names the sign-in of its service', () => {
    const h = new HttpError(401, 'GET', 'https://x/', {}, {});
    // The service is not known: the hosting service's entry of the registry.
    expect(formatError(h, false)).toMatch(/\nauthentication needed: sign in with `lanyard auth device`$/);
    const health = Object.assign(new HttpError(401, 'GET', 'https://x/', {}, {}), { service: 'health' as const });
    expect(formatError(health, false)).toMatch(/\nauthentication needed: run `lanyard auth login --health` \(or set LANYARD_HEALTH_TOKEN\)$/);
  });

  it("an unexplained 401 that names the refused credential says which one, in its service's words", () => {
    const env = Object.assign(new HttpError(401, 'GET', 'https://x/', {}, {}), { credentialSource: 'env:LANYARD_TOKEN' });
    expect(formatError(env, false)).toMatch(/\nthe token from LANYARD_TOKEN was refused: set a valid one, or unset it and sign in with `lanyard auth device`$/);
    const echo = Object.assign(new HttpError(401, 'GET', 'https://x/', {}, {}), { service: 'echo' as const, credentialSource: 'env:LANYARD_API_KEY' });
    expect(formatError(echo, false)).toMatch(
      /\nthe API key from LANYARD_API_KEY was refused: set a valid one, or unset it and store one with `lanyard echo key set`$/,
    );
  });

  it("a command's own exit status: its code, nothing printed by main", () => {
    expect(exitCodeFor(new ExitStatus(5))).toBe(5);
    expect(exitCodeFor(new ExitStatus(0))).toBe(0);
  });
});
