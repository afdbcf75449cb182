/**
 * Several hosting accounts on one host: `lanyard auth switch` makes another
 * stored account the active one (the code host's CLI's rules: `--user` names
 * it, with two accounts the other one, with more a prompt on a terminal or
 * `--user`), and the account prompt `auth logout` shares.
 */
import type { Context } from '../../context.js';
import { CancelledError } from '../../../core/errors.js';
import { hostingStoresFor } from './hostname.js';
import type { StoredAccount } from '../../../core/hosting/accounts.js';
import { envTokenSource } from '../../../core/hosting/auth.js';
import { promptDisabled } from '../../terminal/interactive.js';
import { UsageError } from '../../errors/usage-error.js';
import type { AuthSwitchOptions } from './options.js';

/**
 * Asks on the terminal which of `accounts` to take (a number or a login);
 * without a terminal (or with LANYARD_PROMPT_DISABLED) a usage error that
 * asks for `--user`.
 */
export async function promptAccount(ctx: Context, host: string, accounts: readonly StoredAccount[], verb: string): Promise<string> {
  const logins = accounts.map((a) => a.record.login);
  if (promptDisabled(ctx.env) || !ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY)
    throw new UsageError(`${host} has ${accounts.length} stored accounts (${logins.join(', ')}): name the one to ${verb} with --user`);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: ctx.io.stdin, output: ctx.io.stderr, terminal: true });
  const ac = new AbortController();
  const onAbort = () => ac.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  // Ctrl-C at the prompt: readline takes the terminal's raw input, so the interrupt arrives as its SIGINT.
  rl.on('SIGINT', () => ac.abort());
  try {
    ctx.io.err(`Which account of ${host} to ${verb}?`);
    for (const [i, a] of accounts.entries()) ctx.io.err(`  ${i + 1}) ${a.record.login}${a.active ? ' (active)' : ''}`);
    for (;;) {
      const answer = (await rl.question(`Account [1-${accounts.length}]: `, { signal: ac.signal })).trim();
      const n = /^\d+$/.test(answer) ? Number(answer) : Number.NaN;
      const chosen = accounts[n - 1]?.record.login ?? logins.find((l) => l.toLowerCase() === answer.toLowerCase());
      if (chosen) return chosen;
      ctx.io.err(`  answer 1 to ${accounts.length}, or a login`);
    }
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw new CancelledError();
    throw err;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    rl.close();
  }
}

export async function runAuthSwitch(ctx: Context, o: AuthSwitchOptions): Promise<void> {
  const { chooseSwitchTarget } = await import('../../../core/hosting/accounts.js');
  const { accounts } = await hostingStoresFor(ctx, o.hostname);
  const stored = await accounts.list();
  const choice = chooseSwitchTarget(accounts.host, stored, o.user);
  const login = 'login' in choice ? choice.login : await promptAccount(ctx, accounts.host, choice.ask, 'switch to');
  if (o.dir !== undefined) {
    // A binding names a stored account; which one is said in full (--user), never toggled.
    if (o.user === undefined) throw new UsageError('--dir binds the account named with --user');
    const { realDir } = await import('../../../core/config/bindings.js');
    const dir = realDir(o.dir, ctx.cwd);
    const stored = (await accounts.find(login)).record.login;
    await (await ctx.config()).bindAccount(dir, accounts.host, stored);
    ctx.io.err(`✓ Commands run in ${dir} or below use the account ${stored} of ${accounts.host}`);
  } else {
    await accounts.activate(login);
    ctx.io.err(`✓ Switched the active account of ${accounts.host} to ${login}`);
  }
  const env = envTokenSource(ctx.env);
  if (env) ctx.warn(`${env} is set in the environment and still takes precedence over the stored accounts`);
}
