/**
 * Errors mapping: transport failures to Lanyard's typed errors, and the
 * message an error response is reported with.
 */
import { CancelledError, HttpError, LanyardError, NetworkError, TimeoutError, oneLine } from '../errors.js';
import { redactUrl } from './redact.js';
import { tlsFailure } from './trust.js';

/** A transport error (node:http's) as a NetworkError, TimeoutError or CancelledError. */
export function mapError(err: unknown, method: string, url: string, signal?: AbortSignal, phase?: 'body'): Error {
  if (err instanceof LanyardError && err.code === 'tls_error') return err;
  if (err instanceof HttpError || err instanceof NetworkError || err instanceof TimeoutError || err instanceof CancelledError) return err;
  const safeUrl = redactUrl(url);
  const code = (err as { code?: string; name?: string })?.code;
  const name = (err as { name?: string })?.name;
  if (signal?.aborted || name === 'AbortError') return new CancelledError();
  const tls = tlsFailure(err, safeUrl);
  if (tls) return tls;
  if (phase === 'body' && code === 'ECONNRESET') {
    return new NetworkError(
      method,
      safeUrl,
      Object.assign(new Error('connection closed before the whole body arrived'), { code: 'LANYARD_BODY_CUT', original: code }),
    );
  }
  return new NetworkError(method, safeUrl, err);
}

/** The server's message in an error body (`message` or `error.message`), if any. */
export function errorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.message === 'string') return b.message;
    if (b.error && typeof b.error === 'object' && typeof (b.error as Record<string, unknown>).message === 'string') {
      return (b.error as Record<string, string>).message;
    }
  }
  return undefined;
}

/** One line saying which limit was hit, by whom (the server's first sentence) and when it resets. */
export function rateLimitMessage(kind: string, serverMessage: string | undefined, resetAt: number | undefined, status?: number): string {
  const at = resetAt !== undefined && Math.abs(resetAt) <= 8.64e15 ? new Date(resetAt).toISOString() : undefined;
  const when = at === undefined ? '' : kind === 'primary' ? `; the budget resets at ${at}` : `; retry after ${at}`;
  if (kind === 'server') {
    const said = serverMessage ? ` (${oneLine(serverMessage).slice(0, 200)})` : '';
    return `the server answered HTTP ${status ?? 429} with Retry-After${said}${when}`;
  }
  const what = kind === 'primary' ? 'API rate limit exceeded' : 'secondary rate limit';
  // The server's first sentence names the caller ("... for user ID 1."); keep it, one line.
  const first = serverMessage
    ? oneLine(serverMessage)
        .split(/(?<=\.)\s/)[0]!
        .replace(/[.\s]+$/, '')
    : undefined;
  if (first?.toLowerCase().includes(what.toLowerCase())) return `${first}${when}`;
  const label = kind === 'primary' ? what : 'Secondary rate limit exceeded';
  return `${label}${first ? ` (${first.slice(0, 200)})` : ''}${when}`;
}
