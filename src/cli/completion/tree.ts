/**
 * The commander tree as the completion scripts see it (src/cli/completion/
 * generate.ts): each command's path, subcommands, flags with how their
 * values complete, positional arguments' choices; and the case tables from
 * `command path|flag` to a flag's value that bash and zsh share.
 */
import type { Command, Option } from 'commander';

/** How the value of an option is completed. */
export type ValueKind =
  | { kind: 'none' }
  | { kind: 'words'; words: string[] }
  | { kind: 'dynamic'; name: string }
  | { kind: 'file' }
  | { kind: 'dir' }
  | { kind: 'any' };

export interface FlagSpec {
  flags: string[];
  description: string;
  value: ValueKind;
}

export interface CommandSpec {
  /** Space-separated path below the root ('' = root). */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  /** The command's own flags, then the root's (global) ones and --help. */
  flags: FlagSpec[];
  /** The command's own flags only (for the root: the global ones). */
  own: FlagSpec[];
  /** The choices of each positional argument (empty: any value). */
  args: string[][];
}

/** Value completion for option names shared across commands. */
const BY_FLAG: Record<string, ValueKind> = {
  '--profile': { kind: 'dynamic', name: 'profiles' },
  '--resource': { kind: 'dynamic', name: 'resources' },
  '--user': { kind: 'dynamic', name: 'accounts' },
  '--output': { kind: 'file' },
  '--credentials': { kind: 'file' },
  '--input': { kind: 'file' },
  '--data-dir': { kind: 'dir' },
  '--tls-cert': { kind: 'file' },
  '--tls-key': { kind: 'file' },
};

function valueKind(o: Option): ValueKind {
  if (!o.required && !o.optional) return { kind: 'none' };
  if (o.argChoices?.length) return { kind: 'words', words: [...o.argChoices] };
  return (o.long && BY_FLAG[o.long]) || { kind: 'any' };
}

function flagSpec(o: Option): FlagSpec {
  return {
    flags: [o.long, o.short].filter((f): f is string => !!f),
    description: o.description ?? '',
    value: valueKind(o),
  };
}

const visible = (c: Command) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help';

/** Flattens the tree; the root's options (global) are offered everywhere. */
export function describeTree(root: Command): CommandSpec[] {
  const globals = root.options.filter((o) => !o.hidden).map(flagSpec);
  const help: FlagSpec = { flags: ['--help', '-h'], description: 'display help for command', value: { kind: 'none' } };
  const out: CommandSpec[] = [];
  const walk = (cmd: Command, path: string) => {
    const own = path ? cmd.options.filter((o) => !o.hidden).map(flagSpec) : [];
    out.push({
      path,
      description: cmd.description(),
      subcommands: cmd.commands.filter(visible).map((c) => ({ name: c.name(), description: c.description() })),
      flags: [...own, ...globals, help],
      own: path ? own : globals,
      args: cmd.registeredArguments.map((a) => [...(a.argChoices ?? [])]),
    });
    for (const sub of cmd.commands.filter(visible)) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(root, '');
  return out;
}

export const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The case-table keys (`path|flag`) of every flag that takes a value, with
 * how its value is completed: a command's own flags first, keyed by its
 * path, then the root's (global) ones, which match under every path. So a
 * flag's values are the ones commander declares for that command (`exec -s`
 * is exec's --service, `mailbox label -r` is --remove, not --resource).
 */
export function valueEntries(specs: CommandSpec[]): Array<{ keys: string[]; value: ValueKind }> {
  const out: Array<{ keys: string[]; value: ValueKind }> = [];
  const takes = (f: FlagSpec) => f.value.kind !== 'none';
  for (const s of specs) {
    if (s.path) for (const f of s.own.filter(takes)) out.push({ keys: f.flags.map((n) => `${s.path}|${n}`), value: f.value });
  }
  const globals = specs.find((s) => s.path === '')?.own ?? [];
  for (const f of globals.filter(takes)) out.push({ keys: f.flags.map((n) => `*|${n}`), value: f.value });
  return out;
}

/** A key as a bash/zsh case pattern: quoted, but a global key's leading `*` a wildcard. */
export const shPattern = (key: string) => (key.startsWith('*') ? `*${sq(key.slice(1))}` : sq(key));

/** The keys of all flags that take a value, as one case pattern. */
export const takesValuePattern = (specs: CommandSpec[]) =>
  valueEntries(specs)
    .flatMap((e) => e.keys.map(shPattern))
    .join('|');

/** A case table from `path|flag` to the completion of the flag's value (entries with the same body share a branch). */
export function valueCase(specs: CommandSpec[], render: (v: ValueKind) => string): string {
  const groups = new Map<string, string[]>();
  for (const e of valueEntries(specs)) {
    const body = render(e.value);
    groups.set(body, [...(groups.get(body) ?? []), ...e.keys]);
  }
  // Within a branch order does not matter; command keys never contain `*`, so the
  // global (`*|flag`) branches are matched only when no command's own flag is.
  const rows = [...groups].map(([body, keys]) => ({ body, own: keys.filter((k) => !k.startsWith('*')), global: keys.filter((k) => k.startsWith('*')) }));
  const row = (keys: string[], body: string) => `    ${keys.map(shPattern).join('|')})\n      ${body}\n      ;;`;
  return [...rows.filter((r) => r.own.length).map((r) => row(r.own, r.body)), ...rows.filter((r) => r.global.length).map((r) => row(r.global, r.body))].join(
    '\n',
  );
}

/** `path|index` of each positional argument with choices, and the choices. */
export const argEntries = (specs: CommandSpec[]) =>
  specs.flatMap((s) => s.args.flatMap((words, i) => (words.length ? [{ key: sq(`${s.path}|${i}`), words }] : [])));
