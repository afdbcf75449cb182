/**
 * `lanyard auth status`: every hosting credential (environment and stored
 * accounts) checked against GET /user, plus the lines of the protocol and
 * health modules. Exit 4 when the server refuses the credential hosting calls
 * would use, or when no credential is valid; a credential that could not be
 * checked (a rate limit, the network, a proxy, a time-out) is "unchecked", not
 * invalid, and ends with its own exit code (3 for a rate limit, else 1), as gh
 * reports a time-out apart from a bad token.
 */
import type { Context } from '../../context.js';
import { AuthRequiredError, LanyardError } from '../../../core/errors.js';
import { hostOf } from '../../../core/credentials/accounts.js';
import { renderTable } from '../../output/output.js';
import { localTime, relativeTime } from '../../terminal/time-text.js';
import { boundHostingAccount, openHostingStores, storedAccountAuth, type HostingStores } from '../../services/hosting/wiring.js';
import type { ProfileSettings } from '../../../core/config/settings.js';
import type { StoredAccount } from '../../../core/hosting/accounts.js';
import { tokenFromEnv } from '../../../core/hosting/auth.js';
import type { AuthStatusEntry, AuthStatusOptions } from './options.js';
import { storageDescription } from './common.js';
import { maskSecret } from '../../../core/credentials/mask.js';
import { describeReason, selectionJson } from '../../../core/config/bindings.js';
import { parseDuration } from '../../option-parse.js';
import { couldNotCheck, expiresWithin } from './status-expiry.js';
import { exitCodeFor } from '../../errors/exit.js';

interface Storage {
  kind: string;
  /** The 0600 file, when tokens are there. */
  path?: string;
  warning?: string;
  /** Some tokens in `kind`, others in the file at `path` (the `source` of each entry says which). */
  mixed?: true;
}

interface Judged {
  valid: boolean;
  /** `unchecked`: the server was not asked or did not answer (`error` says why); not a verdict on the token. */
  state: 'valid' | 'invalid' | 'unchecked';
  /** `unchecked`: why; `valid`: why its expiry is not known (GET /user rate-limited, no expiry on GET /rate_limit's answer). */
  error?: LanyardError;
  login?: string;
  scopes?: string[];
  /** Whose token: a user's, or an installation's / a workflow's (which act for no user). */
  tokenKind?: 'user' | 'installation' | 'workflow';
  detail?: string;
  /** From the token expiration header. */
  expiresAt?: string;
}

/** Judges a hosting token by a request it may make (core/hosting/token-check.ts); `workflow`: it came from WORKFLOW_TOKEN. */
async function check(ctx: Context, apiUrl: string, token: string, workflow = false): Promise<Judged> {
  const { checkHostingToken } = await import('../../../core/hosting/token-check.js');
  try {
    const c = await checkHostingToken(await ctx.http(), apiUrl, { scheme: 'bearer', token }, ctx.signal);
    if (!c.valid) return { valid: false, state: 'invalid', detail: 'the server refused the token (invalid, expired or revoked)' };
    if (c.kind === 'unconfirmed')
      return {
        valid: true,
        state: 'valid',
        detail: `the server takes the token; whose it is was not checked: ${c.limited.message}`,
        ...(c.expiresAt ? { expiresAt: c.expiresAt } : { error: c.limited }),
      };
    if (c.kind === 'user')
      return {
        valid: true,
        state: 'valid',
        tokenKind: 'user',
        login: c.login,
        scopes: c.scopes ? [...c.scopes] : undefined,
        ...(c.expiresAt ? { expiresAt: c.expiresAt } : {}),
      };
    const kind = workflow ? 'workflow' : 'installation';
    return { valid: true, state: 'valid', tokenKind: kind, detail: `${kind} token, user unknown` };
  } catch (err) {
    if (!(err instanceof LanyardError) || err.code === 'cancelled') throw err;
    if (err.code === 'auth_required' || err.code === 'unauthorized')
      return { valid: false, state: 'invalid', detail: `the server refused the token: ${err.message}` };
    return { valid: false, state: 'unchecked', error: err, detail: `could not check: ${err.message}` };
  }
}

/** The entry's `state` and, when it could not be checked, `checkError` (the error's code). */
const judgement = (c: Judged): Pick<AuthStatusEntry, 'state' | 'checkError'> => ({
  state: c.state,
  ...(c.state === 'unchecked' ? { checkError: c.error?.code } : {}),
});

/**
 * Loads what checking a token needs (the HTTP client, node:http or
 * node:https, GET /user) on the next turn of the event loop: while the
 * keychain opens (D-Bus round trips, then a search on a worker thread)
 * rather than after it. A client that cannot be built (a bad --timeout) is
 * reported by the first check, which asks for it again.
 */
