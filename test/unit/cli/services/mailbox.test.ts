/** The mailbox slice: one reading of a profile's mailbox, shared by the mailbox commands and the registry (lanyard api --service mailbox). */
import { describe, expect, it } from 'vitest';
import { mailboxTarget } from '../../../../src/cli/services/mailbox/wiring.js';
import { SERVICES } from '../../../../src/cli/services/registry.js';

const settings = { 'mailbox.baseUrl': 'http://127.0.0.1:8181/', 'mailbox.domain': 'example.com', 'mailbox.user': 'alice' };

describe('mailboxTarget', () => {
  it("reads the profile's settings; --domain and --user win", () => {
    expect(mailboxTarget(settings, 'p')).toEqual({ baseUrl: 'http://127.0.0.1:8181/', domain: 'example.com', user: 'alice' });
    expect(mailboxTarget(settings, 'p', { user: 'bob' }).user).toBe('bob');
  });

  it('the registry gives the same API URL the commands use', () => {
    expect(SERVICES.mailbox.base(settings, 'p')).toBe('http://127.0.0.1:8181/rest/v2/example.com/alice/mailbox');
  });

  it('a user or domain that would change the path is refused in both, exit 2 (validation)', () => {
    const bad = { ...settings, 'mailbox.user': 'alice/../bob' };
    expect(() => mailboxTarget(bad, 'p')).toThrow(/--user: "alice\/..\/bob" is not a valid mailbox user/);
    expect(() => SERVICES.mailbox.base(bad, 'p')).toThrow(expect.objectContaining({ code: 'validation' }));
  });

  it('a missing setting names it and the profile', () => {
    expect(() => mailboxTarget({ 'mailbox.baseUrl': 'http://x' }, 'work')).toThrow(/mailbox\.domain/);
  });
});
