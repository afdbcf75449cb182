/**
 * Directory bindings: a profile, or a hosting account of a host, chosen by
 * the directory a command runs in (`profile use NAME --dir DIR`, `auth switch
 * --user U --dir DIR`). They live in the config file only — nothing inside a
 * user's repository decides which credential is sent. Both the bound
 * directory and the working directory are compared by their real paths
 * (symlinks resolved), and the longest bound directory that holds the
 * working directory wins. The working directory is a parameter: the library
 * never asks the process for it.
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { ConfigError } from '../errors.js';

/** One bound directory: its profile and/or the hosting account per API host. */
export interface DirBinding {
  /** Real path of the directory. */
  dir: string;
  profile?: string;
  /** API host (as `auth status` shows it) → login. */
  accounts?: Record<string, string>;
}

/** Why a profile (or an account) was chosen. */
export type SelectionReason =
  | { kind: 'flag' }
  | { kind: 'env'; variable: string }
  | { kind: 'binding'; dir: string }
  | { kind: 'active' }
  | { kind: 'default' };

export interface ProfileSelection {
  name: string;
  reason: SelectionReason;
}

/**
 * The real path of `dir` (relative to `cwd` when relative); a directory that
 * does not exist is a ConfigError, unless `gone` (removing the binding of a
 * directory deleted since): then the path as given, resolved.
 */
export function realDir(dir: string, cwd: string, o: { gone?: boolean } = {}): string {
  const abs = isAbsolute(dir) ? dir : resolve(cwd, dir);
  try {
    const real = realpathSync(abs);
    // A binding names a directory (docs/accounts.md): a file, a device or a FIFO is refused.
    if (!o.gone && !statSync(real).isDirectory()) throw new ConfigError(`--dir ${JSON.stringify(dir)}: not a directory`);
    return real;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if (o.gone) return abs;
    throw new ConfigError(
      `cannot bind ${JSON.stringify(dir)}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (err as Error).message.split('\n')[0]}`,
    );
  }
}

/** The real path of `p`, or `p` resolved when it cannot be resolved (removed since). */
function realOrSame(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** Is `dir` the directory `cwd` or one above it (whole path segments)? */
export function holds(dir: string, cwd: string): boolean {
  if (dir === cwd) return true;
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  return cwd.startsWith(prefix);
}

/**
 * The binding that applies in `cwd` among those for which `has` holds: the
 * longest bound directory holding the real working directory. Bound
 * directories are resolved again (a symlink on the way may have changed).
 */
export function matchBinding(bindings: readonly DirBinding[], cwd: string, has: (b: DirBinding) => boolean): DirBinding | undefined {
  if (!bindings.some(has)) return undefined;
  const here = realOrSame(cwd);
  let best: { b: DirBinding; len: number } | undefined;
  for (const b of bindings) {
    if (!has(b)) continue;
    for (const d of new Set([b.dir, realOrSame(b.dir)])) {
      if (holds(d, here) && (!best || d.length > best.len)) best = { b, len: d.length };
    }
  }
  return best?.b;
}

/**
 * Which profile a command uses: `--profile`, then LANYARD_PROFILE, then the
 * binding of the working directory, then the globally active profile, else
 * "default" — with the reason (for `profile list`, `auth status`, doctor).
 */
export function selectProfile(o: {
  flag?: string;
  env: Readonly<Record<string, string | undefined>>;
  bindings: readonly DirBinding[];
  active?: string;
  cwd?: string;
}): ProfileSelection {
  // An empty --profile (an unset shell variable) is refused, not read as no --profile at all.
  if (o.flag !== undefined && !o.flag.trim()) throw new ConfigError('--profile: the profile name is empty', { hint: 'name a profile, or leave --profile out' });
  if (o.flag) return { name: o.flag, reason: { kind: 'flag' } };
  if (o.env.LANYARD_PROFILE) return { name: o.env.LANYARD_PROFILE, reason: { kind: 'env', variable: 'LANYARD_PROFILE' } };
  const bound = o.cwd ? matchBinding(o.bindings, o.cwd, (b) => !!b.profile) : undefined;
  if (bound) return { name: bound.profile!, reason: { kind: 'binding', dir: bound.dir } };
  if (o.active) return { name: o.active, reason: { kind: 'active' } };
  return { name: 'default', reason: { kind: 'default' } };
}

/** The hosting account bound for `host` in `cwd`, if any. */
export function boundAccount(bindings: readonly DirBinding[], host: string, cwd: string | undefined): { login: string; dir: string } | undefined {
  if (!cwd) return undefined;
  const b = matchBinding(bindings, cwd, (x) => !!x.accounts && Object.hasOwn(x.accounts, host));
  return b ? { login: b.accounts![host]!, dir: b.dir } : undefined;
}

/** A selection as `profile list --json` and `auth status --json` give it: the reason's kind, and the bound directory for a binding. */
export function selectionJson(s: ProfileSelection): { name: string; reason: SelectionReason['kind']; dir?: string } {
  return { name: s.name, reason: s.reason.kind, ...(s.reason.kind === 'binding' ? { dir: s.reason.dir } : {}) };
}

/** A reason in words: `bound to /work/acme`, `--profile`, `LANYARD_PROFILE`, `the active profile`, `no profile is active`. */
export function describeReason(r: SelectionReason): string {
  switch (r.kind) {
    case 'flag':
      return '--profile';
    case 'env':
      return `${r.variable} is set`;
    case 'binding':
      return `bound to ${r.dir}`;
    case 'active':
      return 'the active one';
    case 'default':
      return 'none is active';
  }
}

/** Reads the bindings of a config file's content, dropping malformed entries. */
export function parseBindings(v: unknown): DirBinding[] {
  if (!Array.isArray(v)) return [];
  const out: DirBinding[] = [];
  for (const e of v) {
    if (!e || typeof e !== 'object' || typeof (e as DirBinding).dir !== 'string' || !isAbsolute((e as DirBinding).dir)) continue;
    const b = e as DirBinding;
    const accounts =
      b.accounts && typeof b.accounts === 'object' ? Object.fromEntries(Object.entries(b.accounts).filter(([, l]) => typeof l === 'string' && l)) : undefined;
    out.push({
      dir: b.dir,
      ...(typeof b.profile === 'string' && b.profile ? { profile: b.profile } : {}),
      ...(accounts && Object.keys(accounts).length ? { accounts } : {}),
    });
  }
  return out;
}

/** `bindings` with `change` applied to the entry of `dir` (created when missing; removed when left empty). */
export function editBinding(bindings: readonly DirBinding[], dir: string, change: (b: DirBinding) => DirBinding): DirBinding[] {
  const i = bindings.findIndex((b) => b.dir === dir);
  const next = change(i >= 0 ? { ...bindings[i]!, ...(bindings[i]!.accounts ? { accounts: { ...bindings[i]!.accounts } } : {}) } : { dir });
  const empty = !next.profile && (!next.accounts || !Object.keys(next.accounts).length);
  const clean: DirBinding = {
    dir,
    ...(next.profile ? { profile: next.profile } : {}),
    ...(next.accounts && Object.keys(next.accounts).length ? { accounts: next.accounts } : {}),
  };
  const rest = bindings.filter((_, j) => j !== i);
  return empty ? rest : i >= 0 ? [...bindings.slice(0, i), clean, ...bindings.slice(i + 1)] : [...rest, clean];
}
