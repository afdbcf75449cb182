/** The code host's X-GitHub-SSO header (both forms) and its token expiration header. */
import { describe, expect, it } from 'vitest';
import { parseSsoHeader, safeSsoUrl, ssoPartialResults, ssoRequiredError } from '../../../../src/core/hosting/sso.js';
import { parseTokenExpiration } from '../../../../src/core/hosting/token-expiry.js';

describe('X-GitHub-SSO', () => {
  it('required: a 403 becomes one line naming the URL (exit 4: auth_required)', () => {
    const url = 'https://github.example.com/orgs/octo-org/sso?authorization_request=A1B2';
    const err = ssoRequiredError(403, { 'x-github-sso': `required; url=${url}` });
    expect(err?.code).toBe('auth_required');
    expect(err?.message).toBe(`the organisation enforces single sign-on: authorise the token at ${url}`);
    expect(ssoRequiredError(404, { 'x-github-sso': `required; url=${url}` })).toBeUndefined();
    expect(ssoRequiredError(403, {})).toBeUndefined();
  });

  it('the URL is shown only when https (http only on loopback), without control characters or user info', () => {
    expect(safeSsoUrl('https://h.example/orgs/x/sso')).toBe('https://h.example/orgs/x/sso');
    expect(safeSsoUrl('http://127.0.0.1:8080/orgs/x/sso')).toBe('http://127.0.0.1:8080/orgs/x/sso');
    expect(safeSsoUrl('http://evil.example/orgs/x/sso')).toBeUndefined();
    expect(safeSsoUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeSsoUrl('https://h.example/\u001b[31mred')).toBeUndefined();
    expect(safeSsoUrl('https://user:pw@h.example/')).toBeUndefined();
    const err = ssoRequiredError(403, { 'x-github-sso': 'required; url=http://evil.example/phish' });
    expect(err?.message).not.toContain('evil');
  });

  it('partial-results: the organisation ids, digits only', () => {
    expect(ssoPartialResults({ 'x-github-sso': 'partial-results; organizations=21955855,20582480' })).toEqual(['21955855', '20582480']);
    expect(parseSsoHeader('partial-results; organizations=1,\u001b[2J,3')).toEqual({ kind: 'partial-results', organizations: ['1', '3'] });
    expect(ssoPartialResults({})).toBeUndefined();
  });
});

describe('GitHub-Authentication-Token-Expiration', () => {
  it('reads "YYYY-MM-DD HH:MM:SS UTC" and zone offsets', () => {
    expect(parseTokenExpiration('2026-12-31 23:59:59 UTC')).toBe('2026-12-31T23:59:59.000Z');
    expect(parseTokenExpiration('2026-12-31 16:59:59 -0700')).toBe('2026-12-31T23:59:59.000Z');
    expect(parseTokenExpiration('2026-12-31T23:59:59Z')).toBe('2026-12-31T23:59:59.000Z');
    expect(parseTokenExpiration('tomorrow')).toBeUndefined();
    expect(parseTokenExpiration(undefined)).toBeUndefined();
  });
});
