/**
 * Checks of what a program hands the library's entry points, made before the
 * first request: a wrong option is a ValidationError (code `validation`)
 * naming it, not a TypeError from deep inside (after a request was sent).
 * The value itself is never shown: a URL may carry a token or a password.
 */
import { ValidationError } from './errors.js';

/** `value` when it is an absolute http:// or https:// URL; else a ValidationError naming `option`. */
export function httpUrlOption(value: unknown, option: string): string {
  if (typeof value !== 'string' || value === '') throw new ValidationError(`${option} is required: an absolute http:// or https:// URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(`${option} is not an absolute URL (it needs http:// or https:// and a host)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError(`${option} must be an http:// or https:// URL`);
  return value;
}

/** `value` when it is a function; else a ValidationError naming `option`. */
export function functionOption<F extends (...args: never[]) => unknown>(value: F | undefined, option: string): F {
  if (typeof value !== 'function') throw new ValidationError(`${option} is required: a function`);
  return value;
}

/** `value` when it is a non-empty string; else a ValidationError naming `option`. */
export function stringOption(value: unknown, option: string): string {
  if (typeof value !== 'string' || value === '') throw new ValidationError(`${option} is required: a non-empty string`);
  return value;
}

/** Throws a ValidationError naming the first of `names` that `o` lacks (undefined or null). */
export function presentOptions<T extends object>(o: T | undefined, names: readonly (keyof T & string)[], what: string): void {
  const missing = names.find((n) => o?.[n] === undefined || o?.[n] === null);
  if (missing) throw new ValidationError(`${what}.${missing} is required`);
}
