/**
 * The pacing store of the CLI's HTTP client: `pacing.json` in the config
 * directory (every process of this machine), or, with a shared server named
 * by LANYARD_PACING_URL or the profile's `pacing.url`, a Redis-protocol store
 * every machine of a fleet shares (docs/fleets.md), falling back to the file
 * with one warning, or failing before sending when LANYARD_PACING_REQUIRED=1
 * (`pacing.required`) says shared pacing is required.
 */
import type { Clock } from '../core/deps.js';
import type { PacingStore } from '../core/http/pacing.js';
import type { ProfileSettings } from '../core/config/settings.js';
import { parseDuration } from './option-parse.js';
import type { Secrets } from './terminal/terminal-text.js';

export interface CliPacingOptions {
  env: NodeJS.ProcessEnv;
  settings: ProfileSettings;
  clock: Clock;
  /** This machine's store (pacing.json under the lock): the fallback. */
  local: PacingStore;
  warnOnce: (key: string, text: string) => void;
  /** The run's secrets: the store URL's password is remembered there for redaction. */
  secrets: Secrets;
  trace?: (line: string) => void;
}

/** Whether a true/false text says true (`1`, `true`, `yes`, `on`). */
const truthy = (v: string | undefined) => !!v && /^(1|true|yes|on)$/i.test(v.trim());

export async function cliPacing(o: CliPacingOptions): Promise<PacingStore> {
  const url = o.env.LANYARD_PACING_URL || o.settings['pacing.url'];
  if (!url) return o.local;
  const required =
    o.env.LANYARD_PACING_REQUIRED !== undefined && o.env.LANYARD_PACING_REQUIRED !== ''
      ? truthy(o.env.LANYARD_PACING_REQUIRED)
      : truthy(o.settings['pacing.required']);
  const timeoutText = o.env.LANYARD_PACING_TIMEOUT || undefined;
  const { RedisPacing, parsePacingUrl } = await import('../core/http/redis-pacing.js');
  // The URL's password is redacted from everything shown, as LANYARD_PACING_PASSWORD is.
  o.secrets.remember(decodeURIComponent(parsePacingUrl(url).password));
  const store = new RedisPacing({
    url,
    password: o.env.LANYARD_PACING_PASSWORD || undefined,
    clock: o.clock,
    timeoutMs: timeoutText === undefined ? undefined : Math.max(1, parseDuration(timeoutText, 'LANYARD_PACING_TIMEOUT')),
    fallback: o.local,
    required,
    requiredHint:
      "shared pacing is required (LANYARD_PACING_REQUIRED or the profile's pacing.required); unset it to pace on this machine while the server is down",
    onFallback: (why) => o.warnOnce('pacing', why),
  });
  o.trace?.(`* pacing: shared through ${store.where}${required ? ' (required)' : ''}`);
  return store;
}
