import type { Context } from '../../context.js';
import { SETTINGS, isSettingKey } from '../../../core/config/settings.js';
import { ConfigError } from '../../../core/errors.js';

function checkKey(key: string): void {
  if (!isSettingKey(key)) throw new ConfigError(`unknown setting "${key}"`, { hint: 'see `lanyard config list --keys`' });
}

export async function runConfigGet(ctx: Context, key: string): Promise<void> {
  checkKey(key);
  const { name, settings } = await ctx.profile();
  const v = settings[key as keyof typeof settings];
  if (v === undefined) throw new ConfigError(`profile "${name}" has no ${key}`);
  ctx.output.document({ profile: name, key, value: v }, () => ctx.io.out(v));
}

export async function runConfigSet(ctx: Context, key: string, value: string): Promise<void> {
  const store = await ctx.config();
  const name = await ctx.profileName();
  const created = !store.profile(name);
  const v = await store.set(name, key, value, { activate: true });
  ctx.io.err(`${created ? `Created profile "${name}"; ` : ''}${key} = ${v}`);
  if (SETTINGS[key as keyof typeof SETTINGS]?.kind === 'url' && !key.startsWith('network.')) await warnClearText(ctx, key, String(v));
}

/** A URL setting that is plain HTTP to a host that is not loopback: said at once, not at the first refused request. */
async function warnClearText(ctx: Context, key: string, value: string): Promise<void> {
  const { isClearTextUrl, parsePlainHttpHosts } = await import('../../../core/http/plain-http.js');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return;
  }
  if (!isClearTextUrl(url, parsePlainHttpHosts(ctx.env.LANYARD_ALLOW_PLAIN_HTTP))) return;
  ctx.warn(
    `${key} is plain HTTP to ${url.host}, which is not a loopback host: Lanyard will refuse to send a token or key to it (exit 2). Use https://, or for a lab setup only set LANYARD_ALLOW_PLAIN_HTTP=${url.host}`,
  );
}

export async function runConfigUnset(ctx: Context, key: string): Promise<void> {
  checkKey(key);
  const store = await ctx.config();
  const { name } = await ctx.profile();
  if (!(await store.unset(name, key))) ctx.warn(`profile "${name}" had no ${key}`);
}

export async function runConfigList(ctx: Context, opts: { keys?: boolean }): Promise<void> {
  if (opts.keys) {
    return ctx.output.document(SETTINGS, () => {
      for (const [k, s] of Object.entries(SETTINGS)) ctx.io.out(`${k}\t${s.description}`);
    });
  }
  const { name, settings } = await ctx.profile();
  ctx.output.document({ profile: name, settings }, () => {
    for (const [k, v] of Object.entries(settings)) ctx.io.out(`${k}=${v}`);
  });
}
