/**
 * Request bodies of the hosting REST API, refused as the service refuses
 * them. Text that is not JSON is a 400 `Problems parsing JSON`; JSON of the
 * wrong type is a 422 whose message is the service's schema validator's
 * (`Invalid request.` then, after a blank line, `For '<where>', <value> is
 * not an object.`), the value written as that validator (Ruby) writes it:
 * `nil`, `"text"`, `[1, "a"]`, `{"k" => 1}`.
 */
import { HttpError, type EmuRequest } from '../../router.js';

/** A JSON value as Ruby's `inspect` writes it (the language of the service's validator). */
export function rubyInspect(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(rubyInspect).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${JSON.stringify(k)} => ${rubyInspect(x)}`)
      .join(', ')}}`;
  return String(v);
}

/** The service's 422 for a value of the wrong JSON type at `where` (`links/0/schema`: the whole body). */
export function wrongType(where: string, v: unknown, kind: 'an object' | 'an array'): HttpError {
  return new HttpError(422, `Invalid request.\n\nFor '${where}', ${rubyInspect(v)} is not ${kind}.`);
}

/** The service's 422 for an array shorter than its schema's `minItems`. */
export function tooFewItems(min: number, got: number): HttpError {
  return new HttpError(422, `Invalid request.\n\n${min} item${min === 1 ? '' : 's'} required; only ${got} ${got === 1 ? 'was' : 'were'} supplied.`);
}

/** A JSON object body (an empty body: `{}`); text that is not JSON is a 400, JSON that is not an object a 422. */
export async function readJsonObject(req: EmuRequest): Promise<Record<string, unknown>> {
  if (!(await req.text()).trim()) return {};
  const j = await req.json();
  if (j === null || typeof j !== 'object' || Array.isArray(j)) throw wrongType('links/0/schema', j, 'an object');
  return j as Record<string, unknown>;
}
