/**
 * `lanyard doctor`: the library's checks (core/doctor/checks.ts) for every
 * service of the registry, with the credential each service's commands would
 * use; the fix of each problem through hints.ts; human lines or --json.
 */
import type { ProfileSelection } from '../../../core/config/bindings.js';
import type { Context } from '../../context.js';
import { LanyardError } from '../../../core/errors.js';
import {
  type Check,
  DEFAULT_LIMIT_MS,
  type DoctorTarget,
  diagnose,
  keychainCheck,
  keychainRequiredCheck,
  type ServiceReport,
} from '../../../core/doctor/checks.js';
import { proxySettings } from '../../../core/http/proxy.js';
import { keychainBindingProblem } from '../../../core/credentials/keychain-binding.js';
import type { MarkedMove } from '../../../core/credentials/file-over-keychain.js';
import { SERVICES } from '../../services/registry.js';
import { doctorFix } from '../../errors/hints.js';
import { parseDuration } from '../../option-parse.js';
import { ExitStatus } from '../../errors/exit.js';
import { UsageError } from '../../errors/usage-error.js';
import type { DoctorOptions } from './options.js';
import type { ServiceName } from '../../../core/errors.js';
import { terminalText } from '../../terminal/terminal-text.js';

/** A check as --json shows it: the library's fields and the fix line, never the remedy object. */
interface CheckJson {
  name: Check['name'];
  status: Check['status'];
  summary: string;
  problem?: string;
  fix?: string;
}

const checkJson = (c: Check, s?: ServiceReport): CheckJson => {
  const fix = doctorFix(c, fixOf(s));
  return { name: c.name, status: c.status, summary: c.summary, ...(c.problem ? { problem: c.problem } : {}), ...(fix ? { fix } : {}) };
};

const fixOf = (s: ServiceReport | undefined) => (s ? { service: s.service, source: s.credential?.source, url: s.url } : {});

/**
 * The credential store as opened, or why a required keychain cannot be used. A keychain is
 * usable only if its native binding loads too (it writes): doctor loads it, which `auth status` does not.
 */
async function storeCheck(ctx: Context): Promise<{ check: Check; kind?: string }> {
  try {
    const st = await ctx.credentialStorage();
    const chosen = ctx.env.LANYARD_KEYCHAIN === 'off' || ctx.env.LANYARD_INSECURE_STORAGE === '1';
    const bindingProblem = st.primary.kind === 'keychain' ? await keychainBindingProblem() : undefined;
    // A keychain that writes takes what the file holds since a fallback (file-over-keychain.ts); a failure leaves it there, and says so.
    const marked = st.moveMarked && bindingProblem === undefined ? await movedMarked(st.moveMarked) : undefined;
    const o = { kind: st.primary.kind, fallbackReason: st.fallbackReason, path: st.file.path, chosen, bindingProblem, required: st.required, marked };
    return { check: keychainCheck(o), kind: st.primary.kind };
  } catch (err) {
    if (err instanceof LanyardError && err.code === 'credential_store') return { check: keychainRequiredCheck(err) };
    throw err;
  }
}

/** What a move of the file's marked copies did, in numbers (none when nothing was marked); one that could not run (its lock busy) says nothing: the next write moves them. */
async function movedMarked(move: () => Promise<MarkedMove>): Promise<{ moved: number; left: number; stale: number } | undefined> {
  const r = await move().catch(() => undefined);
  return r && (r.moved.length || r.left.length || r.stale.length ? { moved: r.moved.length, left: r.left.length, stale: r.stale.length } : undefined);
}

/** The profile's reason as doctor's --json says it (docs/doctor.md). */
function reasonJson(r: ProfileSelection['reason']): { kind: string; via?: string; dir?: string } {
  if (r.kind === 'flag') return { kind: 'flag', via: '--profile' };
  if (r.kind === 'env') return { kind: 'environment', via: r.variable };
  if (r.kind === 'binding') return { kind: 'binding', dir: r.dir };
  if (r.kind === 'active') return { kind: 'active', via: 'profile use' };
  return { kind: 'default' };
}

