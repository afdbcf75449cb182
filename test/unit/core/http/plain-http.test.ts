import { describe, expect, it } from 'vitest';
import { assertNoClearCredential, InsecureTransportError, isClearTextUrl, isLoopbackHost, parsePlainHttpHosts } from '../../../../src/core/http/plain-http.js';
import { prepareRequest } from '../../../../src/core/http/pipeline.js';

describe('loopback', () => {
  it('127.0.0.0/8, ::1, localhost, IPv4-mapped loopback (as URL parsing writes it)', () => {
    for (const u of [
      'http://127.0.0.1/',
      'http://127.255.0.9:8080/',
      'http://[::1]/',
      'http://localhost:3000/',
      'http://LOCALHOST/',
      'http://app.localhost/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:127.1.2.3]/',
      'http://[0:0:0:0:0:0:0:1]/',
    ])
      expect(isLoopbackHost(new URL(u).hostname), u).toBe(true);
    for (const u of ['http://128.0.0.1/', 'http://localhost.example.com/', 'http://10.0.0.1/', 'http://0.0.0.0/', 'http://[::ffff:10.0.0.1]/', 'http://[::2]/'])
      expect(isLoopbackHost(new URL(u).hostname), u).toBe(false);
  });
});

describe('no credential in clear', () => {
  const url = new URL('http://api.example.com/api/v3/user?x=1');
  it.each([
    [{ scheme: 'bearer', token: 't' }, 'a bearer token'],
    [{ scheme: 'basic', username: 'u', password: 'p' }, 'a Basic credential'],
    [{ scheme: 'query', name: 'key', value: 'k' }, 'an API key'],
    [{ scheme: 'header', name: 'x-api-key', value: 'k' }, 'an API key'],
  ] as const)('%o over http to a remote host is refused', (credential, what) => {
    expect(() => assertNoClearCredential(url, credential, {})).toThrow(InsecureTransportError);
    expect(() => assertNoClearCredential(url, credential, {})).toThrow(`refusing to send ${what} over plain HTTP to http://api.example.com/api/v3/user:`);
  });

  it('an Authorization header given by hand counts; no credential, https and loopback pass', () => {
    expect(() => assertNoClearCredential(url, undefined, { Authorization: 'token x' })).toThrow(/an Authorization header/);
    expect(() => assertNoClearCredential(url, { scheme: 'none' }, {})).not.toThrow();
    expect(() => assertNoClearCredential(new URL('https://api.example.com/'), { scheme: 'bearer', token: 't' }, {})).not.toThrow();
    expect(() => assertNoClearCredential(new URL('http://127.0.0.1:9/'), { scheme: 'bearer', token: 't' }, {})).not.toThrow();
  });

  it('the opt-in names hosts (with or without port) or *', () => {
    expect(parsePlainHttpHosts(' lab.example:8080, Other ,')).toEqual(['lab.example:8080', 'other']);
    const lab = new URL('http://lab.example:8080/x');
    expect(isClearTextUrl(lab, ['lab.example:8080'])).toBe(false);
    expect(isClearTextUrl(lab, ['lab.example'])).toBe(false);
    expect(isClearTextUrl(lab, ['lab.example:9090'])).toBe(true);
    expect(isClearTextUrl(lab, ['*'])).toBe(false);
    expect(isClearTextUrl(lab)).toBe(true);
  });

  it('the pipeline refuses before tracing anything, and the hint names the host', async () => {
    const lines: string[] = [];
    let err: unknown;
    try {
      prepareRequest('GET', { url: 'http://api.example.com/user', credential: { scheme: 'bearer', token: 'secret' } }, 'ua', (l) => lines.push(l));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InsecureTransportError);
    // The library names the host in its remedy; the CLI's hint names the opt-in (src/cli/errors/hints.ts).
    expect((err as InsecureTransportError).remedy).toEqual({ kind: 'allow-plain-http', host: 'api.example.com' });
    const { hintOf } = await import('../../../../src/cli/errors/hints.js');
    expect(hintOf(err as InsecureTransportError)).toContain('LANYARD_ALLOW_PLAIN_HTTP=api.example.com');
    expect(lines).toEqual([]);
    expect(() =>
      prepareRequest('GET', { url: 'http://api.example.com/user', credential: { scheme: 'bearer', token: 's' } }, 'ua', undefined, ['*']),
    ).not.toThrow();
  });
});
