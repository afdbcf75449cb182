/**
 * User input placed in a URL path (a mailbox user, a subscription id, ...)
 * must stay one segment: `..`, `.`, an empty string or a control character
 * is refused (exit 2) and every other character is percent-encoded, so `/`,
 * `?`, `#` and `%2e%2e` reach the server as data and can never change which
 * endpoint the request (and its credential) goes to.
 */
import { ValidationError } from './errors.js';

export function pathSegment(value: string, what: string): string {
  if (value === '' || value === '.' || value === '..' || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new ValidationError(`${what}: ${JSON.stringify(value)} cannot be used in a request path`);
  }
  return encodeURIComponent(value);
}
