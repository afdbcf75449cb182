/** The library's errors carry their service as a field, also when only their sign-in remedy names it. */
import { describe, expect, it } from 'vitest';
import { AuthRequiredError, LanyardError } from '../../../src/core/errors.js';

describe('LanyardError.service', () => {
  it('is the one given', () => {
    expect(new AuthRequiredError('x', { service: 'health' }).service).toBe('health');
  });

  it("is the sign-in remedy's service when none is given", () => {
    const e = new AuthRequiredError('insufficient scope', { remedy: { kind: 'sign-in', service: 'protocol', serverUrl: 'https://mcp.example' } });
    expect(e.service).toBe('protocol');
  });

  it('an explicit service wins over the remedy; other remedies name none', () => {
    expect(new AuthRequiredError('x', { service: 'hosting', remedy: { kind: 'sign-in', service: 'protocol' } }).service).toBe('hosting');
    expect(new LanyardError('config', 'x', { remedy: { kind: 'choose-profile' } }).service).toBeUndefined();
  });
});
