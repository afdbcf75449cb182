import { describe, expect, it } from 'vitest';
import { parseOAuthBody, parseXmlBody } from '../../../../src/core/auth/oauth-body.js';
import { OAuthError } from '../../../../src/core/errors.js';

describe('parseOAuthBody', () => {
  it('reads the default form encoding (also without a Content-Type)', () => {
    const text = 'access_token=lyo_abc&scope=repo%2Cgist&token_type=bearer';
    expect(parseOAuthBody('application/x-www-form-urlencoded; charset=utf-8', text)).toEqual({ access_token: 'lyo_abc', scope: 'repo,gist', token_type: 'bearer' });
    expect(parseOAuthBody(undefined, text).scope).toBe('repo,gist');
  });
  it('reads JSON (numbers become strings)', () => {
    expect(parseOAuthBody('application/json', '{"device_code":"d","expires_in":900,"interval":5}')).toEqual({ device_code: 'd', expires_in: '900', interval: '5' });
  });
  it('reads XML with root OAuth, decoding only the predefined entities', () => {
    const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<OAuth><access_token>lyo_x</access_token><scope>repo,gist</scope><token_type>bearer</token_type><error_description>a &amp; b</error_description></OAuth>';
    expect(parseOAuthBody('application/xml', xml)).toEqual({ access_token: 'lyo_x', scope: 'repo,gist', token_type: 'bearer', error_description: 'a & b' });
  });
  it('refuses XML with a DTD and never expands its entities', () => {
    const evil = '<?xml version="1.0"?><!DOCTYPE OAuth [<!ENTITY boom "EXPANDED-SECRET">]><OAuth><access_token>&boom;</access_token></OAuth>';
    let caught: unknown;
    try {
      parseXmlBody(evil);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(OAuthError);
    expect(String((caught as Error).message)).not.toContain('EXPANDED-SECRET');
    expect((caught as OAuthError).error).toBe('invalid_response');
  });
  it('leaves an undeclared entity reference literal (no expansion)', () => {
    expect(parseXmlBody('<OAuth><access_token>&ext;</access_token></OAuth>').access_token).toBe('&ext;');
  });
  it('refuses an XML document whose root is not OAuth, and malformed JSON', () => {
    expect(() => parseXmlBody('<Other><a>1</a></Other>')).toThrow(/root element/);
    expect(() => parseOAuthBody('application/json', '{oops')).toThrow(OAuthError);
    expect(() => parseOAuthBody('image/png', 'x')).toThrow(/content type/);
  });
});
