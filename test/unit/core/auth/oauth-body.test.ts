import { describe, expect, it } from 'vitest';
import { parseOAuthBody, parseXmlBody } from '../../../../src/core/auth/oauth-body.js';
import { OAuthError } from '../../../../src/core/errors.js';

describe('parseOAuthBody', () => {
  it('reads the default form encoding (also without a Content-Type)', async () => {
    const text = 'access_token=lyo_abc&scope=repo%2Cgist&token_type=bearer';
    expect(await parseOAuthBody('application/x-www-form-urlencoded; charset=utf-8', text)).toEqual({
      access_token: 'lyo_abc',
      scope: 'repo,gist',
      token_type: 'bearer',
    });
    expect((await parseOAuthBody(undefined, text)).scope).toBe('repo,gist');
  });
  it('reads JSON (numbers become strings)', async () => {
    expect(await parseOAuthBody('application/json', '{"device_code":"d","expires_in":900,"interval":5}')).toEqual({
      device_code: 'd',
      expires_in: '900',
      interval: '5',
    });
  });
  it('reads XML with root OAuth, decoding only the predefined entities', async () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?>\n<OAuth><access_token>lyo_x</access_token><scope>repo,gist</scope><token_type>bearer</token_type><error_description>a &amp; b</error_description></OAuth>';
    expect(await parseOAuthBody('application/xml', xml)).toEqual({
      access_token: 'lyo_x',
      scope: 'repo,gist',
      token_type: 'bearer',
      error_description: 'a & b',
    });
  });
  it('refuses XML with a DTD and never expands its entities', async () => {
    const evil = '<?xml version="1.0"?><!DOCTYPE OAuth [<!ENTITY boom "EXPANDED-SECRET">]><OAuth><access_token>&boom;</access_token></OAuth>';
    let caught: unknown;
    try {
      await parseXmlBody(evil);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(OAuthError);
    expect(String((caught as Error).message)).not.toContain('EXPANDED-SECRET');
    expect((caught as OAuthError).error).toBe('invalid_response');
  });
  it('leaves an undeclared entity reference literal (no expansion)', async () => {
    expect((await parseXmlBody('<OAuth><access_token>&ext;</access_token></OAuth>')).access_token).toBe('&ext;');
  });
  it('refuses an XML document whose root is not OAuth, and malformed JSON', async () => {
    await expect(parseXmlBody('<Other><a>1</a></Other>')).rejects.toThrow(/root element/);
    await expect(parseOAuthBody('application/json', '{oops')).rejects.toThrow(OAuthError);
    await expect(parseOAuthBody('image/png', 'x')).rejects.toThrow(/content type/);
  });
});
