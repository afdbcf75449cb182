/**
 * Shell completion scripts generated from the commander tree, so they never
 * drift from the real commands. Values of some options are completed
 * dynamically through the hidden `lanyard __complete <kind>` command
 * (profile names, stored logins, rate-limit resources) or from static lists
 * (choices).
 */
import type { Command, Option } from 'commander';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** How the value of an option is completed. */
type ValueKind =
  | { kind: 'none' }
  | { kind: 'words'; words: string[] }
  | { kind: 'dynamic'; name: string }
  | { kind: 'file' }
  | { kind: 'dir' }
  | { kind: 'any' };

interface FlagSpec {
  flags: string[];
  description: string;
  value: ValueKind;
}

interface CommandSpec {
  /** Space-separated path below the root ('' = root). */
  path: string;
  description: string;
  subcommands: Array<{ name: string; description: string }>;
  flags: FlagSpec[];
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
    });
    for (const sub of cmd.commands.filter(visible)) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(root, '');
  return out;
}

export function generateCompletion(root: Command, shell: Shell): string {
  const specs = describeTree(root);
  switch (shell) {
    case 'bash':
      return bash(specs);
    case 'zsh':
      return zsh(specs);
    case 'fish':
      return fish(specs);
  }
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function valueFlags(specs: CommandSpec[]): Map<string, ValueKind> {
  // A flag name has one value kind wherever it appears (checked here).
  const m = new Map<string, ValueKind>();
  for (const s of specs) for (const f of s.flags) for (const name of f.flags) if (f.value.kind !== 'none') m.set(name, f.value);
  return m;
}

function valueCase(kinds: Map<string, ValueKind>, render: (v: ValueKind) => string): string {
  const groups = new Map<string, string[]>();
  for (const [flag, v] of kinds) {
    const body = render(v);
    groups.set(body, [...(groups.get(body) ?? []), flag]);
  }
  return [...groups].map(([body, flags]) => `    ${flags.sort().join('|')})\n      ${body}\n      ;;`).join('\n');
}

/** bash: how the word after a flag that takes a value is completed. */
function bashValue(v: ValueKind): string {
  switch (v.kind) {
    case 'words':
      return `COMPREPLY=($(compgen -W ${sq(v.words.join(' '))} -- "$cur")); return 0`;
    case 'dynamic':
      return `COMPREPLY=($(compgen -W "$(lanyard __complete ${v.name} 2>/dev/null)" -- "$cur")); return 0`;
    case 'file':
      return `COMPREPLY=($(compgen -f -- "$cur")); return 0`;
    case 'dir':
      return `COMPREPLY=($(compgen -d -- "$cur")); return 0`;
    default:
      return 'COMPREPLY=(); return 0';
  }
}

function bash(specs: CommandSpec[]): string {
  const kinds = valueFlags(specs);
  const subsCase = specs.map((s) => `    ${sq(s.path)}) echo ${sq(s.subcommands.map((c) => c.name).join(' '))} ;;`).join('\n');
  const flagsCase = specs.map((s) => `    ${sq(s.path)}) echo ${sq(s.flags.flatMap((f) => f.flags).join(' '))} ;;`).join('\n');
  const takesValue = [...kinds.keys()].sort().join('|');
  return `# bash completion for lanyard. Generated from the command tree by \`npm run completions\`; do not edit.
# Install: source this file, or copy it to /usr/share/bash-completion/completions/lanyard
_lanyard_subcommands() {
  case "$1" in
${subsCase}
  esac
}
_lanyard_flags() {
  case "$1" in
${flagsCase}
  esac
}
_lanyard() {
  local cur prev path="" w i skip=0
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev=""
  ((COMP_CWORD > 0)) && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      ${takesValue}) skip=1 ;;
      -*) ;;
      *)
        if [[ " $(_lanyard_subcommands "$path") " == *" $w "* ]]; then
          path="\${path:+$path }$w"
        fi
        ;;
    esac
  done
  case "$prev" in
${valueCase(kinds, bashValue)}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_lanyard_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_lanyard_subcommands "$path")" -- "$cur"))
  fi
  return 0
}
complete -F _lanyard lanyard
`;
}

/** zsh: how the word after a flag that takes a value is completed. */
function zshValue(v: ValueKind): string {
  switch (v.kind) {
    case 'words':
      return `compadd -- ${v.words.map(sq).join(' ')}; return`;
    case 'dynamic':
      return `compadd -- \${(f)"$(lanyard __complete ${v.name} 2>/dev/null)"}; return`;
    case 'file':
      return '_files; return';
    case 'dir':
      return '_files -/; return';
    default:
      return 'return';
  }
}

function zsh(specs: CommandSpec[]): string {
  const kinds = valueFlags(specs);
  const esc = (s: string) => oneLine(s).replace(/:/g, '\\:');
  const subsCase = specs.map((s) => `    ${sq(s.path)}) subs=(${s.subcommands.map((c) => sq(`${c.name}:${esc(c.description)}`)).join(' ')}) ;;`).join('\n');
  const flagsCase = specs
    .map((s) => `    ${sq(s.path)}) flags=(${s.flags.flatMap((f) => f.flags.map((n) => sq(`${n}:${esc(f.description)}`))).join(' ')}) ;;`)
    .join('\n');
  const takesValue = [...kinds.keys()].sort().join('|');
  return `#compdef lanyard
# zsh completion for lanyard. Generated from the command tree by \`npm run completions\`; do not edit.
# Install: put this file (named _lanyard) in a directory of $fpath, then run compinit.
_lanyard() {
  local -a subs flags
  local path_="" w i skip=0 cur prev
  cur="\${words[CURRENT]}"
  prev="\${words[CURRENT-1]}"
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      ${takesValue}) skip=1 ;;
      -*) ;;
      *)
        _lanyard_subs "$path_"
        if (( \${subs[(I)$w:*]} )); then path_="\${path_:+$path_ }$w"; fi
        ;;
    esac
  done
  case "$prev" in
${valueCase(kinds, zshValue)}
  esac
  if [[ "$cur" == -* ]]; then
    _lanyard_flags "$path_"
    _describe -t options 'option' flags
  else
    _lanyard_subs "$path_"
    _describe -t commands 'command' subs
  fi
}
_lanyard_subs() {
  subs=()
  case "$1" in
${subsCase}
  esac
}
_lanyard_flags() {
  flags=()
  case "$1" in
${flagsCase}
  esac
}
if [[ "$funcstack[1]" == "_lanyard" ]]; then _lanyard "$@"; else compdef _lanyard lanyard; fi
`;
}

function fish(specs: CommandSpec[]): string {
  const lines: string[] = [
    '# fish completion for lanyard. Generated from the command tree by `npm run completions`; do not edit.',
    '# Install: copy to ~/.config/fish/completions/lanyard.fish',
    'function __lanyard_path',
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    '    set -l path',
    '    set -l skip 0',
    '    for t in $tokens',
    '        if test $skip -eq 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $t',
    `            case ${[...valueFlags(specs).keys()].sort().join(' ')}`,
    '                set skip 1',
    "            case '-*'",
    "            case '*'",
    '                if contains -- $t (__lanyard_subcommands (string join " " $path))',
    '                    set -a path $t',
    '                end',
    '        end',
    '    end',
    '    string join " " $path',
    'end',
    'function __lanyard_subcommands',
    '    switch "$argv[1]"',
  ];
  for (const s of specs) {
    lines.push(`        case ${sq(s.path)}`);
    if (s.subcommands.length) lines.push(`            printf '%s\\n' ${s.subcommands.map((c) => sq(c.name)).join(' ')}`);
  }
  lines.push('    end', 'end', 'function __lanyard_at', '    set -l p (__lanyard_path)', '    test "$p" = "$argv[1]"', 'end', 'complete -c lanyard -f');
  for (const s of specs) {
    const cond = `__lanyard_at ${sq(s.path)}`;
    for (const c of s.subcommands) lines.push(`complete -c lanyard -n ${sq(cond)} -a ${sq(c.name)} -d ${sq(oneLine(c.description))}`);
    for (const f of s.flags) {
      const long = f.flags.find((n) => n.startsWith('--'))?.slice(2);
      const short = f.flags.find((n) => /^-[^-]$/.test(n))?.slice(1);
      let value = '';
      if (f.value.kind === 'words') value = ` -x -a ${sq(f.value.words.join(' '))}`;
      else if (f.value.kind === 'dynamic') value = ` -x -a ${sq(`(lanyard __complete ${f.value.name} 2>/dev/null)`)}`;
      else if (f.value.kind === 'file' || f.value.kind === 'dir') value = ' -r -F';
      else if (f.value.kind === 'any') value = ' -x';
      lines.push(`complete -c lanyard -n ${sq(cond)}${long ? ` -l ${long}` : ''}${short ? ` -s ${short}` : ''}${value} -d ${sq(oneLine(f.description))}`);
    }
  }
  return lines.join('\n') + '\n';
}
