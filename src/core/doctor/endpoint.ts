/** The endpoint check: the probe sent once, and a failed request as the step that failed (DNS, TCP, TLS, proxy, time limit). */
import { LanyardError, type Remedy } from '../errors.js';
import type { CredentialProvider, HttpResponse } from '../http/types.js';
import { LimitReached } from './limit.js';
import type { Check, DoctorDeps, Probe, ProblemCode, ServiceReport } from './types.js';

const errno = (err: unknown): string | undefined => {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
};

/** A failed request as the endpoint check's result: which step failed. */
export function endpointFailure(err: unknown, host: string, limitMs: number): Check {
  const fail = (problem: ProblemCode, summary: string, remedy?: Remedy): Check => ({
    name: 'endpoint',
    status: 'fail',
    summary,
    problem,
    ...(remedy ? { remedy } : {}),
  });
  if (err instanceof LimitReached) return fail('timeout', `no answer from ${host} within ${Math.ceil(limitMs / 1000)} s`);
  const code = err instanceof LanyardError ? err.code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'tls_error') return fail('tls', message, (err as LanyardError).remedy);
  if (code === 'proxy_error') return fail('proxy', message);
  if (code === 'timeout') return fail('timeout', message);
  if (code === 'insecure_transport') return fail('bad-url', message, (err as LanyardError).remedy);
  const e = errno(err);
  if (e === 'ENOTFOUND' || e === 'EAI_AGAIN' || e === 'EAI_NONAME') return fail('dns', `DNS: ${host} not found (${e})`);
  if (e === 'ECONNREFUSED' || e === 'EHOSTUNREACH' || e === 'ENETUNREACH' || e === 'ETIMEDOUT' || e === 'ECONNRESET')
    return fail('connect', `TCP: cannot connect to ${host} (${e})`);
  return fail('network', message);
}

/** The probe's answer, and when it was sent and came (the clock check's bounds). */
export interface Answer {
  res: HttpResponse;
  sentAt: number;
  answeredAt: number;
}

/** The probe sent once (no retry, no redirect), its body read, every status taken. */
export async function sendProbe(
  deps: DoctorDeps,
  probe: Probe,
  provider: CredentialProvider | undefined,
  limitMs: number,
  signal: AbortSignal,
): Promise<Answer> {
  const sentAt = deps.clock.now();
  const res = await deps.http.request({
    method: probe.method ?? 'GET',
    url: probe.url,
    ...(probe.json !== undefined ? { json: probe.json } : {}),
    ...(probe.headers ? { headers: probe.headers } : {}),
    ...(provider ? { auth: provider } : {}),
    signal,
    okStatus: () => true,
    redirect: 'manual',
    retry: false,
    timeouts: { connectMs: limitMs, headersMs: limitMs, bodyMs: limitMs, totalMs: limitMs },
  });
  const answeredAt = deps.clock.now();
  await res.dump();
  return { res, sentAt, answeredAt };
}

export function endpointSummary(host: string, r: ServiceReport): string {
  if (r.proxy) return `${host} reached through the proxy ${r.proxy}`;
  return `${host} reached${r.addresses?.length ? ` (${r.addresses.join(', ')})` : ''}`;
}

export async function defaultLookup(host: string): Promise<string[]> {
  const { lookup } = await import('node:dns/promises');
  return (await lookup(host, { all: true })).map((a) => a.address);
}
