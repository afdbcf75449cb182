/**
 * The edge where a server's answer enters the library: every parsed body is
 * checked against its wire type (schemas.ts, valibot) before anything reads
 * it. A field of the wrong type is one line naming the service, the answer,
 * the field's path and what was expected (`WireTypeError`, exit 1), never a
 * crash further in. Objects keep the fields their schema does not name, so
 * what Lanyard passes through (JSON output, `--jq`) is the server's answer.
 */
import * as v from 'valibot';
import { LanyardError, type ServiceName } from '../errors.js';

/** A server answered with a field of the wrong type (or without a required one). */
export class WireTypeError extends LanyardError {
  constructor(
    /** The service whose server answered (an OAuth server's answer counts for the service signing in). */
    readonly source: ServiceName,
    /** The field's path in the answer (`value[0].properties.title`), empty for the answer itself. */
    readonly path: string,
    /** What the wire type wants there (`string`, `Array`, `("a" | "b")`). */
    readonly expected: string,
    /** What came instead, described by its type (`number`, `null`, `a string of 70 characters`). */
    readonly received: string,
    what: string,
  ) {
    super('bad_response', `${source}: ${what} is not of the documented type: ${path || 'the answer'} should be ${expected}, got ${received}`, {
      service: source,
    });
  }
}

/** `a.b[0]["odd key"]`: the path of an issue as JavaScript would spell it. */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = '';
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key).slice(0, 40))}]`;
  }
  return out;
}

/** A value described by its type only (never its text, which may be huge or hostile). */
export function describeValue(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'string') return x.length > 40 ? `a string of ${x.length} characters` : `the string ${JSON.stringify(x)}`;
  if (typeof x === 'object') return 'an object';
  if (x === undefined) return 'nothing';
  return typeof x;
}

/** Readable names of valibot's `expected` words. */
function expectedText(issue: v.BaseIssue<unknown>): string {
  const e = issue.expected ?? issue.type;
  if (e === 'Object') return 'an object';
  if (e === 'Array') return 'an array';
  if (e === '!null') return 'a value (not null)';
  return e.replace(/^\((.*)\)$/, '$1');
}

/**
 * `body` as its wire type, or a WireTypeError for the first field that is
 * not. `what` names the answer (`GET /user`, `the events list`).
 */
export function checkWire<S extends v.GenericSchema>(source: WireTypeError['source'], what: string, schema: S, body: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, body, { abortEarly: true, abortPipeEarly: true });
  if (r.success) return r.output;
  let issue: v.BaseIssue<unknown> = r.issues[0];
  // A union's own issue says only "one of": the nested issue that got deepest names the field that is wrong.
  while (issue.type === 'union' && issue.issues?.length) {
    issue = issue.issues.reduce((a, b) => ((b.path?.length ?? 0) > (a.path?.length ?? 0) ? b : a));
  }
  throw new WireTypeError(source, issuePath(issue), expectedText(issue), describeValue(issue.input), what);
}
