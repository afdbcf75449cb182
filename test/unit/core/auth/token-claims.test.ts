/** What a bearer token names in its claims (for `auth status`): nothing is verified, an opaque token names nobody. */
import { describe, expect, it } from 'vitest';
import { tokenIdentity } from '../../../../src/core/auth/token-claims.js';

const jwt = (claims: unknown) =>
  `${Buffer.from('{"alg":"RS256","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;

describe('tokenIdentity', () => {
  it('the user principal name first, then preferred_username, unique_name, email; the client; exp in ms', () => {
    expect(tokenIdentity(jwt({ upn: 'ada@contoso.example', unique_name: 'x', appid: 'cid', exp: 1_800_000_000 }))).toEqual({
      user: 'ada@contoso.example',
      client: 'cid',
      expiresAt: 1_800_000_000_000,
    });
    expect(tokenIdentity(jwt({ preferred_username: 'p@x', email: 'e@x' }))?.user).toBe('p@x');
    expect(tokenIdentity(jwt({ unique_name: 'u@x' }))?.user).toBe('u@x');
    expect(tokenIdentity(jwt({ sub: 'svc-1', client_id: 'svc-1', azp: 'other' }))).toEqual({ subject: 'svc-1', client: 'svc-1' });
  });

  it('an opaque token, a malformed one or claims that are no object: nobody', () => {
    expect(tokenIdentity('ctxat_abcdef0123456789')).toBeUndefined();
    expect(tokenIdentity('a.b')).toBeUndefined();
    expect(tokenIdentity('a.!!.c')).toBeUndefined();
    expect(tokenIdentity(`a.${Buffer.from('not json').toString('base64url')}.c`)).toBeUndefined();
    expect(tokenIdentity(`a.${Buffer.from('[1]').toString('base64url')}.c`)).toBeUndefined();
    expect(tokenIdentity(jwt({ upn: 42, exp: 'soon' }))).toEqual({});
  });
});
