import type { Context } from '../../context.js';
import { ConfigError } from '../../../core/errors.js';

export async function runProfileList(ctx: Context): Promise<void> {
  const store = await ctx.config();
  const active = store.activeProfile;
  const rows = Object.entries(store.profiles()).map(([name, settings]) => ({ name, active: name === active, settings }));
  ctx.output.rows(
    rows,
    [
      { header: ' ', value: (r) => (r.active ? '*' : '') },
      { header: 'name', value: (r) => r.name },
      { header: 'hosting', value: (r) => r.settings['hosting.apiUrl'] ?? '', flexible: true },
      { header: 'settings', value: (r) => String(Object.keys(r.settings).length), align: 'right' },
    ],
    { active: active ?? null, profiles: rows },
  );
}

export async function runProfileUse(ctx: Context, name: string): Promise<void> {
  await (await ctx.config()).use(name);
  ctx.io.err(`Active profile: ${name}`);
}

export async function runProfileRemove(ctx: Context, name: string): Promise<void> {
  if (!(await (await ctx.config()).remove(name))) throw new ConfigError(`no profile named "${name}"`);
  ctx.io.err(`Removed profile ${name}`);
}
