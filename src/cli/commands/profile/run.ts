import type { Context } from '../../context.js';
import { ConfigError } from '../../../core/errors.js';
import { describeReason, realDir, selectionJson } from '../../../core/config/bindings.js';
import { UsageError } from '../../errors/usage-error.js';

export async function runProfileList(ctx: Context): Promise<void> {
  const store = await ctx.configView();
  const active = store.activeProfile;
  const selected = await ctx.profileSelection();
  const bindings = store.bindings().filter((b) => b.profile);
  const rows = Object.entries(store.profiles()).map(([name, settings]) => ({
    name,
    active: name === active,
    selected: name === selected.name,
    dirs: bindings.filter((b) => b.profile === name).map((b) => b.dir),
    settings,
  }));
  const json = {
    active: active ?? null,
    selected: selectionJson(selected),
    profiles: rows,
  };
  ctx.output.rows(
    rows,
    [
      { header: ' ', value: (r) => (r.selected ? '*' : '') },
      // The globally active profile is named as such where a binding or the environment chose another here.
      { header: 'name', value: (r) => `${r.name}${r.active && !r.selected ? ' (active)' : ''}` },
      { header: 'hosting', value: (r) => r.settings['hosting.apiUrl'] ?? '', flexible: true },
      { header: 'bound to', value: (r) => r.dirs.join(', ') || '-', flexible: true },
      { header: 'settings', value: (r) => String(Object.keys(r.settings).length), align: 'right' },
    ],
    json,
  );
  if (!ctx.output.forProgram) ctx.io.err(`Profile here: ${selected.name} (${describeReason(selected.reason)})`);
}

export async function runProfileUse(ctx: Context, name: string, o: { dir?: string } = {}): Promise<void> {
  const store = await ctx.config();
  if (o.dir === undefined) {
    await store.use(name);
    ctx.io.err(`Active profile: ${name}`);
    return;
  }
  const dir = realDir(o.dir, ctx.cwd);
  await store.bindProfile(dir, name);
  ctx.io.err(`✓ Commands run in ${dir} or below use profile ${name}`);
  if (ctx.globals().profile || ctx.env.LANYARD_PROFILE) ctx.warn('--profile and LANYARD_PROFILE still take precedence over directory bindings');
}

export async function runProfileRemove(ctx: Context, name: string | undefined, o: { dir?: string } = {}): Promise<void> {
  const store = await ctx.config();
  if (o.dir !== undefined) {
    const dir = realDir(o.dir, ctx.cwd, { gone: true });
    const was = await store.unbindProfile(dir, name);
    if (!was) throw new ConfigError(name === undefined ? `no profile is bound to ${dir}` : `profile "${name}" is not bound to ${dir}`);
    ctx.io.err(`Removed the binding of ${dir} to profile ${was}`);
    return;
  }
  if (name === undefined) throw new UsageError('name the profile to remove, or give --dir DIR to remove a binding');
  if (!(await store.remove(name))) throw new ConfigError(`no profile named "${name}"`);
  ctx.io.err(`Removed profile ${name}`);
}
