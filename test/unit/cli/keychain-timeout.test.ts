import { describe, expect, it } from 'vitest';
import { keychainTimeoutMs } from '../../../src/cli/ports/keychain-env.js';

describe('keychainTimeoutMs (LANYARD_KEYCHAIN_TIMEOUT_MS, used by every credential store the CLI opens)', () => {
  it('takes a positive number of milliseconds', () => {
    expect(keychainTimeoutMs({ LANYARD_KEYCHAIN_TIMEOUT_MS: '500' })).toBe(500);
  });
  it('leaves the default for unset, zero, negative or junk values', () => {
    for (const v of [undefined, '', '0', '-5', 'soon']) expect(keychainTimeoutMs({ LANYARD_KEYCHAIN_TIMEOUT_MS: v })).toBeUndefined();
  });
});