function preloadCheck(ctx: Context, apiUrl: string): void {
  // Once the keychain's search is under way (it runs on the binding's thread): loading them earlier would delay it.
  void ctx.credentialStorage().idle.then(() => {
    ctx.http().catch(() => undefined);
    void import(apiUrl.startsWith('https:') ? 'node:https' : 'node:http');
    void import('../../../core/hosting/user.js');
  });
}

/** The hosting entries, where their tokens are stored, and why each unchecked one could not be checked (or a valid one's expiry learnt). */
interface HostingStatus {
  entries: AuthStatusEntry[];
  storage?: Storage;
  unchecked: Map<AuthStatusEntry, LanyardError>;
}

async function hostingEntries(ctx: Context, showToken: boolean): Promise<HostingStatus> {
  const { settings } = await ctx.profile();
  const apiUrl = settings['hosting.apiUrl'];
  const unchecked = new Map<AuthStatusEntry, LanyardError>();
  if (!apiUrl) return { entries: [], unchecked };
  const bound = await boundHostingAccount(ctx, apiUrl);
  preloadCheck(ctx, apiUrl);
  const host = hostOf(apiUrl);
  const entries: AuthStatusEntry[] = [];
  const shown = (t: string) => (showToken ? t : maskSecret(t));
  let activeTaken = false;
  for (const name of ['LANYARD_TOKEN', 'WORKFLOW_TOKEN'] as const) {
    if (!ctx.env[name]?.trim()) continue;
    const token = tokenFromEnv(ctx.env, name);
    const c = await check(ctx, apiUrl, token, name === 'WORKFLOW_TOKEN');
    const e: AuthStatusEntry = {
      service: 'hosting',
      host,
      account: c.login,
      ...(c.login ? { user: c.login } : {}),
      ...(c.tokenKind ? { tokenKind: c.tokenKind } : {}),
      source: `env:${name}`,
      scopes: c.scopes,
      valid: c.valid,
      ...judgement(c),
      detail: c.detail,
      ...(c.expiresAt ? { expiresAt: c.expiresAt } : {}),
      token: shown(token),
      active: !activeTaken,
      ...(!activeTaken ? { selectedBy: 'env' as const } : {}),
    };
    entries.push(e);
    if (c.error) unchecked.set(e, c.error);
    activeTaken = true;
  }
  const stores = await openHostingStores(ctx, apiUrl);
  const listed = await stores.accounts.list({ asOpened: true });
  // The account a command would use here: the directory's binding, else the active one.
  const boundLogin = bound && listed.find((a) => a.record.login.toLowerCase() === bound.login.toLowerCase())?.record.login;
  if (bound && !boundLogin && !activeTaken)
    ctx.warn(`the hosting account ${bound.login} bound to ${bound.dir} is not signed in on ${stores.accounts.host}: hosting calls here fail until it is`);
  for (const acc of listed) {
    const used = bound ? acc.record.login === boundLogin : acc.active;
    const [e, error] = await storedEntry(ctx, apiUrl, stores, settings, { ...acc, active: used }, shown, !activeTaken);
    if (error) unchecked.set(e, error);
    if (e.active) Object.assign(e, bound ? { selectedBy: 'binding', boundDir: bound.dir } : { selectedBy: 'active' });
    entries.push(e);
  }
  return { entries, storage: storageOf(stores, listed), unchecked };
}

/**
 * Where the listed accounts' tokens are: the keychain may be usable now while
 * tokens were written to the 0600 file when it refused a write (`auth token`
 * with a locked or missing collection). No account: where a new one would go.
 */
function storageOf(stores: HostingStores, listed: readonly StoredAccount[]): Storage {
  if (stores.fallbackReason)
    return { kind: 'file', path: stores.filePath, warning: `${stores.fallbackReason}; tokens are stored in ${stores.filePath} (mode 0600)` };
  const primary = stores.accounts.primary.kind;
  const inFile = listed.some((a) => a.store.kind === 'file');
  if (!inFile || primary === 'file') return { kind: primary };
  return listed.every((a) => a.store.kind === 'file') ? { kind: 'file', path: stores.filePath } : { kind: primary, path: stores.filePath, mixed: true };
}

