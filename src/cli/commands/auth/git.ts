/**
 * git over HTTPS with the signed-in hosting token: `auth git-credential` is a
 * git credential helper (git-credential(1): key=value lines on stdin, a blank
 * line or EOF ends them); `auth setup-git` registers it for the web host, as
 * the code host's CLI does (`credential.<url>.helper`).
 */
import { spawn } from 'node:child_process';
import type { Context } from '../../context.js';
import { requireSetting } from '../../../core/config/settings.js';
import { LanyardError } from '../../../core/errors.js';
import { lineSafe } from '../../../core/line-safe.js';
import { hostnameOption } from './hostname.js';
import { envTokenSource } from '../../../core/hosting/auth.js';
import { hostingTarget } from '../../services/hosting/wiring.js';
import { readStdinText } from '../../terminal/stdin.js';
import { UsageError } from '../../errors/usage-error.js';
import type { AuthSetupGitOptions } from './options.js';

/** Parses git's credential description (`key=value` lines). */
export function parseCredentialRequest(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const l = line.replace(/\r$/, '');
    if (!l) break;
    const i = l.indexOf('=');
    if (i > 0) out[l.slice(0, i)] = l.slice(i + 1);
  }
  return out;
}

async function webOrigin(ctx: Context): Promise<URL> {
  const { name, settings } = await ctx.profile();
  return new URL(requireSetting(settings, 'hosting.webUrl', name));
}

/**
 * `get`: the token as the password (the login, when known, as the user name)
 * when git asks for the web host of the profile, over its scheme — of the
 * stored account git names as the user name, else of the active one; nothing at
 * all otherwise, so git goes on to its other helpers. `store` and `erase`:
 * nothing to do — tokens come from `lanyard auth`, never from git.
 */
export async function runGitCredential(ctx: Context, operation: string): Promise<void> {
  if (!['get', 'store', 'erase'].includes(operation)) throw new UsageError(`unknown operation "${operation}" (git passes get, store or erase)`);
  const request = parseCredentialRequest(ctx.io.stdinIsTTY ? '' : await readStdinText(ctx.io, { what: "git's credential request" }));
  if (operation !== 'get') return;
  const web = await webOrigin(ctx);
  if (request.protocol !== web.protocol.replace(/:$/, '') || request.host?.toLowerCase() !== web.host.toLowerCase()) return;
  // git's user name (from the remote URL, or credential.username) picks the stored account; an
  // unknown one is exit 2 with one line, which git shows before trying its other helpers. A token
  // in the environment is used whatever the user name.
  const named = request.username && request.username !== 'x-access-token' && !envTokenSource(ctx.env) ? request.username : undefined;
  const t = await hostingTarget(ctx, { login: named });
  if (t.credential.scheme !== 'bearer') return;
  // git reads one `key=value` a line: a value with a line break would add fields of its own (another host=).
  const answer = { protocol: request.protocol, host: request.host, username: t.login ?? request.username ?? 'x-access-token', password: t.credential.token };
  ctx.io.print(
    Object.entries(answer)
      .map(([k, v]) => `${k}=${lineSafe(`the credential's ${k}`, v)}\n`)
      .join(''),
  );
}

/** `'…'` for a POSIX shell (git runs `!` helpers with sh). */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function git(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' ? new LanyardError('config', 'git is not installed (or not on PATH)') : e));
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new LanyardError('config', `git config ${args.slice(2, 4).join(' ')} failed: ${err.trim() || `exit ${code}`}`)),
    );
  });
}

/**
 * Replaces the helpers of `<scheme>://<host>` in the user's git config
 * (GIT_CONFIG_GLOBAL honoured, as git does) by one: this Lanyard, run by the
 * same Node (or the same single-file executable), with the profile in force.
 */
export async function runSetupGit(ctx: Context, o: AuthSetupGitOptions): Promise<void> {
  const web = await webOrigin(ctx);
  const host = hostnameOption(o.hostname ?? web.host);
  const scheme = host === web.host.toLowerCase() ? web.protocol.replace(/:$/, '') : 'https';
  const url = `${scheme}://${host}`;
  const profile = await ctx.profileName();
  // A single-file executable is the program itself (its argv[1] is its own path again).
  const { isSea } = await import('node:sea');
  const self = isSea() ? [process.execPath] : [process.execPath, process.argv[1] ?? 'lanyard'];
  const helper = `!${self.map(shellQuote).join(' ')} --profile ${shellQuote(profile)} auth git-credential`;
  const key = `credential.${url}.helper`;
  // An empty helper first clears helpers configured for this URL elsewhere (as the code host's CLI does).
  await git(['config', '--global', '--replace-all', key, ''], ctx.env);
  await git(['config', '--global', '--add', key, helper], ctx.env);
  ctx.io.err(`✓ git now asks Lanyard (profile "${profile}") for credentials of ${url}`);
}
