/**
 * Query parameters of the emulated events list, parsed from the spec on
 * their own (independent of the client): `$filter`, `queryStartTime` and the
 * opaque `$skipToken`.
 */

/** A 400 answer: the flat ErrorResponse. */
export class BadRequest extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export interface FilterTerm {
  /** One of the operation's filter properties, as it names them. */
  property: string;
  value: string;
}

/** The properties of the events lists' `$filter`. */
export const EVENT_FILTER = ['service', 'region'] as const;

/**
 * `<property> eq '<value>'` terms joined by `or`; `''` inside a literal is a
 * quote. Property names and keywords are case-insensitive.
 */
export function parseFilter(text: string, properties: readonly string[] = EVENT_FILTER): FilterTerm[] {
  const names = properties.join(' or ');
  const terms: FilterTerm[] = [];
  let pos = 0;
  const fail = (what: string): never => {
    throw new BadRequest(
      'InvalidFilterInQueryString',
      `Invalid $filter '${text}': ${what} at position ${pos}.`,
      `Supported: <property> eq '<value>' terms joined by 'or', where <property> is ${names}; single quotes inside a value are doubled.`,
    );
  };
  const ws = () => {
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
  };
  const word = () => {
    ws();
    const m = /^[A-Za-z_$][A-Za-z0-9_./]*/.exec(text.slice(pos));
    return m ? m[0] : '';
  };
  ws();
  if (pos >= text.length) fail('the expression is empty');
  for (;;) {
    const prop = word();
    if (!prop) fail(`expected a property name (${names}) but found '${text.slice(pos, pos + 10)}'`);
    const known = properties.find((p) => p.toLowerCase() === prop.toLowerCase());
    if (!known) fail(`unsupported property '${prop}' (supported: ${properties.join(', ')})`);
    pos += prop.length;
    const op = word();
    if (op.toLowerCase() !== 'eq') fail(op ? `unsupported operator '${op}' (only eq is supported)` : "expected 'eq'");
    pos += op.length;
    ws();
    if (text[pos] !== "'") fail('expected a quoted string value');
    pos++;
    let value = '';
    for (;;) {
      if (pos >= text.length) fail('unterminated string literal');
      const c = text[pos]!;
      if (c === "'") {
        if (text[pos + 1] === "'") {
          value += "'";
          pos += 2;
          continue;
        }
        pos++;
        break;
      }
      value += c;
      pos++;
    }
    terms.push({ property: known!, value });
    ws();
    if (pos >= text.length) return terms;
    const join = word();
    if (join.toLowerCase() !== 'or')
      fail(join.toLowerCase() === 'and' ? "'and' is not supported (terms are joined with 'or')" : `expected 'or' or the end of the expression`);
    pos += join.length;
  }
}

/** `M/D/YYYY` (one or two digits for month and day), possibly still URL-encoded → UTC midnight. */
export function parseQueryStartTime(raw: string): number {
  let text = raw.trim();
  if (/%2f/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      /* keep */
    }
  }
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  const bad = () =>
    new BadRequest('InvalidQueryStartTime', `The queryStartTime '${raw}' is not valid. Expected the form <month>/<day>/<year>, for example 5/12/2025.`);
  if (!m) throw bad();
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(year, month - 1, day);
  const d = new Date(ms);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) throw bad();
  return ms;
}

/** The position of a page: the sort key of the last event served and the window start, opaque to clients. */
export interface SkipState {
  /** lastUpdateTime (ms) of the last event served. */
  t: number;
  /** Its name (tie-break). */
  n: string;
  /** The window start used for the first page (so later pages do not drift with the clock). */
  s: number;
  /** Page number (for the curious). */
  p: number;
}

export function encodeSkipToken(s: SkipState): string {
  return Buffer.from(JSON.stringify(s)).toString('base64url');
}

export function decodeSkipToken(token: string): SkipState {
  try {
    const s = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as SkipState;
    if (typeof s.t === 'number' && typeof s.n === 'string' && typeof s.s === 'number' && typeof s.p === 'number') return s;
  } catch {
    /* fall through */
  }
  throw new BadRequest('InvalidSkipToken', 'The $skipToken is not valid. Follow nextLink exactly as returned.');
}
