/**
 * Shell completion scripts generated from the commander tree, so they never
 * drift from the real commands. Values of some options are completed
 * dynamically through the hidden `lanyard __complete <kind>` command
 * (profile names, stored logins, rate-limit resources) or from static lists
 * (choices).
 */
import type { Command } from 'commander';
import { oneLine } from '../../core/errors.js';
import { argEntries, type CommandSpec, describeTree, type FlagSpec, sq, takesValuePattern, type ValueKind, valueCase, valueEntries } from './tree.js';

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

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

/** bash and zsh alike: `_lanyard_takes_value "command path|flag"` succeeds when the flag takes a value there. */
const takesValueFunction = (specs: CommandSpec[]) => `# $1 = "command path|flag": does the flag take a value there?
_lanyard_takes_value() {
  case "$1" in
    ${takesValuePattern(specs)}) return 0 ;;
  esac
  return 1
}`;

/** bash: the tables from `command path|flag` to the value, and of positional arguments' choices. */
function bashTables(specs: CommandSpec[]): string {
  const argsCase = argEntries(specs)
    .map((a) => `    ${a.key}) echo ${sq(a.words.join(' '))} ;;`)
    .join('\n');
  return `${takesValueFunction(specs)}
# $1 = "command path|flag": completes the flag's value into COMPREPLY.
_lanyard_value() {
  case "$1" in
${valueCase(specs, bashValue)}
  esac
  COMPREPLY=()
}
# $1 = "command path|index": the choices of that positional argument.
_lanyard_args() {
  case "$1" in
${argsCase}
  esac
}`;
}