/** One stored account, checked (and why it could not be); a refreshable token is refreshed when due or after a 401. */
async function storedEntry(
  ctx: Context,
  apiUrl: string,
  stores: HostingStores,
  settings: ProfileSettings,
  acc: StoredAccount,
  shown: (t: string) => string,
  mayBeActive: boolean,
): Promise<[AuthStatusEntry, LanyardError | undefined]> {
  const notes: string[] = [];
  const auth = await storedAccountAuth(ctx, apiUrl, settings['hosting.webUrl'], stores.accounts, { record: acc.record, store: acc.store });
  const refresh = async (force: boolean) => {
    try {
      if (force) await auth.refresh(await auth.credential());
      else await auth.refreshIfDue();
    } catch (err) {
      notes.push(`refresh failed: ${(err as Error).message}`);
    }
  };
  await refresh(false);
  let c = await check(ctx, apiUrl, auth.record!.token);
  // The refresh module (and the OAuth code it loads) only for a token the server refused.
  if (c.state === 'invalid' && (await import('../../../core/hosting/refresh.js')).canRefresh(auth.record!, ctx.clock.now())) {
    await refresh(true);
    c = await check(ctx, apiUrl, auth.record!.token);
  }
  let r = auth.record!;
  // A token GET /rate_limit vouched for (GET /user rate-limited) names no login: taken as the account's.
  const othersToken = c.valid && c.login !== undefined && c.login !== r.login;
  if (othersToken) notes.push(`the token belongs to ${c.login}`);
  // The expiry the server reports is kept with the token (a personal token's comes only in the header).
  if (c.valid && c.expiresAt && !r.refreshToken && c.expiresAt !== r.expiresAt) {
    r = { ...r, expiresAt: c.expiresAt };
    await stores.accounts.update(r, acc.store).catch(() => undefined);
  }
  if (acc.store.kind === 'file' && stores.fallbackReason) notes.push(`stored in a plain file: ${stores.fallbackReason}`);
  const detail = [c.detail, ...notes].filter(Boolean).join('; ');
  const entry: AuthStatusEntry = {
    service: 'hosting',
    host: stores.accounts.host,
    account: r.login,
    user: r.login,
    ...(c.tokenKind ? { tokenKind: c.tokenKind } : {}),
    source: acc.store.kind,
    scopes: c.scopes ?? r.scopes,
    valid: c.valid && !othersToken,
    ...(othersToken ? { state: 'invalid' as const } : judgement(c)),
    ...(detail ? { detail } : {}),
    expiresAt: r.expiresAt,
    ...(r.refreshToken ? { renewableUntil: r.refreshTokenExpiresAt ?? null } : {}),
    token: shown(r.token),
    active: acc.active && mayBeActive,
  };
  return [entry, c.error];
}

/**
 * The protocol, health and echo lines, each service at once (their modules
 * load while the keychain and the server are waited for). A service that
 * cannot be listed is a warning, said by the caller in the services' order.
 */
async function otherEntries(ctx: Context, showToken: boolean): Promise<Array<{ name: string; entries?: AuthStatusEntry[]; error?: Error }>> {
  const sources: Array<[string, () => Promise<AuthStatusEntry[]>]> = [
    ['protocol', async () => (await import('./protocol-status.js')).protocolStatusEntries(ctx, showToken)],
    ['health', async () => (await import('./health.js')).healthStatusEntries(ctx, showToken)],
    ['echo', async () => (await import('./echo.js')).echoStatusEntries(ctx, showToken)],
  ];
  return Promise.all(
    sources.map(async ([name, f]) => {
      try {
        return { name, entries: await f() };
      } catch (err) {
        return { name, error: err as Error };
      }
    }),
  );
}

/**
 * An installation's or a workflow's token: valid, its kind said where a user
 * would be; or a hosting token the server took while GET /user was rate-limited
 * (no kind: whose it is not checked).
 */
const actsForNoUser = (e: AuthStatusEntry) =>
  e.tokenKind === 'installation' || e.tokenKind === 'workflow' || (e.service === 'hosting' && e.valid && !e.tokenKind);

export async function runAuthStatus(ctx: Context, o: AuthStatusOptions): Promise<void> {
  // Started once the keychain's search is under way, so their modules load while it runs.
  const others = ctx.credentialStorage().idle.then(() => otherEntries(ctx, !!o.showToken));
  const hosting = await hostingEntries(ctx, !!o.showToken);
  const { storage } = hosting;
  const entries = [...hosting.entries];
  for (const r of await others) {
    if ((r.error as LanyardError | undefined)?.code === 'cancelled') throw r.error;
    if (r.error) ctx.warn(`could not list ${r.name} credentials: ${r.error.message}`);
    else entries.push(...r.entries!);
  }
  // The other services judge their credentials without asking a server: valid or invalid.
  for (const e of entries) e.state ??= e.valid ? 'valid' : 'invalid';
  // Said once: listing the other services' credentials may have said it already.
  if (storage?.warning) ctx.warnOnce('credential-fallback', storage.warning);
  const selection = await ctx.profileSelection();
  const profile = selectionJson(selection);
  const failure = statusFailure(ctx, o, entries, hosting);
  // Said before the listing: a reader that stops early (`| head`) still sees exit 4.
  if (failure) ctx.exitWith(exitCodeFor(failure));
  ctx.output.document({ profile, accounts: entries, storage: storage ?? null }, () => {
    showStatus(ctx, entries, storage);
    if (!entries.length) return;
    ctx.io.err(`Profile: ${selection.name} (${describeReason(selection.reason)})`);
    const used = hosting.entries.find((e) => e.active);
    if (used?.selectedBy === 'binding') ctx.io.err(`Hosting account here: ${used.account} (bound to ${used.boundDir})`);
  });
  if (failure) throw failure;
}

