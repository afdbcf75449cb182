/**
 * How `auth status` ends for a credential that could not be checked, and
 * `--expires-within`'s check of the credentials a command would use.
 */
import type { Context } from '../../context.js';
import { AuthRequiredError, HttpError, LanyardError, RateLimitError } from '../../../core/errors.js';
import type { AuthStatusEntry } from './options.js';
import { localTime } from '../../terminal/time-text.js';

/** A credential the server could not be asked about (`expiry`: whose expiry it did not say): the check's error, with its code (a rate limit: exit 3). */
export function couldNotCheck(e: AuthStatusEntry, unchecked: ReadonlyMap<AuthStatusEntry, LanyardError>, expiry = false): LanyardError {
  const err = unchecked.get(e);
  const which = `the ${e.service} credential (${e.source}${e.account ? `, ${e.account}` : ''})`;
  const message = `${expiry ? `could not learn when ${which} expires` : `could not check ${which}, so it is not known to be invalid`}: ${err?.message ?? e.detail}`;
  if (err instanceof RateLimitError) {
    // Not "rerun with --wait": a status check never waits on a limit.
    const at = err.kind === 'primary' ? 'the budget resets at' : 'try again after';
    const when = err.resetAt === undefined ? 'try again later' : `${at} ${localTime(err.resetAt)} local time`;
    return Object.assign(new RateLimitError(message, err.kind, err.resetAt, err.state), { hint: `${when} (a status check does not wait for a rate limit)` });
  }
  // GET /user answered by another origin (never sent the token): the API moved, or the setting names the wrong address.
  const moved = err instanceof HttpError && err.otherOrigin ? 'check the API address: `lanyard config get hosting.apiUrl`' : undefined;
  return new LanyardError(err?.code ?? 'network_error', message, {
    // The error's own advice when it has some (a time-out: raise --timeout), else where to look.
    hint: err?.hint ?? moved ?? (err?.remedy ? undefined : 'check the network and the proxy settings (HTTPS_PROXY, NO_PROXY), then try again'),
    ...(err?.remedy ? { remedy: err.remedy } : {}),
  });
}

/**
 * `--expires-within`: exit 4 when a credential a command would use (the
 * hosting credential in force here, the active health token) is invalid or
 * expires within `ms` — for a refreshable token, when its refresh token does;
 * else the check's code when one could not be checked; else exit 0.
 */
export function expiresWithin(
  ctx: Context,
  entries: readonly AuthStatusEntry[],
  ms: number,
  unchecked: ReadonlyMap<AuthStatusEntry, LanyardError>,
): LanyardError | undefined {
  const now = ctx.clock.now();
  const used = entries.filter((e) => e.active);
  const ending = used.filter((e) => {
    if (e.state === 'unchecked') return false;
    if (!e.valid) return true;
    const until = e.renewableUntil !== undefined ? e.renewableUntil : e.expiresAt;
    return until !== undefined && until !== null && Date.parse(until) <= now + ms;
  });
  if (!ending.length) {
    const notChecked = used.find((e) => e.state === 'unchecked');
    if (notChecked) return couldNotCheck(notChecked, unchecked);
    // Taken by the server, its expiry not said (GET /user rate-limited, none on /rate_limit's answer): not known to last.
    const unknown = used.find((e) => e.valid && unchecked.has(e) && !e.expiresAt && e.renewableUntil === undefined);
    return unknown && couldNotCheck(unknown, unchecked, true);
  }
  const what = (e: AuthStatusEntry) => {
    const until = e.renewableUntil ?? e.expiresAt;
    return `${e.service} ${e.account ?? e.host} (${e.source}) ${!e.valid ? 'is not valid' : `expires ${until ? `at ${until}` : ''}`.trim()}`;
  };
  return new AuthRequiredError(`${ending.map(what).join('; ')}`, { hint: [...new Set(ending.map(renewHint))].join('; ') });
}

/** How to renew a credential: `auth refresh` renews a stored hosting sign-in only, not a token from the environment. */
function renewHint(e: AuthStatusEntry): string {
  const envVar = e.source.startsWith('env:') ? e.source.slice(4) : /^[A-Z][A-Z0-9_]*$/.test(e.source) ? e.source : undefined;
  if (envVar === 'WORKFLOW_TOKEN') return 'WORKFLOW_TOKEN is issued for each workflow run: it cannot be renewed from here';
  if (envVar) return `${envVar} comes from the environment: put a new token in it (\`lanyard auth refresh\` renews stored sign-ins only)`;
  if (e.service === 'health') return 'sign in again with `lanyard auth login --health`';
  if (e.service === 'protocol') return `sign in again with \`lanyard auth login --server ${e.host}\``;
  return 'renew it with `lanyard auth refresh` (or sign in again)';
}
