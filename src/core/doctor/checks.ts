/**
 * What `lanyard doctor` checks, as a library function returning structured
 * results: for each service of a profile, its endpoint (DNS, then TCP and TLS
 * through the proxy when one applies), the credential a command would use and
 * where it comes from, whether the service accepts it (one cheap
 * authenticated call) and when it expires, the clock skew against the
 * server's `Date`, and the rate-limit budget the answer carries; and the
 * credential store (keychain, or the 0600 file and why). No advice here: each
 * problem has a `code` (and, where one exists, a `remedy`) that the caller
 * turns into its own fix line. Every check of a service runs under a time
 * limit, so a dead endpoint cannot hang the report.
 */
import type { LanyardError } from '../errors.js';
import { Diagnosis, worst } from './diagnosis.js';
import type { Check, DoctorDeps, DoctorReport, DoctorTarget, ServiceReport } from './types.js';

export type * from './types.js';
export { DEFAULT_LIMIT_MS, withinLimit } from './limit.js';
export { credentialOrigin, EXPIRY_WARN_MS, SKEW_FAIL_MS, SKEW_WARN_MS } from './diagnosis.js';

/** The checks of one service, in turn; each under the time limit. */
export async function diagnoseService(t: DoctorTarget, deps: DoctorDeps): Promise<ServiceReport> {
  const d = new Diagnosis(t, deps);
  const target = d.target();
  if (!target) return d.end('skip');
  // DNS (direct connections: through a proxy, the proxy resolves the name).
  if (!d.report.proxy && !(await d.resolve(target.url))) return d.end('fail');
  const provider = await d.credential();
  const sent = provider ? await provider.credential() : { scheme: 'none' as const };
  if (provider) d.origin(provider, sent);
  const answer = await d.call(target.probe, provider);
  if (!answer) return d.report;
  if (answer.res.status >= 500) d.serverError(answer.res.status);
  else if (provider && sent.scheme !== 'none') {
    d.acceptance(answer.res.status, target.probe);
    await d.expiry(provider, sent as { scheme: string; token?: string });
  }
  d.clock(answer);
  d.rateLimit(answer.res);
  return d.end(worst(d.checks));
}

/**
 * The credential store as opened: the keychain, or the 0600 file and why.
 * `bindingProblem`: the keychain answered (its entries were read over D-Bus)
 * but its native binding, which writes, cannot be loaded (why), so new
 * credentials would go to the file — or, with the keychain `required`,
 * nowhere (the summary names what requires it, as the caller words it).
 */
export function keychainCheck(o: {
  kind: string;
  fallbackReason?: string;
  path?: string;
  chosen?: boolean;
  bindingProblem?: string;
  /** Set when the keychain is required: what requires it, in the caller's words (`LANYARD_KEYCHAIN=required`, a profile's setting); `true` names nothing. */
  required?: boolean | string;
  /** Credentials the 0600 file took during a fallback: how many the keychain took now, how many stay in the file, how many were older than the keychain's (removed). */
  marked?: { moved: number; left: number; stale?: number };
}): Check {
  const where = o.path ? ` (${o.path}, mode 0600)` : ' (mode 0600)';
  if (o.kind === 'keychain' && o.bindingProblem !== undefined) {
    const why = `its native binding cannot be loaded (${o.bindingProblem})`;
    if (o.required) {
      const by = typeof o.required === 'string' ? ` (${o.required})` : '';
      const summary = `the OS keychain is required${by}, and ${why}: what it holds can be read, nothing can be written to it`;
      return { name: 'keychain', status: 'fail', summary, problem: 'keychain-required', remedy: { kind: 'keychain-required' } };
    }
    const summary = `the OS keychain (Secret Service) answers, but ${why}: what it holds is read, new credentials go to a plain file${where}`;
    return { name: 'keychain', status: 'warn', summary, problem: 'keychain-binding' };
  }
  if (o.kind === 'keychain') return workingKeychain(o.marked, where);
  if (o.chosen) return { name: 'keychain', status: 'ok', summary: `credentials are kept in a plain file${where}, as chosen` };
  return {
    name: 'keychain',
    status: 'warn',
    summary: `${o.fallbackReason ?? 'the keychain cannot be used'}; credentials fall back to a plain file${where}`,
    problem: 'keychain-fallback',
  };
}

/** A keychain that works, and what it took of the file's copies written during a fallback (file-over-keychain.ts). */
function workingKeychain(marked: { moved: number; left: number; stale?: number } | undefined, where: string): Check {
  const summary = 'the OS keychain (Secret Service) is reachable and unlocked';
  const n = (k: number) => (k === 1 ? '1 credential' : `${k} credentials`);
  const took =
    (marked?.moved ? `; it took the ${n(marked.moved)} written to a plain file${where} while it could not be used` : '') +
    (marked?.stale ? `; ${n(marked.stale)} in that file, older than the keychain's own, removed` : '');
  if (!marked?.left) return { name: 'keychain', status: 'ok', summary: summary + took };
  const left = `; ${n(marked.left)} written to a plain file${where} while it could not be used stay there (the keychain did not take them now): still used, moved at the next write`;
  return { name: 'keychain', status: 'warn', summary: summary + took + left };
}

/** A required keychain that cannot be used. */
export function keychainRequiredCheck(err: LanyardError): Check {
  return { name: 'keychain', status: 'fail', summary: err.message, problem: 'keychain-required', remedy: err.remedy ?? { kind: 'keychain-required' } };
}

/** Every target in turn (one at a time: a report in order, and no burst of requests). */
export async function diagnose(targets: readonly DoctorTarget[], keychain: Check, deps: DoctorDeps): Promise<DoctorReport> {
  const services: ServiceReport[] = [];
  for (const t of targets) services.push(await diagnoseService(t, deps));
  const ok = keychain.status !== 'fail' && services.every((s) => s.status !== 'fail');
  return { ok, keychain, services };
}
