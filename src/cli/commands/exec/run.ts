/**
 * `lanyard exec [--service S…] -- CMD ARGS…`: resolves each chosen service's
 * credential (refreshed first when it is about to expire), puts it in the
 * documented environment variables of the child, runs CMD with the terminal
 * (stdin, stdout, stderr inherited), forwards the signals Lanyard receives and
 * exits with CMD's status (128 + n when a signal n ended it).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Context } from '../../context.js';
import { AuthRequiredError, LanyardError } from '../../../core/errors.js';
import type { Credential } from '../../../core/http/client.js';
import { credentialFor } from '../../services/credentials.js';
import { SERVICES } from '../../services/registry.js';
import { ExitStatus } from '../../errors/exit.js';
import { UsageError } from '../../errors/usage-error.js';
import type { ExecOptions, ExecService } from './options.js';

/** Signals passed on to the child while it runs. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'SIGWINCH'];

/** The secret of a credential, when it is one a program can use from a variable. */
function secretOf(c: Credential): string | undefined {
  if (c.scheme === 'bearer') return c.token;
  if (c.scheme === 'query') return c.value;
  return undefined;
}

/** The variables one service contributes: its secret under each documented name, and where to use it. */
export async function serviceVariables(ctx: Context, service: ExecService, o: { login?: string } = {}): Promise<Record<string, string>> {
  const exec = SERVICES[service].exec;
  if (!exec) throw new UsageError(`the ${service} service has no credential to hand over`);
  const { name, settings } = await ctx.profile();
  const { credential } = await credentialFor(ctx, service, settings, name, o);
  // A DPoP-bound token is useless without proofs, and the key that signs them never leaves the store.
  if (credential.scheme === 'dpop') {
    throw new LanyardError(
      'dpop_unsupported',
      `the ${service} token is DPoP-bound (RFC 9449): each request needs a proof signed with a key that never leaves Lanyard's credential store, so exec cannot hand it to a program; ${exec.unbound ?? `sign in again: ${exec.signIn}`}`,
      { service },
    );
  }
  const secret = secretOf(credential);
  if (!secret) {
    const why = credential.scheme === 'basic' ? ' (--basic-client has no token to hand over)' : '';
    throw new AuthRequiredError(`no ${service} credential to hand over${why}`, { hint: `sign in first: ${exec.signIn}` });
  }
  return exec.variables(secret, settings, name);
}

export async function runExec(ctx: Context, command: string, args: string[], o: ExecOptions): Promise<void> {
  if (!command) throw new UsageError('no command given', 'usage: lanyard exec [--service S]… -- COMMAND [ARGS…]');
  const env = await execEnvironment(ctx, o);
  // The sockets of the credential requests are not the child's business.
  await ctx.close();
  // Its status is the command's, 0 included (it wins over an interruption the child handled).
  throw new ExitStatus(await runChild(command, args, env));
}

/** The child's environment: the context's, the profile in force, and each chosen service's variables. */
export async function execEnvironment(ctx: Context, o: ExecOptions): Promise<NodeJS.ProcessEnv> {
  const services = [...new Set(o.service?.length ? o.service : (['hosting'] as ExecService[]))];
  if (o.user !== undefined && !services.includes('hosting')) throw new UsageError('--user picks a hosting account; add --service hosting');
  const env: NodeJS.ProcessEnv = { ...ctx.env, LANYARD_PROFILE: (await ctx.profile()).name };
  for (const s of services) Object.assign(env, await serviceVariables(ctx, s, s === 'hosting' ? { login: o.user } : {}));
  return env;
}

/** Runs the child to its end; its exit status (127 not found, 126 not runnable, 128 + n for signal n). */
function runChild(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    // While the child runs, a signal is its to handle; Lanyard's own handlers
    // (Ctrl-C aborts, a second one exits) step aside until it ends.
    const saved = new Map<NodeJS.Signals, Array<(...a: unknown[]) => void>>();
    const forward = (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const sig of FORWARDED) {
      saved.set(sig, process.listeners(sig) as Array<(...a: unknown[]) => void>);
      process.removeAllListeners(sig);
      process.on(sig, forward);
    }
    const restore = () => {
      for (const [sig, listeners] of saved) {
        process.off(sig, forward);
        for (const l of listeners) process.on(sig, l);
      }
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      restore();
      // As env(1) and shells say it.
      if (err.code === 'ENOENT' || err.code === 'EACCES') {
        process.stderr.write(`${command}: ${err.code === 'ENOENT' ? 'command not found' : 'permission denied'}\n`);
        resolve(err.code === 'ENOENT' ? 127 : 126);
      } else reject(err);
    });
    child.once('exit', (code, signal) => {
      restore();
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
