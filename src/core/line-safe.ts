/**
 * Values that go into a line protocol (git's credential protocol, HTTP
 * headers, form bodies): a CR, LF or NUL in one would end the line or the
 * message and let the rest be read as other fields (git's CVE-2020-5260).
 * Such values are refused, never cleaned.
 */
import { LanyardError } from './errors.js';

const LINE_BREAKING = /[\r\n\0]/;

/** Whether `value` holds a CR, LF or NUL. */
export function breaksLine(value: string): boolean {
  return LINE_BREAKING.test(value);
}

/** `value` itself, or a `bad_response` error naming `what` when it holds a CR, LF or NUL. */
export function lineSafe(what: string, value: string): string {
  if (breaksLine(value)) throw new LanyardError('bad_response', `${what} holds a carriage return, line feed or NUL; refusing to use it`);
  return value;
}
