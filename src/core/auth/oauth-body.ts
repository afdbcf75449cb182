/**
 * Parses an OAuth response body (token, device authorization or error) by its
 * Content-Type: URL-encoded form (the default), JSON, or XML with root
 * `OAuth`. The XML path never expands entities or DTDs: a document with a
 * DOCTYPE is refused outright and entity references stay literal. The XML
 * parser is loaded on first use: no command pays for it until a server
 * actually answers in XML.
 */
import { OAuthError } from '../errors.js';
import { checkWire } from '../wire/check.js';
import { HostingOAuthAnswerSchema } from '../wire/schemas.js';

export type OAuthFields = Readonly<Record<string, string>>;

const XML_PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function invalid(why: string): OAuthError {
  return new OAuthError('invalid_response', why, undefined, `the server's OAuth response could not be read: ${why}`);
}

function stringify(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(',');
  return undefined;
}

export function parseJsonBody(text: string): OAuthFields {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw invalid('malformed JSON');
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw invalid('the JSON body is not an object');
  checkWire('hosting', "the OAuth endpoint's answer", HostingOAuthAnswerSchema, data);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    const s = stringify(v);
    if (s !== undefined) out[k] = s;
  }
  return out;
}

export function parseFormBody(text: string): OAuthFields {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text.trim())) out[k] = v;
  return out;
}

export async function parseXmlBody(text: string): Promise<OAuthFields> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw invalid('XML with a DTD or entity declarations is refused');
  const { XMLParser } = await import('fast-xml-parser');
  const parser = new XMLParser({
    processEntities: false,
    htmlEntities: false,
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    trimValues: true,
  });
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text, true) as Record<string, unknown>;
  } catch (err) {
    throw invalid(`malformed XML (${String((err as Error).message).split('\n')[0]})`);
  }
  const root = doc.OAuth;
  if (root === undefined) throw invalid('the XML root element is not OAuth');
  if (root === '') return {};
  if (!root || typeof root !== 'object' || Array.isArray(root)) throw invalid('the OAuth element has no fields');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(root as Record<string, unknown>)) {
    const s = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : v === '' ? '' : undefined;
    if (s === undefined) throw invalid(`the field ${k} is not text`);
    // Only the five predefined entities are decoded; anything else stays as written.
    out[k] = s.replace(/&(amp|lt|gt|quot|apos);/g, (_m, n: string) => XML_PREDEFINED[n]!);
  }
  return out;
}

/** Chooses the parser by Content-Type; an unlabelled body is read as form (the service's default). */
export async function parseOAuthBody(contentType: string | undefined, text: string): Promise<OAuthFields> {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('json')) return parseJsonBody(text);
  if (ct.includes('xml')) return parseXmlBody(text);
  if (ct.includes('x-www-form-urlencoded') || !ct || ct.startsWith('text/plain')) return parseFormBody(text);
  throw invalid(`unexpected content type ${ct.split(';')[0]}`);
}
