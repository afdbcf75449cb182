/**
 * The wire work of the stateless revisions (2026-07-28): `_meta` on every
 * request, the standard `Mcp-Method`/`Mcp-Name` headers and the
 * tool-designated `Mcp-Param-*` headers (SEP-2243), the checks that drop a
 * tool whose `x-mcp-header` annotations break the rules, and how an error
 * body tells a stateless server from one that needs the `initialize`
 * handshake. Pure functions: the session (session.ts) sends.
 */
import { Protocol, type ProtocolRevision } from '../../shared/constants.js';

/** What a stateless request's `_meta` says about the client. */
export interface ClientDescription {
  readonly clientInfo: { name: string; version: string };
  readonly capabilities: Record<string, unknown>;
}

/** `params` with the revision's `_meta` fields added (the caller's own `_meta` keys are kept). */
export function withRequestMeta(params: unknown, revision: ProtocolRevision, client: ClientDescription): Record<string, unknown> {
  const p = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  const own = p._meta && typeof p._meta === 'object' ? (p._meta as Record<string, unknown>) : {};
  return {
    ...p,
    _meta: {
      ...own,
      [Protocol.meta.protocolVersion]: revision,
      [Protocol.meta.clientInfo]: client.clientInfo,
      [Protocol.meta.clientCapabilities]: client.capabilities,
    },
  };
}

const SENTINEL = /^=\?base64\?.*\?=$/s;

/**
 * A value as a header carries it: as is when it is visible ASCII with inner
 * spaces, else (non-ASCII, control characters, leading or trailing
 * whitespace, or a value that looks like the sentinel itself) the UTF-8
 * bytes in Base64 between `=?base64?` and `?=`.
 */
export function encodeHeaderValue(v: string): string {
  if (v === '' || (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(v) && !SENTINEL.test(v))) return v;
  return `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

/** The methods whose `Mcp-Name` comes from `params.name` / `params.uri`. */
const NAMED: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** `Mcp-Method` and, where the method names a thing, `Mcp-Name`. */
export function standardHeaders(method: string, params: unknown): Record<string, string> {
  const h: Record<string, string> = { 'mcp-method': method };
  const field = NAMED[method];
  const v = field && params && typeof params === 'object' ? (params as Record<string, unknown>)[field] : undefined;
  if (typeof v === 'string') h['mcp-name'] = encodeHeaderValue(v);
  return h;
}

/** One `x-mcp-header` annotation: the property path from the schema root and the header's name part. */
interface HeaderAnnotation {
  readonly path: string[];
  readonly name: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);
const NESTING = [
  'items',
  'prefixItems',
  'additionalProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
  'patternProperties',
  'contains',
];

/**
 * The `x-mcp-header` annotations of a tool's input schema, or why the tool
 * must be dropped: an empty or non-token name, one on a non-primitive (or
 * `number`) type, two names equal but for case, one not reachable through
 * `properties` alone.
 */
export function headerAnnotations(inputSchema: unknown): { ok: true; annotations: HeaderAnnotation[] } | { ok: false; reason: string } {
  const found: HeaderAnnotation[] = [];
  let problem: string | undefined;
  const walk = (schema: unknown, path: string[], reachable: boolean) => {
    if (problem || !schema || typeof schema !== 'object') return;
    if (Array.isArray(schema)) {
      for (const s of schema) walk(s, path, false);
      return;
    }
    const s = schema as Record<string, unknown>;
    if ('x-mcp-header' in s) {
      const name = s['x-mcp-header'];
      if (!reachable || path.length === 0) problem = `x-mcp-header at ${path.join('.') || 'the schema root'} is not reachable through properties alone`;
      else if (typeof name !== 'string' || !name) problem = `x-mcp-header of ${path.join('.')} is empty or not a string`;
      else if (!TOKEN.test(name)) problem = `x-mcp-header ${JSON.stringify(name)} of ${path.join('.')} is not an HTTP token`;
      else if (typeof s.type !== 'string' || !PRIMITIVE.has(s.type))
        problem = `x-mcp-header of ${path.join('.')} is on type ${JSON.stringify(s.type)} (string, integer or boolean only)`;
      else if (found.some((f) => f.name.toLowerCase() === name.toLowerCase())) problem = `x-mcp-header ${JSON.stringify(name)} appears twice`;
      else found.push({ path, name });
    }
    if (s.properties && typeof s.properties === 'object' && !Array.isArray(s.properties)) {
      for (const [k, v] of Object.entries(s.properties as Record<string, unknown>)) walk(v, [...path, k], reachable);
    }
    for (const k of NESTING)
      if (k in s) walk(k === '$defs' || k === 'definitions' || k === 'patternProperties' ? Object.values((s[k] as object) ?? {}) : s[k], path, false);
    if (typeof s.$ref === 'string' && 'x-mcp-header' in s) problem ??= `x-mcp-header beside $ref at ${path.join('.')}`;
  };
  walk(inputSchema, [], true);
  return problem ? { ok: false, reason: problem } : { ok: true, annotations: found };
}

/** Drops the tools whose annotations break the rules (each reported through `warn`); the rest stay as the server sent them. */
export function keepValidTools(result: unknown, warn: (message: string) => void): unknown {
  if (!result || typeof result !== 'object' || !Array.isArray((result as { tools?: unknown }).tools)) return result;
  const r = result as { tools: unknown[] };
  const tools = r.tools.filter((t) => {
    const check = headerAnnotations((t as { inputSchema?: unknown } | null)?.inputSchema);
    if (!check.ok) warn(`ignoring the tool ${JSON.stringify(String((t as { name?: unknown } | null)?.name ?? '?'))}: ${check.reason}`);
    return check.ok;
  });
  return { ...r, tools };
}

/** The `Mcp-Param-*` headers of a call: each annotated argument present (and not null), encoded. */
export function paramHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const check = headerAnnotations(inputSchema);
  if (!check.ok) return {};
  const h: Record<string, string> = {};
  for (const a of check.annotations) {
    let v: unknown = args;
    for (const k of a.path) v = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
    if (v === undefined || v === null) continue;
    if (typeof v === 'string') h[`mcp-param-${a.name}`] = encodeHeaderValue(v);
    else if (typeof v === 'boolean' || (typeof v === 'number' && Number.isSafeInteger(v))) h[`mcp-param-${a.name}`] = String(v);
  }
  return h;
}

/** An error of a stateless server, recognised in the body of a refused POST; undefined: not one (the server needs the handshake). */
export function statelessError(status: number, body: unknown): { code: number; message: string; data?: unknown } | undefined {
  const e = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  if (!e || typeof e !== 'object' || (body as { jsonrpc?: unknown }).jsonrpc !== '2.0') return undefined;
  const err = e as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof err.code !== 'number') return undefined;
  const known = Object.values(Protocol.statelessErrors) as number[];
  const recognised = (status === 400 && known.includes(err.code)) || (status === 404 && err.code === -32601);
  return recognised ? { code: err.code, message: String(err.message ?? ''), data: err.data } : undefined;
}