/**
 * The error `auth status` ends with, if any: `--expires-within`'s check, else
 * no valid credential or the hosting one in force not valid — exit 4 when the
 * server refused it, the check's own code (3 rate limit, 1 network/proxy/
 * time-out) when it could not be checked.
 */
function statusFailure(ctx: Context, o: AuthStatusOptions, entries: readonly AuthStatusEntry[], hosting: HostingStatus): LanyardError | undefined {
  const { unchecked } = hosting;
  if (o.expiresWithin !== undefined) return expiresWithin(ctx, entries, parseDuration(o.expiresWithin, '--expires-within', Number.MAX_SAFE_INTEGER), unchecked);
  const active = hosting.entries.find((e) => e.active);
  if (!entries.some((e) => e.valid)) {
    // Nothing valid: a refusal of the one in use says it all; else a credential not checked is no verdict.
    const notChecked = active?.state === 'invalid' ? undefined : active?.state === 'unchecked' ? active : entries.find((e) => e.state === 'unchecked');
    if (notChecked) return couldNotCheck(notChecked, unchecked);
    return new AuthRequiredError('no valid credential', { hint: 'sign in with `lanyard auth device` (or set LANYARD_TOKEN)' });
  }
  if (active && !active.valid) {
    if (active.state === 'unchecked') return couldNotCheck(active, unchecked);
    return new AuthRequiredError(`the credential hosting calls use (${active.source}${active.account ? `, ${active.account}` : ''}) is not valid`, {
      hint: 'sign in again with `lanyard auth device`, or fix the environment variable',
    });
  }
  return undefined;
}

/** The table of `auth status` on a terminal (tab-separated into a pipe). */
function showStatus(ctx: Context, entries: AuthStatusEntry[], storage: Storage | undefined): void {
  if (!entries.length) return ctx.io.err('Not signed in anywhere.');
  const now = ctx.clock.now();
  const expiry = (e: AuthStatusEntry) => (e.expiresAt ? Date.parse(e.expiresAt) : Number.NaN);
  const expired = (e: AuthStatusEntry) => expiry(e) <= now;
  renderTable(ctx.io, entries, [
    { header: 'service', value: (e) => e.service },
    { header: 'host', value: (e) => e.host, flexible: true, shrink: 2, min: 15 },
    { header: 'account', value: (e) => `${e.user ?? e.account ?? '-'}${e.active ? ' (active)' : ''}`, flexible: true, min: 16 },
    // Left out on a narrow terminal, in this order: source, expires, token (`--json` has them all).
    { header: 'source', value: (e) => (e.source === 'keychain' || e.source === 'file' ? `${e.source}` : e.source), optional: true, shrink: 3 },
    { header: 'scopes', value: (e) => (e.scopes?.length ? e.scopes.join(',') : '-'), flexible: true, shrink: 3 },
    {
      header: 'status',
      // Not checked: its detail says "could not check: why" (no verdict on the token).
      value: (e) =>
        e.state === 'unchecked'
          ? (e.detail ?? 'could not check')
          : `${expired(e) ? 'expired' : e.valid ? 'valid' : 'invalid'}${e.detail && (!e.valid || expired(e) || actsForNoUser(e)) ? `: ${e.detail}` : ''}`,
      style: (c, e) =>
        e.valid && !expired(e) ? `\u001b[32m${c}\u001b[39m` : e.valid || e.state === 'unchecked' ? `\u001b[33m${c}\u001b[39m` : `\u001b[31m${c}\u001b[39m`,
      flexible: true,
      min: 20,
    },
    {
      header: 'expires',
      value: (e) => (Number.isNaN(expiry(e)) ? '-' : `${localTime(expiry(e))} (${relativeTime(expiry(e), now)})`),
      raw: (e) => (Number.isNaN(expiry(e)) ? '' : String(Math.floor(expiry(e) / 1000))),
      optional: true,
      shrink: 2,
    },
    { header: 'token', value: (e) => e.token ?? '-', optional: true, shrink: 1 },
  ]);
  if (storage && !storage.warning)
    ctx.io.err(
      storage.mixed
        ? `Hosting tokens are stored in ${storageDescription(storage.kind, '')}, those whose source is "file" in ${storageDescription('file', storage.path ?? '')}.`
        : `Hosting tokens are stored in ${storageDescription(storage.kind, storage.path ?? '')}.`,
    );
}
