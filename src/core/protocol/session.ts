/**
 * One call to a protocol server: `initialize`, `notifications/initialized`,
 * then the requested method, every POST with the Bearer token. A 401 runs the
 * authorization flow (or a refresh on `invalid_token`) and retries once; a
 * 403 `insufficient_scope` re-authorizes once with the wider scope.
 */
import { randomUUID } from 'node:crypto';
import { AuthRequiredError, HttpError, LanyardError } from '../errors.js';
import { Protocol } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import { parseBearerChallenge } from './discovery.js';
import { authorize, currentTokens, refreshTokens, unauthorizedAgain, type ProtocolAuthDeps } from './flow.js';
import { processRpcResponse, rpcPost, sessionIdOf } from './jsonrpc.js';
import type { StoredTokens } from './store.js';
import { OAuthErrorCode } from './token.js';

export interface ProtocolCallOptions {
  readonly serverUrl: string;
  /** Default `initialize`. */
  readonly method?: string;
  readonly params?: unknown;
  readonly scopes?: string;
  readonly clientId?: string;
  readonly clientCredentials?: boolean;
  readonly clientInfo: { name: string; version: string };
}

export interface ProtocolCallResult {
  readonly response: JsonRpcResponseWire;
  readonly initialize: JsonRpcResponseWire;
  readonly sessionId?: string;
  /** True when the call had to sign in (or refresh) on the way. */
  readonly authorized: boolean;
}

export function initializeParams(clientInfo: { name: string; version: string }): Record<string, unknown> {
  return { protocolVersion: Protocol.revision, capabilities: {}, clientInfo };
}

export async function callProtocolServer(deps: ProtocolAuthDeps, o: ProtocolCallOptions): Promise<ProtocolCallResult> {
  const method = o.method ?? 'initialize';
  const s = new AuthorizedSession(deps, o);
  await s.start();
  const initParams = method === 'initialize' && o.params !== undefined ? o.params : initializeParams(o.clientInfo);
  const init = await s.request('initialize', initParams);
  if (init.error) return { response: init, initialize: init, sessionId: s.sessionId, authorized: s.authorized };
  await s.notify('notifications/initialized');
  const response = method === 'initialize' ? init : await s.request(method, o.params);
  return { response, initialize: init, sessionId: s.sessionId, authorized: s.authorized };
}

class AuthorizedSession {
  sessionId?: string;
  authorized = false;
  #tokens?: StoredTokens;
  #retried401 = false;
  #retried403 = false;

  constructor(
    readonly deps: ProtocolAuthDeps,
    readonly o: ProtocolCallOptions,
  ) {}

  async start(): Promise<void> {
    this.#tokens = await currentTokens(this.deps, this.o.serverUrl);
  }

  request(method: string, params?: unknown): Promise<JsonRpcResponseWire> {
    const id = randomUUID();
    return this.#send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) as Promise<JsonRpcResponseWire>;
  }

  async notify(method: string): Promise<void> {
    await this.#send({ jsonrpc: '2.0', method });
  }

  async #send(message: JsonRpcRequestWire): Promise<JsonRpcResponseWire | undefined> {
    for (;;) {
      const res = await rpcPost(this.deps.http, this.o.serverUrl, message, {
        accessToken: this.#tokens?.accessToken,
        sessionId: this.sessionId,
        signal: this.deps.signal,
      });
      this.sessionId = sessionIdOf(res) ?? this.sessionId;
      if (res.status === 401) {
        await res.dump();
        await this.#on401(res.headers['www-authenticate']);
        continue;
      }
      if (res.status === 403) {
        const challenge = parseBearerChallenge(res.headers['www-authenticate']);
        if (challenge?.error === OAuthErrorCode.insufficientScope) {
          await res.dump();
          await this.#onInsufficientScope(challenge.scope, res.headers['www-authenticate']);
          continue;
        }
      }
      if (res.status === 202 && message.id === undefined) {
        await res.dump();
        return undefined;
      }
      if (res.status < 200 || res.status > 299) {
        const body = await res.text().catch(() => '');
        let parsed: unknown = body;
        try {
          parsed = JSON.parse(body);
        } catch {
          /* text */
        }
        if (res.status === 404 && this.sessionId) {
          throw new LanyardError('session_expired', `${this.o.serverUrl} no longer knows session ${this.sessionId} (HTTP 404); run the command again`);
        }
        throw new HttpError(res.status, 'POST', this.o.serverUrl, parsed, res.headers);
      }
      if (message.id === undefined) {
        await res.dump();
        return undefined;
      }
      return processRpcResponse(res, message.id);
    }
  }

  async #on401(header: string | undefined): Promise<void> {
    if (this.#retried401) throw unauthorizedAgain(this.o.serverUrl, header);
    this.#retried401 = true;
    const challenge = parseBearerChallenge(header);
    const t = this.#tokens;
    let next: StoredTokens | undefined;
    if (t && (t.refreshToken || t.grant === 'client_credentials') && (!challenge?.error || challenge.error === OAuthErrorCode.invalidToken)) {
      this.deps.notify?.('The access token was refused; refreshing it');
      next = await refreshTokens(this.deps, t);
    }
    next ??= await authorize(this.deps, {
      serverUrl: this.o.serverUrl,
      scopes: this.o.scopes ?? t?.scope,
      clientId: this.o.clientId,
      clientCredentials: this.o.clientCredentials ?? t?.grant === 'client_credentials',
      challenge,
    });
    this.#tokens = next;
    this.authorized = true;
  }

  async #onInsufficientScope(scope: string | undefined, header: string | undefined): Promise<void> {
    if (this.#retried403 || !scope) {
      throw new AuthRequiredError(`${this.o.serverUrl} refused the request: insufficient scope${scope ? ` (needs "${scope}")` : ''}`, {
        hint: scope ? `run \`lanyard auth login --server ${this.o.serverUrl} --scopes "${scope}"\`` : undefined,
      });
    }
    this.#retried403 = true;
    const wider = unionScopes(this.#tokens?.scope, scope);
    this.deps.notify?.(`The server needs the scope "${scope}"; authorizing again with "${wider}"`);
    this.#tokens = await authorize(this.deps, {
      serverUrl: this.o.serverUrl,
      scopes: wider,
      clientId: this.o.clientId,
      clientCredentials: this.o.clientCredentials ?? this.#tokens?.grant === 'client_credentials',
      challenge: { ...parseBearerChallenge(header), scope: wider },
    });
    this.authorized = true;
  }
}

export function unionScopes(...lists: Array<string | undefined>): string {
  const out: string[] = [];
  for (const l of lists) for (const s of (l ?? '').split(/\s+/)) if (s && !out.includes(s)) out.push(s);
  return out.join(' ');
}
