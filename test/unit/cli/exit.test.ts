/** Every error code has its exit code in the one table; the error family maps as the README's exit codes say. */
import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { CLI_EXIT_CODES, EXIT_CODES, exitCodeFor, formatError } from '../../../src/cli/errors/exit.js';
import { CLI_ERROR_CODES, CliError } from '../../../src/cli/errors/cli-error.js';
import { UsageError } from '../../../src/cli/errors/usage-error.js';
import {
  AuthRequiredError,
  CancelledError,
  ConfigError,
  ERROR_CODES,
  type ErrorCode,
  HttpError,
  LanyardError,
  OAuthError,
  RateLimitError,
  ValidationError,
} from '../../../src/core/errors.js';
import { eventsUrl } from '../../../src/core/health/events.js';

/** Codes of a closed set without an exit code in `table`, and keys of `table` that are not its codes. */
function gaps(codes: readonly string[], table: Partial<Record<string, number>>): { missing: string[]; unknown: string[] } {
  return {
    missing: codes.filter((c) => typeof table[c] !== 'number'),
    unknown: Object.keys(table).filter((k) => !codes.includes(k)),
  };
}

describe('exit codes', () => {
  it("every error code, the library's and the CLI's, has exactly one exit code, from the documented set", () => {
    expect(gaps(ERROR_CODES, EXIT_CODES)).toEqual({ missing: [], unknown: [] });
    expect(gaps(CLI_ERROR_CODES, CLI_EXIT_CODES)).toEqual({ missing: [], unknown: [] });
    for (const c of ERROR_CODES) expect([1, 2, 3, 4, 130]).toContain(EXIT_CODES[c]);
    for (const c of CLI_ERROR_CODES) expect([1, 2, 3, 4, 130]).toContain(CLI_EXIT_CODES[c]);
    const all = [...ERROR_CODES, ...CLI_ERROR_CODES];
    expect(new Set(all).size).toBe(all.length);
  });

  it('the check can fail: a code without an exit code is reported', () => {
    const { timeout: _, ...short } = EXIT_CODES;
    expect(gaps(ERROR_CODES, short).missing).toEqual(['timeout']);
    expect(gaps(ERROR_CODES, { ...EXIT_CODES, nonsense: 1 }).unknown).toEqual(['nonsense']);
    const { jq_error: __, ...cliShort } = CLI_EXIT_CODES;
    expect(gaps(CLI_ERROR_CODES, cliShort).missing).toEqual(['jq_error']);
  });

  it("the library has no CLI-only code: usage, --jq and --template failures are the CLI's", () => {
    for (const c of ['usage', 'jq_error', 'template_error']) {
      expect(ERROR_CODES as readonly string[]).not.toContain(c);
      expect(CLI_ERROR_CODES as readonly string[]).toContain(c);
    }
    const jq = new CliError('jq_error', '--jq: jq: error (at <stdin>:0): cannot iterate over null');
    expect(jq).not.toBeInstanceOf(LanyardError);
    expect(exitCodeFor(jq)).toBe(1);
    expect(formatError(jq, false)).toBe('--jq: jq: error (at <stdin>:0): cannot iterate over null');
    expect(formatError(new UsageError('--json and --ndjson together', 'pick one'), false)).toBe('--json and --ndjson together\npick one');
  });

  it("docs/library.md says of every library code what a caller does about it, and names no CLI code as the library's", () => {
    const doc = readFileSync(new URL('../../../docs/library.md', import.meta.url), 'utf8');
    const listed = new Set([...doc.matchAll(/^- (`[a-z_]+`(?:, `[a-z_]+`)*):/gm)].flatMap((m) => m[1]!.match(/[a-z_]+/g)!));
    expect(ERROR_CODES.filter((c) => !listed.has(c))).toEqual([]);
    expect([...listed].filter((c) => !(ERROR_CODES as readonly string[]).includes(c))).toEqual([]);
  });

  it('maps the error family', () => {
    const cases: Array<[unknown, number]> = [
      [new UsageError('x'), 2],
      [new CliError('template_error', 'x'), 1],
      [new LanyardError('checkpoint_busy', 'x'), 2],
      [new LanyardError('checkpoint_unusable', 'x'), 2],
      [new ValidationError('x'), 2],
      [new ConfigError('x'), 2],
      [new RateLimitError('x', 'secondary'), 3],
      [new AuthRequiredError('x'), 4],
      [new HttpError(401, 'GET', 'u', undefined, {}), 4],
      [new HttpError(500, 'GET', 'u', undefined, {}), 1],
      [new OAuthError('invalid_client', undefined, 401), 4],
      [new OAuthError('invalid_grant', undefined, 400), 1],
      [new CancelledError(), 130],
      [new LanyardError('not_found', 'x'), 1],
      [new CommanderError(1, 'commander.unknownOption', 'x'), 2],
      [new CommanderError(0, 'commander.helpDisplayed', 'x'), 0],
      [new Error('x'), 1],
    ];
    for (const [err, code] of cases) expect(exitCodeFor(err), String(err)).toBe(code);
  });

  it('a missing subscription id in the health core is a usage error (exit 2)', () => {
    let err: unknown;
    try {
      eventsUrl({ managementUrl: 'http://127.0.0.1:1', subscriptionId: '', vendor: 'Microsoft', apiVersion: '2022-10-01' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LanyardError);
    expect((err as LanyardError).code satisfies ErrorCode).toBe('validation');
    expect(exitCodeFor(err)).toBe(2);
  });
});
