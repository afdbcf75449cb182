/**
 * Wire helpers of the emulated OAuth endpoints: parameters from the query, a
 * form body or a JSON body; responses as form (default), JSON or XML (root
 * `OAuth`) chosen by the Accept header.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { EmuRequest, EmuResponse } from '../../../router.js';

export type Encoding = 'form' | 'json' | 'xml';

/** Query, then form or JSON body fields (body wins). Arrays (JSON scopes) are joined with spaces. */
export async function oauthParams(req: EmuRequest): Promise<Record<string, string>> {
  return req.params_();
}

export function encodingFor(req: EmuRequest): Encoding {
  const accept = (req.header('accept') ?? '').toLowerCase();
  if (accept.includes('application/json')) return 'json';
  if (accept.includes('application/xml') || accept.includes('text/xml')) return 'xml';
  return 'form';
}

const xmlEscape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** Writes an OAuth response (token, device authorization or error) in the requested encoding. */
export function oauthRespond(req: EmuRequest, res: EmuResponse, status: number, fields: Record<string, string | number | undefined>): void {
  const entries = Object.entries(fields).filter((e): e is [string, string | number] => e[1] !== undefined);
  const headers = { 'cache-control': 'no-store', pragma: 'no-cache' };
  switch (encodingFor(req)) {
    case 'json':
      return res.json(status, Object.fromEntries(entries), headers);
    case 'xml': {
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<OAuth>${entries.map(([k, v]) => `<${k}>${xmlEscape(String(v))}</${k}>`).join('')}</OAuth>\n`;
      return res.text(status, body, { ...headers, 'content-type': 'application/xml; charset=utf-8' });
    }
    default: {
      const p = new URLSearchParams();
      for (const [k, v] of entries) p.append(k, String(v));
      return res.text(status, p.toString(), { ...headers, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' });
    }
  }
}

export function oauthError(
  req: EmuRequest,
  res: EmuResponse,
  status: number,
  error: string,
  description: string,
  extra: Record<string, string | number> = {},
): void {
  oauthRespond(req, res, status, { error, error_description: description, error_uri: `https://docs.example.com/oauth/troubleshooting#${error}`, ...extra });
}

/** Requested scopes: space-delimited per the spec (commas tolerated), de-duplicated. */
export function parseScopes(text: string | undefined): string[] {
  if (!text) return [];
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

export function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** `XXXX-XXXX` from an alphabet without vowels or look-alike characters. */
export function newUserCode(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** What a user typed, as a canonical user code (case and a missing hyphen forgiven). */
export function normaliseUserCode(text: string | undefined): string {
  const s = (text ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '');
  return s.length === 8 ? `${s.slice(0, 4)}-${s.slice(4)}` : s;
}
