# zsh's completion system for real, through zsh/zpty (a pseudo-terminal), for
# test/e2e/completion.test.ts. Usage: zsh -f zsh-complete.zsh <fpath dir> <line>...
# An interactive `zsh -f` with compinit and <fpath dir> (holding _lanyard) on
# $fpath; each line is typed with a TAB, and compadd is wrapped to print what
# the completion functions add. Prints each line's candidates, sorted, then <end>.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1='' PROMPT='' RPROMPT=''; fpath=(${(q)1} \$fpath)"
zpty -w z 'autoload -U compinit; compinit -u -D'
zpty -w z 'compadd() { local -a __hits; if (( $@[(I)-O] + $@[(I)-A] + $@[(I)-D] )); then builtin compadd "$@"; return; fi; builtin compadd -A __hits "$@"; print -rl -- "<hit>"${^__hits}; builtin compadd "$@"; }'
zpty -w z '__done() { print -r -- "<done>"; }'
zpty -w z 'print -r -- "<ready>"'
zpty -r z out '*<ready>*'
shift
for line in "$@"; do
  # comppostfuncs is emptied after each completion: set again before each line.
  zpty -w z 'comppostfuncs=(__done)'
  zpty -w -n z "$line"$'\t'
  zpty -r z out '*<done>*' || exit 3
  local -a got=(${(f)${out//$'\r'/}})
  got=(${${(M)got:#*<hit>*}##*<hit>})
  (( $#got )) && print -rl -- ${(ou)got}
  print -r -- '<end>'
  zpty -w -n z $'\C-u'
done
zpty -d z
