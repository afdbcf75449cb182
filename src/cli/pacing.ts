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
import { parseDuration } from './option-parse.js';
import { UsageError } from './errors/usage-error.js';
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
 * `LANYARD_PACING_LIMITS`: the code host's content-creating windows when they
 * are not the spec's (`80/1m,500/1h`): an installation configured otherwise,
 * or the emulator with a window shortened for a test in real time
 * (`lanyard emulator limits --content-per-minute 20 --content-window 10s`
 * goes with `LANYARD_PACING_LIMITS=20/10s`). Undefined when unset.
 */
export function pacingWindows(text: string | undefined): PacingWindow[] | undefined {
  if (text === undefined || !text.trim()) return undefined;
  return text.split(',').map((part) => {
    const m = /^\s*(\d+)\s*\/\s*(\S+)\s*$/.exec(part);
    const windowMs = m ? parseDuration(m[2]!, 'LANYARD_PACING_LIMITS') : 0;
    if (!m || !(windowMs > 0)) throw new UsageError(`LANYARD_PACING_LIMITS: "${part.trim()}" is not COUNT/DURATION (e.g. 80/1m,500/1h)`);
    return { limit: Number(m[1]), windowMs };
  });
}

/** `LANYARD_PACING_MARGIN`: how much longer than the server's windows admissions are counted (default 1s; docs/fleets.md). */
export function pacingMargin(text: string | undefined): number | undefined {
  return text === undefined || !text.trim() ? undefined : parseDuration(text, 'LANYARD_PACING_MARGIN');
}

/** `80 a minute, 500 an hour`, `20 in 10 s`: the windows in words. */
export function describeWindows(windows: readonly PacingWindow[]): string {
  const per = (ms: number) => (ms === 60_000 ? 'a minute' : ms === 3_600_000 ? 'an hour' : `in ${ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}`);
  return windows.map((w) => `${w.limit} ${per(w.windowMs)}`).join(', ');
}