const why = (c: ProfileSelection): string => {
  const r = c.reason;
  if (r.kind === 'flag') return 'chosen with --profile';
  if (r.kind === 'env') return `chosen with ${r.variable}`;
  if (r.kind === 'binding') return `bound to ${r.dir} (\`lanyard profile use NAME --dir DIR\`)`;
  if (r.kind === 'active') return 'the active profile (`lanyard profile use`)';
  return 'the default (no --profile, no LANYARD_PROFILE, no binding, no active profile)';
};

export async function runDoctor(ctx: Context, o: DoctorOptions): Promise<void> {
  const limitMs = o.checkTimeout !== undefined ? parseDuration(o.checkTimeout, '--check-timeout') : DEFAULT_LIMIT_MS;
  if (limitMs <= 0) throw new UsageError('--check-timeout must be more than 0');
  const choice = await ctx.profileSelection();
  const { name, settings } = await ctx.profile();
  const store = await storeCheck(ctx);
  const http = await ctx.http();
  const targets: DoctorTarget[] = (Object.keys(SERVICES) as ServiceName[]).map((service) => {
    const e = SERVICES[service];
    return {
      service,
      url: () => (e.doctor.url ? e.doctor.url(settings, name) : e.base(settings, name)),
      probe: (url) => e.doctor.probe(url, settings),
      credential: () => e.provider(ctx, settings, name, {}),
      needsCredential: e.signIn({}) !== undefined,
    };
  });
  const report = await diagnose(targets, store.check, {
    http,
    clock: ctx.clock,
    proxy: proxySettings(ctx.env, { proxy: settings['network.proxy'], noProxy: settings['network.noProxy'] }),
    limitMs,
    signal: ctx.signal,
    ...(store.kind ? { storeKind: store.kind } : {}),
  });
  // Said before the report: a reader that stops early (`| head`) still sees exit 1.
  if (!report.ok) ctx.exitWith(1);
  ctx.output.document(
    {
      ok: report.ok,
      profile: { name, reason: reasonJson(choice.reason) },
      keychain: checkJson(report.keychain),
      services: report.services.map(({ checks, ...s }) => ({ ...s, checks: checks.map((c) => checkJson(c, { ...s, checks })) })),
    },
    () => render(ctx, choice, report.keychain, report.services),
  );
  if (!report.ok) throw new ExitStatus(1);
}

function render(ctx: Context, choice: ProfileSelection, keychain: Check, services: readonly ServiceReport[]): void {
  const color = ctx.io.color;
  const paint = (code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[39m` : text);
  const mark = (s: Check['status']) =>
    s === 'ok' ? paint(32, 'ok  ') : s === 'warn' ? paint(33, 'warn') : s === 'fail' ? paint(31, 'FAIL') : paint(90, 'skip');
  // The marks are the only colour, added beside text sanitised first (a summary may quote a server): printStyled keeps only them.
  const lines: string[] = [terminalText(`Profile ${choice.name}: ${why(choice)}`)];
  const line = (c: Check, s?: ServiceReport) => {
    lines.push(`  ${mark(c.status)} ${terminalText(`${c.name.padEnd(10)} ${c.summary}`)}`);
    const fix = doctorFix(c, fixOf(s));
    if (fix) lines.push(terminalText(`       ${''.padEnd(10)} fix: ${fix}`));
  };
  lines.push('', 'credential store');
  line(keychain);
  for (const s of services) {
    lines.push('', terminalText(`${s.service}${s.url ? `  ${s.url}` : ''}`));
    for (const c of s.checks) line(c, s);
  }
  const failed: string[] = services.filter((s) => s.status === 'fail').map((s) => s.service);
  if (keychain.status === 'fail') failed.unshift('credential store');
  const none = services.every((s) => s.status === 'skip');
  lines.push(
    '',
    failed.length
      ? `Problems with: ${failed.join(', ')}.`
      : none
        ? `No service is configured in profile ${choice.name}: see \`lanyard profile list\` (\`lanyard emulator start\` makes the profile "emulator").`
        : 'Everything works.',
  );
  ctx.io.printStyled(`${lines.join('\n')}\n`);
}