function bash(specs: CommandSpec[]): string {
  const subsCase = specs.map((s) => `    ${sq(s.path)}) echo ${sq(s.subcommands.map((c) => c.name).join(' '))} ;;`).join('\n');
  const flagsCase = specs.map((s) => `    ${sq(s.path)}) echo ${sq(s.flags.flatMap((f) => f.flags).join(' '))} ;;`).join('\n');
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
${bashTables(specs)}
_lanyard() {
  local cur path="" w i skip=0 npos=0
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then
      _lanyard_takes_value "$path|$w" && skip=1
    elif [[ " $(_lanyard_subcommands "$path") " == *" $w "* ]]; then
      path="\${path:+$path }$w"
      npos=0
    else
      npos=$((npos + 1))
    fi
  done
  if ((skip)); then
    _lanyard_value "$path|\${COMP_WORDS[COMP_CWORD-1]}"
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_lanyard_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_lanyard_subcommands "$path") $(_lanyard_args "$path|$npos")" -- "$cur"))
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

/** zsh: the tables from `command path|flag` to the value, and of positional arguments' choices. */
function zshTables(specs: CommandSpec[]): string {
  const argsCase = argEntries(specs)
    .map((a) => `    ${a.key}) args=(${a.words.map(sq).join(' ')}) ;;`)
    .join('\n');
  return `${takesValueFunction(specs)}
# $1 = "command path|flag": completes the flag's value.
_lanyard_value() {
  case "$1" in
${valueCase(specs, zshValue)}
  esac
}
# $1 = "command path|index": the choices of that positional argument, in $args.
_lanyard_args() {
  args=()
  case "$1" in
${argsCase}
  esac
}`;
}

function zsh(specs: CommandSpec[]): string {
  const esc = (s: string) => oneLine(s).replace(/:/g, '\\:');
  const subsCase = specs.map((s) => `    ${sq(s.path)}) subs=(${s.subcommands.map((c) => sq(`${c.name}:${esc(c.description)}`)).join(' ')}) ;;`).join('\n');
  const flagsCase = specs
    .map((s) => `    ${sq(s.path)}) flags=(${s.flags.flatMap((f) => f.flags.map((n) => sq(`${n}:${esc(f.description)}`))).join(' ')}) ;;`)
    .join('\n');
  return `#compdef lanyard
# zsh completion for lanyard. Generated from the command tree by \`npm run completions\`; do not edit.
# Install: put this file (named _lanyard) in a directory of $fpath, then run compinit.
_lanyard() {
  local -a subs flags args
  local path_="" w i skip=0 npos=0 cur
  cur="\${words[CURRENT]}"
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then
      _lanyard_takes_value "$path_|$w" && skip=1
    else
      _lanyard_subs "$path_"
      if (( \${subs[(I)$w:*]} )); then
        path_="\${path_:+$path_ }$w"
        npos=0
      else
        npos=$((npos + 1))
      fi
    fi
  done
  if ((skip)); then
    _lanyard_value "$path_|\${words[CURRENT-1]}"
    return
  fi
  if [[ "$cur" == -* ]]; then
    _lanyard_flags "$path_"
    _describe -t options 'option' flags
  else
    _lanyard_subs "$path_"
    _describe -t commands 'command' subs
    _lanyard_args "$path_|$npos"
    (( $#args )) && compadd -- $args
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
${zshTables(specs)}
if [[ "$funcstack[1]" == "_lanyard" ]]; then _lanyard "$@"; else compdef _lanyard lanyard; fi
`;
}

/** fish: one `complete` line for a flag of the command at `cond`. */
function fishFlag(cond: string, f: FlagSpec): string {
  const long = f.flags.find((n) => n.startsWith('--'))?.slice(2);
  const short = f.flags.find((n) => /^-[^-]$/.test(n))?.slice(1);
  let value = '';
  if (f.value.kind === 'words') value = ` -x -a ${sq(f.value.words.join(' '))}`;
  else if (f.value.kind === 'dynamic') value = ` -x -a ${sq(`(lanyard __complete ${f.value.name} 2>/dev/null)`)}`;
  else if (f.value.kind === 'file' || f.value.kind === 'dir') value = ' -r -F';
  else if (f.value.kind === 'any') value = ' -x';
  return `complete -c lanyard -n ${sq(cond)}${long ? ` -l ${long}` : ''}${short ? ` -s ${short}` : ''}${value} -d ${sq(oneLine(f.description))}`;
}

/** fish: the helpers that find the command path and the positional words before the cursor. */
function fishHelpers(specs: CommandSpec[]): string[] {
  return [
    '# fish completion for lanyard. Generated from the command tree by `npm run completions`; do not edit.',
    '# Install: copy to ~/.config/fish/completions/lanyard.fish',
    '# $argv[1] = "command path|flag": does the flag take a value there?',
    'function __lanyard_takes_value',
    '    switch "$argv[1]"',
    // fish's switch matches quoted wildcards: '*|--profile' is any command's --profile.
    `        case ${valueEntries(specs)
      .flatMap((e) => e.keys.map(sq))
      .join(' ')}`,
    '            return 0',
    '    end',
    '    return 1',
    'end',
    'function __lanyard_path',
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    '    set -l path',
    '    set -l skip 0',
    '    set -l n 0',
    '    for t in $tokens',
    '        if test $skip -eq 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $t',
    "            case '-*'",
    '                if __lanyard_takes_value "$path|$t"',
    '                    set skip 1',
    '                end',
    "            case '*'",
    '                if contains -- $t (__lanyard_subcommands (string join " " $path))',
    '                    set -a path $t',
    '                else',
    '                    set n (math $n + 1)',
    '                end',
    '        end',
    '    end',
    '    if test "$argv[1]" = --count',
    '        echo $n',
    '    else',
    '        string join " " $path',
    '    end',
    'end',
  ];
}

function fish(specs: CommandSpec[]): string {
  const lines: string[] = [...fishHelpers(specs), 'function __lanyard_subcommands', '    switch "$argv[1]"'];
  for (const s of specs) {
    lines.push(`        case ${sq(s.path)}`);
    if (s.subcommands.length) lines.push(`            printf '%s\\n' ${s.subcommands.map((c) => sq(c.name)).join(' ')}`);
  }
  lines.push(
    '    end',
    'end',
    'function __lanyard_at',
    '    set -l p (__lanyard_path)',
    '    test "$p" = "$argv[1]"',
    'end',
    '# $argv[1] = command path, $argv[2] = how many positional words come before the one completed.',
    'function __lanyard_arg',
    '    __lanyard_at "$argv[1]"; and test (__lanyard_path --count) -eq $argv[2]',
    'end',
    'complete -c lanyard -f',
  );
  for (const s of specs) {
    const cond = `__lanyard_at ${sq(s.path)}`;
    for (const c of s.subcommands) lines.push(`complete -c lanyard -n ${sq(cond)} -a ${sq(c.name)} -d ${sq(oneLine(c.description))}`);
    // A positional argument's choices, only at its own position.
    s.args.forEach((words, i) => {
      if (words.length) lines.push(`complete -c lanyard -n ${sq(`__lanyard_arg ${sq(s.path)} ${i}`)} -a ${sq(words.join(' '))}`);
    });
    for (const f of s.flags) lines.push(fishFlag(cond, f));
  }
  return lines.join('\n') + '\n';
}
