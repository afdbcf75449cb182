/** Shared parts of the hosting sign-in commands: endpoints, storing a token, stdin secrets. */
import type { Context } from '../../context.js';
import { CredentialStoreError, HttpError, RateLimitError, ValidationError } from '../../../core/errors.js';
import type { TokenSet } from '../../../core/hosting/oauth.js';
import { envTokenSource } from '../../../core/hosting/auth.js';
import type { TokenOrigin } from '../../../core/hosting/accounts.js';
import { openHostingStores } from '../../services/hosting/wiring.js';
import { createSpinner } from '../../terminal/spinner.js';

export { type HostingEndpoints, hostingEndpoints } from '../../services/hosting/endpoints.js';
export { promptHidden } from '../../terminal/hidden-prompt.js';

/** What works without a person at a terminal, for the hosting sign-ins. */
export const HOSTING_INSTEAD = 'in scripts and CI set LANYARD_TOKEN, or store a token with `lanyard auth token --with-token < token.txt`';

export function scopesOption(text: string | undefined): string[] {
  if (text === undefined) return [];
  // Spaces and commas separate scopes; a newline or another control character is a mistake, not a separator.
  const scopes = text.split(/[ ,]+/).filter(Boolean);
  for (const s of scopes)
    if (!/^[A-Za-z0-9:_.-]+$/.test(s))
      throw new ValidationError(`invalid scope ${JSON.stringify(s)}`, { hint: 'scopes are space-separated names such as "repo read:org"' });
  return scopes;
}

export function storageDescription(kind: string, filePath: string): string {
  return kind === 'keychain' ? 'the OS keychain' : kind === 'file' ? `${filePath} (mode 0600)` : kind;
}

/**
 * Revalidates a new token with GET /user, stores it under that login (the
 * active account) and tells the user. The token itself is never printed.
 */
export async function storeSignIn(
  ctx: Context,
  apiUrl: string,
  token: TokenSet,
  o: { origin: TokenOrigin; insecure?: boolean; clientId?: string },
): Promise<string> {
  const [{ fetchUser }, { recordFromTokenSet }] = await Promise.all([import('../../../core/hosting/user.js'), import('../../../core/hosting/accounts.js')]);
  const user = await fetchUser(await ctx.http(), apiUrl, { scheme: 'bearer', token: token.accessToken }, ctx.signal).catch((err: unknown) => {
    // An installation's or a workflow's token: the API takes it, but it acts for no user to store it under.
    if (err instanceof HttpError && err.status === 403 && isIntegrationRefusal(err))
      throw new ValidationError('the token acts for no user (an installation or workflow token), so it cannot be stored as an account', {
        hint: 'use it from the environment: LANYARD_TOKEN (or WORKFLOW_TOKEN in a workflow); `lanyard auth status` checks it',
      });
    // The login it is stored under comes only from the API (as gh): a spent budget stores nothing, and says so.
    if (err instanceof RateLimitError) throw notStored(err);
    throw err;
  });
  const stores = await openHostingStores(ctx, apiUrl, { insecure: o.insecure });
  if (stores.fallbackReason)
    ctx.warnOnce('credential-fallback', `${stores.fallbackReason}; storing the token in ${stores.filePath} (mode 0600) instead of the OS keychain`);
  const record = recordFromTokenSet(token, {
    login: user.login,
    origin: o.origin,
    clientId: o.clientId,
    nowMs: ctx.clock.now(),
    scopes: token.scopes.length ? token.scopes : user.scopes,
  });
  // A personal token's expiry comes in a response header, not with the token.
  if (!record.expiresAt && user.tokenExpiresAt) record.expiresAt = user.tokenExpiresAt;
  let store: Awaited<ReturnType<typeof stores.accounts.save>>;
  try {
    store = await stores.accounts.save(record);
  } catch (err) {
    if (!(err instanceof CredentialStoreError) || stores.accounts.primary.kind !== 'keychain') throw err;
    // The keychain answered the probe but refused the write (locked, timed out): keep the sign-in.
    ctx.warn(`${err.message}; storing the token in ${stores.filePath} (mode 0600) instead of the OS keychain`);
    const { HostingAccounts } = await import('../../../core/hosting/accounts.js');
    store = await new HostingAccounts(apiUrl, [stores.file]).save(record);
  }
  ctx.io.err(`✓ Logged in as ${user.login}`);
  ctx.io.err(`  token stored in ${storageDescription(store.kind, stores.filePath)} as ${'hosting:' + stores.accounts.host + ':' + user.login}`);
  const env = envTokenSource(ctx.env);
  if (env) ctx.warn(`${env} is set in the environment and takes precedence over the stored token`);
  return user.login;
}

/** A spinner on a TTY stderr (else nothing) around a flow; `start()` is called by the flow when it begins waiting. */
export async function withSpinner<T>(
  ctx: Context,
  text: string,
  f: (spinner: { start(): void; text(t: string): boolean; stop(): void }) => Promise<T>,
): Promise<T> {
  const spinner = await createSpinner(ctx.io);
  let current = text;
  let started = false;
  try {
    return await f({
      start: () => {
        if (spinner.live) spinner.show(current);
        started = true;
      },
      text: (t) => {
        current = t;
        if (spinner.live && started) spinner.update(t);
        return spinner.live;
      },
      stop: () => {
        spinner.stop();
        started = false;
      },
    });
  } finally {
    spinner.stop();
  }
}

/** A rate limit met by GET /user while storing a token: the same limit (exit 3, its reset in the hint), saying nothing was stored. */
function notStored(err: RateLimitError): RateLimitError {
  const e = new RateLimitError(
    `the token was not stored: GET /user, which names the account it is stored under, was refused: ${err.message}`,
    err.kind,
    err.resetAt,
    err.state,
  );
  if (err.hint) e.hint = err.hint;
  return e;
}

/** The user endpoint's 403 for a token that is not a user's (the real service: "Resource not accessible by integration"). */
function isIntegrationRefusal(err: HttpError): boolean {
  const m = (err.body as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' && /not accessible by integration/i.test(m);
}
