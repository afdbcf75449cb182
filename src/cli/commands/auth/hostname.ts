/** `--hostname` of `auth switch` and `auth setup-git`: a host name with an optional port, as a URL would carry it. */
import { ValidationError } from '../../../core/errors.js';

/** The host, lower-cased; a usage error (exit 2) for anything a URL could not carry as its host. */
export function hostnameOption(value: string): string {
  const host = value.trim().toLowerCase();
  const refuse = () => new ValidationError(`--hostname: ${JSON.stringify(value)} is not a host name`);
  if (!/^[a-z0-9.-]+(:\d+)?$/.test(host) || host.startsWith('.') || host.startsWith('-')) throw refuse();
  let parsed: URL;
  try {
    parsed = new URL(`https://${host}`);
  } catch {
    throw refuse(); // e.g. a number too large to be an IPv4 address
  }
  // What the URL made of it must be what was given (no normalised IPv4 forms such as 0x7f.1).
  if (parsed.host !== host && parsed.host !== host.replace(/:443$/, '')) throw refuse();
  return host;
}
