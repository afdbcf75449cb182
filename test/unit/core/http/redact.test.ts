import { describe, expect, it } from 'vitest';
import { isSecretHeader, redactBody, redactHeaderValue, redactUrl, scrubSecrets, secretHeaderValues, REDACTED } from '../../../../src/core/http/redact.js';

describe('redaction', () => {
  it('URLs: secret query parameters, userinfo and fragment tokens', () => {
    expect(redactUrl('https://u:p@h/x?key=abc&page=1&access_token=t#access_token=frag&state=s')).toBe(
      `https://${REDACTED}@h/x?key=${REDACTED}&page=1&access_token=${REDACTED}#access_token=${REDACTED}&state=s`,
    );
    expect(redactUrl('https://h/cb?code=c0de&state=xyz')).toBe(`https://h/cb?code=${REDACTED}&state=xyz`);
  });
  it("URLs: a signed download URL's signature (where a download endpoint redirects)", () => {
    expect(redactUrl('https://blob.example/logs.zip?sv=2025&se=x&sig=abc%2Bdef&sp=r')).toBe('https://blob.example/logs.zip?sv=2025&se=x&sig=[REDACTED]&sp=r');
    expect(redactUrl('https://s3.example/a?X-Amz-Credential=AK%2F1&X-Amz-Signature=f00&X-Amz-Security-Token=t&X-Amz-Expires=300')).toBe(
      'https://s3.example/a?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]&X-Amz-Security-Token=[REDACTED]&X-Amz-Expires=300',
    );
  });

  it('headers: Authorization keeps its scheme; Cookie and API keys vanish', () => {
    expect(redactHeaderValue('Authorization', 'Bearer abc')).toBe(`Bearer ${REDACTED}`);
    expect(redactHeaderValue('cookie', 'a=b')).toBe(REDACTED);
    expect(redactHeaderValue('x-api-key', 'k')).toBe(REDACTED);
    expect(redactHeaderValue('DPoP', 'eyJ0eXAiOiJkcG9wK2p3dCJ9.e30.sig')).toBe(REDACTED);
    expect(redactHeaderValue('accept', 'application/json')).toBe('application/json');
  });
  it('headers: any whose name says it carries a credential, whatever the service calls it; the name stays, the value goes', () => {
    for (const name of [
      'Private-Token',
      'X-Auth-Token',
      'X-API-Key',
      'x-apikey',
      'ApiKey',
      'Api-Key',
      'X_Api_Key',
      'Ocp-Apim-Subscription-Key',
      'X-Vault-Token',
      'Job-Token',
      'X-Goog-Api-Key',
      'Cookie',
      'Set-Cookie',
      'Proxy-Authorization',
      'X-Amz-Security-Token',
      'X-Session-Id',
      'X-CSRFToken',
      'X-Hub-Signature-256',
      'X-Client-Secret',
      'X-Password',
      'X-Passwd',
      'X-Credentials',
      'X-GitHub-OTP',
      'X-Auth',
      'DPoP',
    ]) {
      expect(isSecretHeader(name), name).toBe(true);
      expect(redactHeaderValue(name, 's3cr3t-value'), name).toBe(REDACTED);
    }
    expect(redactHeaderValue('X-Authorization', 'Token abc')).toBe(`Token ${REDACTED}`);
    for (const name of [
      'Accept',
      'User-Agent',
      'Content-Type',
      'If-None-Match',
      'ETag',
      'Range',
      'X-GitHub-Api-Version',
      'X-OAuth-Scopes',
      'X-Accepted-OAuth-Scopes',
      'WWW-Authenticate',
      'Access-Control-Allow-Credentials',
      'GitHub-Authentication-Token-Expiration',
      'X-RateLimit-Remaining',
      'Keep-Alive',
      'Mcp-Protocol-Version',
    ]) {
      expect(isSecretHeader(name), name).toBe(false);
      expect(redactHeaderValue(name, 'visible'), name).toBe('visible');
    }
  });
  it("headers: the values a caller redacts from what it shows, also a scheme's value alone", () => {
    expect(secretHeaderValues({ 'private-token': 'glpat-1', authorization: 'token abc', accept: 'x' })).toEqual(['glpat-1', 'token abc', 'abc']);
  });
  it('bodies: JSON (nested), form and XML', () => {
    expect(redactBody('{"a":{"client_secret":"s","list":[{"password":"p"}]},"scope":"repo"}', 'application/json')).toBe(
      `{"a":{"client_secret":"${REDACTED}","list":[{"password":"${REDACTED}"}]},"scope":"repo"}`,
    );
    expect(redactBody('grant_type=x&device_code=d&refresh_token=r', 'application/x-www-form-urlencoded')).toBe(
      `grant_type=x&device_code=${REDACTED}&refresh_token=${REDACTED}`,
    );
    expect(redactBody('<OAuth><access_token>t</access_token><scope>repo</scope></OAuth>', 'application/xml')).toBe(
      `<OAuth><access_token>${REDACTED}</access_token><scope>repo</scope></OAuth>`,
    );
  });
  it('scrubSecrets removes known values from free text', () => {
    expect(scrubSecrets('token abcd1234 leaked', ['abcd1234', undefined, 'ab'])).toBe(`token ${REDACTED} leaked`);
  });
});
