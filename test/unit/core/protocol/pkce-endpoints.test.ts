import { describe, expect, it } from 'vitest';
import { codeChallengeS256, generateCodeVerifier, generateState, isValidCodeVerifier } from '../../../../src/core/protocol/pkce.js';
import { assertRedirectUri, assertSecureEndpoint, authBaseOf, isLoopbackHost, serverKeyOf } from '../../../../src/core/protocol/endpoints.js';

describe('PKCE', () => {
  it('matches the RFC 7636 appendix B example', () => {
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('generates 43–128 unreserved characters from the random source', () => {
    const v = generateCodeVerifier();
    expect(isValidCodeVerifier(v)).toBe(true);
    expect(v.length).toBeGreaterThanOrEqual(43);
    expect(v.length).toBeLessThanOrEqual(128);
    expect(generateCodeVerifier()).not.toBe(v);
    expect(generateCodeVerifier((n) => new Uint8Array(n).fill(255))).toBe('_'.repeat(64));
  });

  it('rejects verifiers outside the RFC grammar', () => {
    expect(isValidCodeVerifier('a'.repeat(42))).toBe(false);
    expect(isValidCodeVerifier('a'.repeat(129))).toBe(false);
    expect(isValidCodeVerifier('a'.repeat(42) + '+')).toBe(false);
  });

  it('state values are long and distinct', () => {
    const a = generateState();
    expect(a.length).toBeGreaterThanOrEqual(43);
    expect(generateState()).not.toBe(a);
  });
});

describe('endpoint rules', () => {
  it('auth_base drops the path, keeps scheme, host and port', () => {
    expect(authBaseOf('https://tools.example.com/v1/mcp?x=1')).toBe('https://tools.example.com');
    expect(authBaseOf('http://127.0.0.1:8080/mcp')).toBe('http://127.0.0.1:8080');
    expect(serverKeyOf('https://tools.example.com/v1/mcp/')).toBe('https://tools.example.com/v1/mcp');
    expect(() => authBaseOf('ftp://x/y')).toThrow(/http/);
    expect(() => authBaseOf('not a url')).toThrow(/not a valid server URL/);
  });

  it('loopback hosts', () => {
    for (const h of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'app.localhost']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['example.com', '128.0.0.1', 'localhost.example.com', '10.0.0.1']) expect(isLoopbackHost(h)).toBe(false);
  });

  it('endpoints must be HTTPS unless on loopback', () => {
    expect(() => assertSecureEndpoint('https://as.example.com/token', 'token')).not.toThrow();
    expect(() => assertSecureEndpoint('http://localhost:9/token', 'token')).not.toThrow();
    expect(() => assertSecureEndpoint('http://127.0.0.1/token', 'token')).not.toThrow();
    expect(() => assertSecureEndpoint('http://as.example.com/token', 'token')).toThrow(/refusing the token endpoint http:\/\/as\.example\.com\/token/);
    expect(() => assertSecureEndpoint('javascript:alert(1)', 'authorization')).toThrow(/refusing/);
  });

  it('redirect URIs must be localhost or HTTPS', () => {
    expect(() => assertRedirectUri('http://127.0.0.1:5000/callback')).not.toThrow();
    expect(() => assertRedirectUri('https://app.example.com/cb')).not.toThrow();
    expect(() => assertRedirectUri('http://app.example.com/cb')).toThrow(/localhost or HTTPS/);
  });
});
