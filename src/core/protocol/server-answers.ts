/**
 * Lanyard's answers to the requests a server sends on a stream (elicitation,
 * ping; under the bridge also the host's answers to sampling and roots): each
 * is a POST of its own, and the server waits for it. When the network fails
 * that POST (a reset, a server restarting behind its proxy) or the server asks
 * to come back later (5xx, 408, 429), the stream may well be resumed while the
 * request stays unanswered, so the answer is sent again once the server is
 * back: after 1 s, 1.5 s, 2.25 s and 3.4 s (ANSWER_SENDS). When every send
 * fails, AnswerNotSentError says so: the call whose stream carried the request
 * fails with it (the session's own stream and the bridge say it on stderr).
 * An answer the server took twice (the first POST arrived, its reply was
 * lost) is one it ignores: a response to a request already answered.
 */
import type { Clock } from '../deps.js';
import { LanyardError, NetworkError, TimeoutError } from '../errors.js';
import type { HttpResponse } from '../http/client.js';
import type { ProtocolSessionDeps } from './session-types.js';
import { asksAgainLater } from './jsonrpc.js';

/** Sends of one answer at most, and the waits between them (1 s, growing 1.5 times: the session stream's backoff). */
export const ANSWER_SENDS = { max: 5, firstMs: 1000, growth: 1.5 } as const;

/** Every send of an answer to a server's request failed: the request stays unanswered. */
export class AnswerNotSentError extends LanyardError {
  constructor(serverUrl: string, what: string, why: string, cause?: unknown) {
    super('protocol_error', `could not send ${what} to ${serverUrl} (${ANSWER_SENDS.max} tries): ${why}; the server's request stays unanswered`, { cause });
  }
}

/** A failure of the connection itself (reset, refused, a connect/head/idle bound), not of the call: another try may mend it. */
export function broken(err: unknown): boolean {
  if (err instanceof TimeoutError) return err.phase !== 'total';
  return err instanceof NetworkError || (!(err instanceof LanyardError) && typeof (err as { code?: unknown } | undefined)?.code === 'string');
}

export interface AnswerSend {
  readonly clock: Clock;
  /** Ends the waits (the session closes, the call is cancelled). */
  readonly signal?: AbortSignal;
  readonly serverUrl: string;
  /** What is sent, for the error: "Lanyard's answer to elicitation/create". */
  readonly what: string;
}

/**
 * The server's reply to an answer `send` POSTs, sent again after a broken connection or an answer that asks
 * to come back later, ANSWER_SENDS.max times in all; AnswerNotSentError after the last.
 */
export async function sendAnswer(send: () => Promise<HttpResponse>, o: AnswerSend): Promise<HttpResponse> {
  let why = '';
  let cause: unknown;
  for (let n = 0; n < ANSWER_SENDS.max; n++) {
    if (n > 0) await o.clock.sleep(ANSWER_SENDS.firstMs * ANSWER_SENDS.growth ** (n - 1), o.signal);
    try {
      const res = await send();
      if (!asksAgainLater(res.status)) return res;
      await res.dump();
      why = `HTTP ${res.status}`;
    } catch (err) {
      if (o.signal?.aborted || !broken(err)) throw err;
      why = err instanceof Error ? err.message : String(err);
      cause = err;
    }
  }
  throw new AnswerNotSentError(o.serverUrl, o.what, why, cause);
}

/** What Lanyard answers to a request of the server (elicitation asked or declined, ping), undefined when it cannot. */
export async function inputAnswer(deps: Pick<ProtocolSessionDeps, 'elicit'>, method: string, params: unknown): Promise<unknown> {
  if (method === 'elicitation/create') {
    const p = (params ?? {}) as { message?: string; requestedSchema?: unknown; mode?: string; url?: string };
    return deps.elicit ? await deps.elicit(p) : { action: 'decline' };
  }
  if (method === 'ping') return {};
  return undefined;
}
