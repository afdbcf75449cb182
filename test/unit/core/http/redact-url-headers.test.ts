/**
 * URL-valued headers in `--debug` traces (Location, Content-Location, Link,
 * Referer): a signed download URL a redirect hands over carries its
 * signature, credential and token in the query, which are redacted as on the
 * request line; other headers are left to redactHeaderValue.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, redactUrlHeader } from '../../../../src/core/http/redact.js';

const SIGNED =
  'https://objects.example/f.tgz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20260101&X-Amz-Signature=abc123sig&token=tok-secret-1&response-content-disposition=attachment';

describe('redactUrlHeader', () => {
  it("a Location's secret parameters are redacted, the rest kept", () => {
    const shown = redactUrlHeader('Location', SIGNED);
    for (const secret of ['AKIA', 'abc123sig', 'tok-secret-1']) expect(shown).not.toContain(secret);
    expect(shown).toContain(`X-Amz-Signature=${REDACTED}`);
    expect(shown).toContain('X-Amz-Algorithm=AWS4-HMAC-SHA256');
    expect(shown).toContain('response-content-disposition=attachment');
    expect(shown.startsWith('https://objects.example/f.tgz?')).toBe(true);
  });

  it('a relative Location, a Content-Location and a Referer too; a fragment token as well', () => {
    expect(redactUrlHeader('location', '/dl?sig=s3cr3t&page=2')).toBe(`/dl?sig=${REDACTED}&page=2`);
    expect(redactUrlHeader('content-location', 'files/x?access_token=at-1')).toBe(`files/x?access_token=${REDACTED}`);
    expect(redactUrlHeader('Referer', 'https://app.example/cb#access_token=at-2&state=s')).toBe(`https://app.example/cb#access_token=${REDACTED}&state=s`);
  });

  it("each URL of a Link (a next page's), its rel kept", () => {
    const link = '<https://api.example/items?page=2&access_token=at-3>; rel="next", </items?page=9&token=t-4>; rel="last"';
    expect(redactUrlHeader('Link', link)).toBe(
      `<https://api.example/items?page=2&access_token=${REDACTED}>; rel="next", </items?page=9&token=${REDACTED}>; rel="last"`,
    );
  });

  it('leaves other headers and a URL without secrets as they are', () => {
    expect(redactUrlHeader('etag', 'W/"token=x"')).toBe('W/"token=x"');
    expect(redactUrlHeader('location', 'https://api.example/repos/o/r?page=2')).toBe('https://api.example/repos/o/r?page=2');
    expect(redactUrlHeader('location', '/plain/path')).toBe('/plain/path');
  });
});
