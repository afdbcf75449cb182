import { describe, expect, it } from 'vitest';
import { maskSecret } from '../../../../src/core/credentials/mask.js';

describe('maskSecret', () => {
  it('shows the first and last four characters of a long secret, never the middle', () => {
    const token = 'lyp_emulator_default_token_0000000000000001';
    const m = maskSecret(token);
    expect(m).toBe('lyp_…0001');
    expect(token.includes(m)).toBe(false);
  });
  it('hides a short secret completely, without revealing its length below eight', () => {
    expect(maskSecret('abc')).toBe('********');
    expect(maskSecret('twelve-chars')).toBe('************');
  });
});
