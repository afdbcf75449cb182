import { describe, expect, it } from 'vitest';
import { bypassesProxy, parseNoProxy, parseProxyUrl, proxyDisplay, proxyFor, proxySettings } from '../../../../src/core/http/proxy.js';

const bypass = (url: string, noProxy: string) => bypassesProxy(new URL(url), parseNoProxy(noProxy));

describe('NO_PROXY', () => {
  it('host names and suffixes (with or without the leading dot or *.) match the host and its subdomains', () => {
    expect(bypass('https://corp.example/x', 'corp.example')).toBe(true);
    expect(bypass('https://api.corp.example/x', '.corp.example')).toBe(true);
    expect(bypass('https://corp.example/x', '.corp.example')).toBe(true);
    expect(bypass('https://a.b.corp.example/x', '*.corp.example')).toBe(true);
    expect(bypass('https://notcorp.example/x', 'corp.example')).toBe(false);
    expect(bypass('https://API.Corp.Example/x', 'corp.example')).toBe(true);
  });
  it('* matches everything; entries split on commas and spaces', () => {
    expect(bypass('https://anything/', '*')).toBe(true);
    expect(bypass('https://b.example/', 'a.example, b.example')).toBe(true);
    expect(bypass('https://b.example/', 'a.example b.example')).toBe(true);
  });
  it('ports: only that port (the scheme default when the URL has none)', () => {
    expect(bypass('https://h.example:8443/', 'h.example:8443')).toBe(true);
    expect(bypass('https://h.example/', 'h.example:8443')).toBe(false);
    expect(bypass('https://h.example/', 'h.example:443')).toBe(true);
    expect(bypass('http://h.example/', 'h.example:80')).toBe(true);
  });
  it('IP addresses and CIDR ranges, IPv4 and IPv6', () => {
    expect(bypass('https://10.1.2.3/', '10.0.0.0/8')).toBe(true);
    expect(bypass('https://11.1.2.3/', '10.0.0.0/8')).toBe(false);
    expect(bypass('https://192.168.1.5:8080/', '192.168.1.5')).toBe(true);
    expect(bypass('https://192.168.1.5:8080/', '192.168.1.5:9090')).toBe(false);
    expect(bypass('https://[fd00::1]/', 'fd00::/8')).toBe(true);
    expect(bypass('https://[fd00::1]/', 'fd00::1')).toBe(true);
    expect(bypass('https://[fd00::1]:8443/', '[fd00::1]:8443')).toBe(true);
    expect(bypass('https://[fe80::1]/', 'fd00::/8')).toBe(false);
    // A host name never matches an IP rule.
    expect(bypass('https://ten.example/', '10.0.0.0/8')).toBe(false);
  });
});

describe('which proxy', () => {
  it('lower-case variables first; ALL_PROXY after the scheme’s own; the profile last', () => {
    expect(proxySettings({ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:1' }).httpsProxy).toBe('http://a:1');
    expect(proxySettings({ HTTPS_PROXY: 'http://b:1' }, { proxy: 'http://p:1' }).httpsProxy).toBe('http://b:1');
    expect(proxySettings({}, { proxy: 'http://p:1', noProxy: 'x' })).toEqual({ httpsProxy: 'http://p:1', httpProxy: 'http://p:1', noProxy: 'x' });
    expect(proxySettings({ NO_PROXY: 'a', no_proxy: 'b' }).noProxy).toBe('b');
    const s = proxySettings({ HTTP_PROXY: 'http://h:1', ALL_PROXY: 'http://all:1' });
    expect(proxyFor(new URL('http://x.example/'), s)?.host).toBe('h:1');
    expect(proxyFor(new URL('https://x.example/'), s)?.host).toBe('all:1');
  });
  it('loopback goes direct; NO_PROXY goes direct; no setting: direct', () => {
    const s = { httpsProxy: 'http://p:1', httpProxy: 'http://p:1', noProxy: '.corp' };
    for (const u of ['https://127.0.0.1:8/', 'http://localhost/', 'https://[::1]/', 'https://git.corp/']) expect(proxyFor(new URL(u), s), u).toBeUndefined();
    expect(proxyFor(new URL('https://x.example/'), {})).toBeUndefined();
  });
  it('a proxy without scheme is http://; the display never holds the password; other schemes are refused without echoing the text', () => {
    expect(parseProxyUrl('proxy.corp:3128').href).toBe('http://proxy.corp:3128/');
    expect(proxyDisplay(parseProxyUrl('http://al%40ice:p%40ss@proxy:3128'))).toBe('http://al@ice@proxy:3128');
    expect(() => parseProxyUrl('socks5://u:secretpw@proxy:1080')).toThrow(/only http:\/\/ and https:\/\//);
    try {
      parseProxyUrl('socks5://u:secretpw@proxy:1080');
    } catch (e) {
      expect(String(e)).not.toContain('secretpw');
    }
  });
});

describe('TLS failures', () => {
  it('each is one line naming what failed, with the setting that fixes it', async () => {
    const { tlsFailure } = await import('../../../../src/core/http/trust.js');
    const f = (code: string) => tlsFailure(Object.assign(new Error('x'), { code }), 'https://api.corp.example:8443/user');
    expect(f('CERT_HAS_EXPIRED')?.message).toBe('TLS: the certificate of api.corp.example:8443 has expired (CERT_HAS_EXPIRED)');
    // The library names the remedy; the CLI turns it into the setting to use (src/cli/errors/hints.ts).
    expect(f('UNABLE_TO_GET_ISSUER_CERT_LOCALLY')?.remedy).toEqual({ kind: 'trust-ca' });
    const { hintOf } = await import('../../../../src/cli/errors/hints.js');
    expect(hintOf(f('UNABLE_TO_GET_ISSUER_CERT_LOCALLY')!)).toContain('LANYARD_CA_FILE');
    expect(hintOf(f('ERR_TLS_CERT_ALTNAME_INVALID')!)).toContain('host name the certificate was issued for');
    expect(f('SELF_SIGNED_CERT_IN_CHAIN')?.message).toContain('self-signed root');
    expect(f('ERR_TLS_CERT_ALTNAME_INVALID')?.message).toContain('name mismatch');
    expect(f('ECONNRESET')).toBeUndefined();
  });
});

describe('the proxy credential in every form', () => {
  it('is taken out of a text as written, decoded and as the Basic value', async () => {
    const { proxyCredentialForms, withoutProxyCredential } = await import('../../../../src/core/http/proxy.js');
    const proxy = parseProxyUrl('http://alice:p%40ss-w0rd@proxy.corp:3128');
    const basic = Buffer.from('alice:p@ss-w0rd').toString('base64');
    expect(proxyCredentialForms(proxy)).toContain(basic);
    expect(withoutProxyCredential(`Forbidden Basic ${basic} p@ss-w0rd p%40ss-w0rd ${basic.replace(/=+$/, '')}`, proxy)).toBe('Forbidden Basic *** *** *** ***');
  });

  it('a bad percent-escape in the user-info is a ProxyError naming no password', () => {
    expect(() => parseProxyUrl('http://alice:s3cr%ZZet@proxy.corp:3128')).toThrow(/bad percent-escape/);
    try {
      parseProxyUrl('http://alice:s3cr%ZZet@proxy.corp:3128');
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('s3cr');
    }
  });
});
