/**
 * `$filter` expressions of the health events list: `<property> eq '<value>'`
 * terms joined by `or`, for `service` and `region` (the documented grammar).
 */
import { ValidationError } from '../errors.js';

/** An OData string literal: single quotes around, single quotes inside doubled. */
export function quoteODataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * `service eq 'A' or service eq 'B' or region eq 'West US'`, or undefined when
 * neither list has a value. Values must be non-empty.
 */
export function buildEventsFilter(services: readonly string[] = [], regions: readonly string[] = []): string | undefined {
  const terms: string[] = [];
  for (const [property, values, flag] of [
    ['service', services, '--service'],
    ['region', regions, '--region'],
  ] as const) {
    for (const v of values) {
      if (!v.trim()) throw new ValidationError(`${flag}: the name must not be empty`);
      if (/[\u0000-\u001f\u007f]/.test(v)) throw new ValidationError(`${flag}: the name must not contain control characters`);
      terms.push(`${property} eq ${quoteODataString(v)}`);
    }
  }
  return terms.length ? terms.join(' or ') : undefined;
}

/** Percent-encodes a query value completely (RFC 3986 unreserved characters only stay as they are). */
export function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}
