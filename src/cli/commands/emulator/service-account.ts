/**
 * `lanyard emulator service-account create`: asks the running emulator for a
 * service-account key file (POST /_emulator/echo/service-account) and writes
 * it with mode 0600, or prints it.
 */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { examples, withJson, runs, LOCAL_EXITS, GROUP_EXITS } from '../../command-kit.js';
import { UsageError } from '../../errors/usage-error.js';
import { ConfigError } from '../../../core/errors.js';
import { explicitEmulatorUrl } from './url.js';

interface ServiceAccountCreateOptions {
  scheme: string;
  email?: string;
  algorithm: string;
  output?: string;
  force?: boolean;
  url?: string;
}

export function emulatorServiceAccountCommand(ctx: Context): Command {
  const cmd = new Command('service-account').description('service accounts of the emulated echo API');
  examples(
    withJson(
      cmd.command('create').description('create a key for a service account and write its key file (JSON with client_email, private_key_id, private_key)'),
    )
      .addOption(
        new Option('--scheme <scheme>', 'the account trusted by this scheme')
          .choices(['vendor-jwt', 'service-account', 'default-service-account'])
          .default('service-account'),
      )
      .option('--email <address>', "any account (created if new; only the schemes' accounts are trusted by the API)")
      .addOption(new Option('--algorithm <alg>', 'key algorithm').choices(['RS256', 'ES256']).default('RS256'))
      .option('-o, --output <file>', 'write the key file here (mode 0600) instead of printing it')
      .option('--force', 'overwrite --output if it exists')
      .option('--url <url>', 'emulator URL (default: the "emulator" profile; env LANYARD_EMULATOR_URL)')
      .action(runs(ctx, (ctx, opts: ServiceAccountCreateOptions) => runServiceAccountCreate(ctx, opts))),
    [
      'lanyard emulator service-account create --output sa.json',
      'lanyard emulator service-account create --scheme vendor-jwt -o jwt-client.json',
      'lanyard emulator service-account create --email stranger@example.test -o stranger.json',
    ],
    LOCAL_EXITS,
  );
  return examples(cmd, ['lanyard emulator service-account create --output sa.json', 'lanyard echo auth-info --scheme service-account -c sa.json'], GROUP_EXITS);
}

async function emulatorBase(ctx: Context, url: string | undefined): Promise<string> {
  const explicit = explicitEmulatorUrl(ctx, url);
  if (explicit !== undefined) return explicit;
  const p = (await ctx.config()).profile('emulator');
  const base = p?.['echo.baseUrl'] ?? p?.['hosting.webUrl'];
  if (!base) throw new ConfigError('no running emulator known', { hint: 'start one with `lanyard emulator start`, or pass --url' });
  return base;
}

async function runServiceAccountCreate(ctx: Context, opts: ServiceAccountCreateOptions): Promise<void> {
  // Loaded on use: declaring the command must stay cheap for start-up.
  const { writeFile, chmod } = await import('node:fs/promises');
  const base = await emulatorBase(ctx, opts.url);
  const http = await ctx.http();
  const res = await http.request({
    method: 'POST',
    url: '_emulator/echo/service-account',
    baseUrl: base,
    oauth: true,
    signal: ctx.signal,
    json: { scheme: opts.scheme, email: opts.email, algorithm: opts.algorithm },
  });
  const keyFile = (await res.json()) as { client_email: string; private_key_id: string };
  if (!opts.output) return ctx.output.document(keyFile);
  try {
    await writeFile(opts.output, JSON.stringify(keyFile, null, 2) + '\n', { mode: 0o600, flag: opts.force ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UsageError(`${opts.output} exists; pass --force to overwrite it`);
    throw new UsageError(`cannot write ${opts.output}: ${(err as Error).message}`);
  }
  await chmod(opts.output, 0o600);
  const summary = { file: opts.output, client_email: keyFile.client_email, private_key_id: keyFile.private_key_id };
  ctx.output.document(summary, () => ctx.io.err(`Wrote the key file of ${keyFile.client_email} (key ${keyFile.private_key_id}) to ${opts.output}`));
}
