/**
 * The pacing store of the CLI's HTTP client: `pacing.json` in the config
 * directory (every process of this machine), or, with a shared server named
 * by LANYARD_PACING_URL or the profile's `pacing.url`, a Redis-protocol store
 * every machine of a fleet shares (docs/fleets.md), falling back to the file
 * with one warning, or failing before sending when LANYARD_PACING_REQUIRED=1
 * (`pacing.required`) says shared pacing is required.
 */
import type { Clock } from '../core/deps.js';
import type { PacingStore, PacingWindow } from '../core/http/pacing.js';
import type { ProfileSettings } from '../core/config/settings.js';
import { parsePacingLimits, parsePacingMargin } from '../core/ratelimit/pacing-limits.js';
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
  let parsed: URL;
  try {
    parsed = parsePacingUrl(url);
  } catch (err) {
    // One line naming where the URL came from.
    const { ConfigError } = await import('../core/errors.js');
    if (err instanceof ConfigError) throw new ConfigError(`${o.env.LANYARD_PACING_URL ? 'LANYARD_PACING_URL' : 'pacing.url'}: ${err.message}`);
    throw err;
  }
  // The URL's password is redacted from everything shown, as LANYARD_PACING_PASSWORD is.
  o.secrets.remember(decodeURIComponent(parsed.password));
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

/**
 * The code host's content-creating windows when they are not the spec's
 * (`80/1m,500/1h`): `LANYARD_PACING_LIMITS`, else the profile's
 * `pacing.limits`. An installation configured otherwise, or the emulator with
 * a window shortened for a test in real time (`lanyard emulator limits
 * --content-per-minute 20 --content-window 10s` goes with `20/10s`).
 * Undefined when neither is set; a bad value is exit 2.
 */
export function pacingWindows(env: NodeJS.ProcessEnv, settings: ProfileSettings): PacingWindow[] | undefined {
  if (env.LANYARD_PACING_LIMITS?.trim()) return parsePacingLimits(env.LANYARD_PACING_LIMITS, 'LANYARD_PACING_LIMITS');
  const set = settings['pacing.limits'];
  return set ? parsePacingLimits(set, 'pacing.limits') : undefined;
}

/** How much longer than the windows admissions are counted: `LANYARD_PACING_MARGIN`, else `pacing.margin` (default 1s; docs/fleets.md). */
export function pacingMargin(env: NodeJS.ProcessEnv, settings: ProfileSettings): number | undefined {
  if (env.LANYARD_PACING_MARGIN?.trim()) return parsePacingMargin(env.LANYARD_PACING_MARGIN, 'LANYARD_PACING_MARGIN');
  const set = settings['pacing.margin'];
  return set ? parsePacingMargin(set, 'pacing.margin') : undefined;
}

export { describeWindows } from '../core/http/pacing.js';
