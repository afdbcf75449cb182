/** The fix line of each problem `lanyard doctor` reports (hints.ts doctorFix): every problem has one, in the CLI's words. */
import { describe, expect, it } from 'vitest';
import { doctorFix } from '../../../src/cli/errors/hints.js';
import type { Check, ProblemCode } from '../../../src/core/doctor/checks.js';

const PROBLEMS: readonly ProblemCode[] = [
  'bad-url',
  'dns',
  'connect',
  'tls',
  'proxy',
  'timeout',
  'network',
  'no-credential',
  'refused',
  'forbidden',
  'server-error',
  'expired',
  'expires-soon',
  'clock-skew',
  'rate-limited',
  'rate-limit-low',
  'keychain-fallback',
  'keychain-binding',
  'keychain-required',
];

const failing = (problem: ProblemCode, extra: Partial<Check> = {}): Check => ({ name: 'endpoint', status: 'fail', summary: 'x', problem, ...extra });

describe('doctorFix', () => {
  it('every problem (but a service not configured) has a fix line', () => {
    for (const p of PROBLEMS) {
      const remedy =
        p === 'bad-url' ? ({ kind: 'allow-plain-http', host: 'h' } as const) : p === 'keychain-required' ? ({ kind: 'keychain-required' } as const) : undefined;
      expect(doctorFix(failing(p, remedy ? { remedy } : {}), { service: 'hosting', source: 'env:LANYARD_TOKEN', url: 'https://api.example.test' }), p).toMatch(
        /\w/,
      );
    }
  });

  it('a refused credential names its source through the registry; a protocol sign-in names the server', () => {
    expect(doctorFix(failing('refused'), { service: 'hosting', source: 'env:LANYARD_TOKEN' })).toMatch(/the token from LANYARD_TOKEN was refused/);
    expect(doctorFix(failing('refused'), { service: 'health', source: 'env:LANYARD_HEALTH_TOKEN' })).toMatch(/LANYARD_HEALTH_TOKEN was refused/);
    expect(doctorFix(failing('no-credential'), { service: 'protocol', url: 'https://tools.example.test/mcp' })).toContain(
      '--server https://tools.example.test/mcp',
    );
    expect(doctorFix(failing('tls', { remedy: { kind: 'trust-ca' } }))).toContain('LANYARD_CA_FILE');
  });

  it('nothing for a check that passed or was skipped', () => {
    expect(doctorFix({ ...failing('dns'), status: 'ok' })).toBeUndefined();
    expect(doctorFix({ name: 'endpoint', status: 'skip', summary: 'not configured', problem: 'not-configured' })).toBeUndefined();
  });
});
