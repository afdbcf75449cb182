import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../../src/core/errors.js';
import {
  validateCount,
  validateLabel,
  validateMarker,
  validateMessageId,
  validatePartId,
  validateRemovableLabel,
} from '../../../../src/core/mailbox/validate.js';

describe('mailbox validation', () => {
  it('message ids are UUIDs, normalised to lower case', () => {
    expect(validateMessageId('F8973B20-E60D-11F1-A818-7FE3C968B1C7')).toBe('f8973b20-e60d-11f1-a818-7fe3c968b1c7');
    for (const bad of ['', 'abc', 'f8973b20e60d11f1a8187fe3c968b1c7', 'f8973b20-e60d-11f1-a818-7fe3c968b1c', 'g8973b20-e60d-11f1-a818-7fe3c968b1c7']) {
      expect(() => validateMessageId(bad)).toThrow(ValidationError);
    }
  });

  it('labels are integers ≥ 0', () => {
    expect(validateLabel('0')).toBe(0);
    expect(validateLabel(' 12 ')).toBe(12);
    for (const bad of ['-1', '1.5', 'inbox', '', '1e3']) expect(() => validateLabel(bad)).toThrow(/whole numbers/);
  });

  it('count is 1..500', () => {
    expect(validateCount('1')).toBe(1);
    expect(validateCount('500')).toBe(500);
    for (const bad of ['0', '501', '-5', 'ten', '']) expect(() => validateCount(bad)).toThrow(/between 1 and 500/);
  });

  it('markers: lower case accepted, upper case sent', () => {
    expect(validateMarker('seen')).toBe('SEEN');
    expect(validateMarker('Replied')).toBe('REPLIED');
    expect(validateMarker('FORWARDED')).toBe('FORWARDED');
    expect(() => validateMarker('flagged')).toThrow(/unknown marker "flagged" \(one of seen, replied, forwarded\)/);
  });

  it('part ids: IMAP numbers or <content-id>', () => {
    expect(validatePartId('1')).toEqual({ kind: 'number', value: '1' });
    expect(validatePartId('2.1.3')).toEqual({ kind: 'number', value: '2.1.3' });
    expect(validatePartId('<logo@example.com>')).toEqual({ kind: 'content-id', value: '<logo@example.com>' });
    for (const bad of ['0', '1.', '.1', '1..2', '1.0', 'a', 'logo@example.com', '<>', '<a b>']) {
      expect(() => validatePartId(bad), bad).toThrow(ValidationError);
    }
  });

  it('label 0 cannot be removed, with the reason', () => {
    expect(validateRemovableLabel('3')).toBe(3);
    expect(() => validateRemovableLabel('0')).toThrow(/label 0 holds every message and cannot be removed/);
  });
});
