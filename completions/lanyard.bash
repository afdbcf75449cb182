# bash completion for lanyard. Generated from the command tree by `npm run completions`; do not edit.
# Install: source this file, or copy it to /usr/share/bash-completion/completions/lanyard
_lanyard_subcommands() {
  case "$1" in
    '') echo 'auth ratelimit api exec echo protocol mailbox health config profile doctor emulator completion' ;;
    'auth') echo 'device login token status refresh switch logout git-credential setup-git' ;;
    'auth device') echo '' ;;
    'auth login') echo '' ;;
    'auth token') echo 'create' ;;
    'auth token create') echo '' ;;
    'auth status') echo '' ;;
    'auth refresh') echo '' ;;
    'auth switch') echo '' ;;
    'auth logout') echo '' ;;
    'auth git-credential') echo '' ;;
    'auth setup-git') echo '' ;;
    'ratelimit') echo 'status wait' ;;
    'ratelimit status') echo '' ;;
    'ratelimit wait') echo '' ;;
    'api') echo '' ;;
    'exec') echo '' ;;
    'echo') echo 'send auth-info token key' ;;
    'echo send') echo '' ;;
    'echo auth-info') echo '' ;;
    'echo token') echo '' ;;
    'echo key') echo 'set status delete' ;;
    'echo key set') echo '' ;;
    'echo key status') echo '' ;;
    'echo key delete') echo '' ;;
    'protocol') echo 'request bridge forget' ;;
    'protocol request') echo '' ;;
    'protocol bridge') echo '' ;;
    'protocol forget') echo '' ;;
    'mailbox') echo 'list get raw url part store update label delete' ;;
    'mailbox list') echo '' ;;
    'mailbox get') echo '' ;;
    'mailbox raw') echo '' ;;
    'mailbox url') echo '' ;;
    'mailbox part') echo '' ;;
    'mailbox store') echo '' ;;
    'mailbox update') echo '' ;;
    'mailbox label') echo '' ;;
    'mailbox delete') echo '' ;;
    'health') echo 'events check event' ;;
    'health events') echo '' ;;
    'health check') echo '' ;;
    'health event') echo '' ;;
    'config') echo 'get set unset list' ;;
    'config get') echo '' ;;
    'config set') echo '' ;;
    'config unset') echo '' ;;
    'config list') echo '' ;;
    'profile') echo 'list use remove' ;;
    'profile list') echo '' ;;
    'profile use') echo '' ;;
    'profile remove') echo '' ;;
    'doctor') echo '' ;;
    'emulator') echo 'start console info reset advance requests fault budget budgets secondary limits admin service-account' ;;
    'emulator start') echo '' ;;
    'emulator console') echo '' ;;
    'emulator info') echo '' ;;
    'emulator reset') echo '' ;;
    'emulator advance') echo '' ;;
    'emulator requests') echo '' ;;
    'emulator fault') echo 'add list clear' ;;
    'emulator fault add') echo '' ;;
    'emulator fault list') echo '' ;;
    'emulator fault clear') echo '' ;;
    'emulator budget') echo '' ;;
    'emulator budgets') echo '' ;;
    'emulator secondary') echo '' ;;
    'emulator limits') echo '' ;;
    'emulator admin') echo '' ;;
    'emulator service-account') echo 'create' ;;
    'emulator service-account create') echo '' ;;
    'completion') echo '' ;;
  esac
}
_lanyard_flags() {
  case "$1" in
    '') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth device') echo '--scopes -s --no-browser --insecure-storage --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth login') echo '--scopes -s --no-browser --login --no-signup --select-account --timeout --insecure-storage --server --client-id --client-credentials --client-key --client-metadata-url --idp-token-endpoint --idp-client-id --workload-token-file --dpop --no-dpop --resource --no-resource --auth-param --authorization-endpoint --token-endpoint --device --health --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth token') echo '--with-token --user -u --hostname --server --health --insecure-storage --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth token create') echo '--user -u --scopes -s --note --insecure-storage --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth status') echo '--json --jq -q --template -t --show-token --expires-within --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth refresh') echo '--scopes -s --user -u --web --no-browser --timeout --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth switch') echo '--hostname --user -u --dir --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth logout') echo '--user -u --dir --server --health --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth git-credential') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'auth setup-git') echo '--hostname --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'ratelimit') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'ratelimit status') echo '--json --jq -q --template -t --resource -r --fail-under --user --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'ratelimit wait') echo '--resource -r --min --timeout --user --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'api') echo '--method -X --header -H --raw-field -f --field -F --input --paginate --ndjson --checkpoint --include -i --silent --service --user --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'exec') echo '--service -s --user --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo send') echo '--json --jq -q --template -t --stdin --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo auth-info') echo '--scheme -s --credentials -c --audience --issuer --lifetime --project --client-id --login-hint --no-browser --timeout --fresh --json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo token') echo '--scheme -s --credentials -c --audience --issuer --lifetime --project --client-id --login-hint --no-browser --timeout --fresh --json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo key') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo key set') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo key status') echo '--json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'echo key delete') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'protocol') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'protocol request') echo '--method -m --params --scopes -s --client-id --client-credentials --client-key --client-metadata-url --idp-token-endpoint --idp-client-id --workload-token-file --dpop --no-dpop --resource --no-resource --auth-param --authorization-endpoint --token-endpoint --elicitation --no-browser --timeout --protocol-version --json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'protocol bridge') echo '--scopes -s --client-id --client-credentials --client-key --client-metadata-url --idp-token-endpoint --idp-client-id --workload-token-file --dpop --no-dpop --resource --no-resource --auth-param --authorization-endpoint --token-endpoint --no-browser --timeout --sign-in-wait --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'protocol forget') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox list') echo '--json --ndjson --jq -q --template -t --domain --user --label -l --metadata --count -n --start --oldest-first --include-body --all --checkpoint --new --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox get') echo '--json --jq -q --template -t --domain --user --adjacent --label -l --mark-seen --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox raw') echo '--domain --user --output -o --force -f --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox url') echo '--json --jq -q --template -t --domain --user --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox part') echo '--domain --user --output -o --force -f --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox store') echo '--json --jq -q --template -t --domain --user --label -l --marker -m --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox update') echo '--json --jq -q --template -t --domain --user --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox label') echo '--json --jq -q --template -t --domain --user --add -a --remove -r --add-marker --remove-marker --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'mailbox delete') echo '--json --jq -q --template -t --domain --user --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'health') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'health events') echo '--subscription --filter --service --region --since --api-version --json --ndjson --jq -q --template -t --all --max --new --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'health check') echo '--subscription --filter --service --region --since --api-version --json --jq -q --template -t --fail-if-active --impact --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'health event') echo '--subscription --filter --service --region --since --api-version --json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'config') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'config get') echo '--json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'config set') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'config unset') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'config list') echo '--json --jq -q --template -t --keys --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'profile') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'profile list') echo '--json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'profile use') echo '--dir --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'profile remove') echo '--dir --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'doctor') echo '--check-timeout --json --jq -q --template -t --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator start') echo '--port --host --data-dir --tls --tls-cert --tls-key --allow-host --public-host --no-profile --quiet -q --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator console') echo '--json --jq -q --template -t --no-browser --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator info') echo '--json --jq -q --template -t --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator reset') echo '--url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator advance') echo '--json --jq -q --template -t --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator requests') echo '--json --ndjson --jq -q --template -t --follow --service --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator fault') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator fault add') echo '--json --jq -q --template -t --type --path --method --latency --status --retry-after --count --rate --seed --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator fault list') echo '--json --jq -q --template -t --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator fault clear') echo '--url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator budget') echo '--user --token-of --anonymous --caller --json --jq -q --template -t --remaining --reset-in --resource -r --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator budgets') echo '--json --jq -q --template -t --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator secondary') echo '--user --token-of --anonymous --caller --json --jq -q --template -t --count --retry-after --status --exhaust-budget --reset-in --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator limits') echo '--json --jq -q --template -t --concurrent --points-per-minute --content-per-minute --content-per-hour --content-window --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator admin') echo '--json --jq -q --template -t --data --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator service-account') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'emulator service-account create') echo '--json --jq -q --template -t --scheme --email --algorithm --output -o --force --url --version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
    'completion') echo '--version -V --profile -p --debug --wait --max-wait --timeout --basic-client --no-color --help -h' ;;
  esac
}
_lanyard() {
  local cur prev path="" w i skip=0
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev=""
  ((COMP_CWORD > 0)) && prev="${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$w" in
      --add|--add-marker|--algorithm|--allow-host|--api-version|--audience|--auth-param|--authorization-endpoint|--caller|--check-timeout|--checkpoint|--client-id|--client-key|--client-metadata-url|--concurrent|--content-per-hour|--content-per-minute|--content-window|--count|--credentials|--data|--data-dir|--dir|--domain|--elicitation|--email|--expires-within|--fail-under|--field|--filter|--header|--host|--hostname|--idp-client-id|--idp-token-endpoint|--impact|--input|--issuer|--jq|--label|--latency|--lifetime|--login|--login-hint|--marker|--max|--max-wait|--method|--min|--note|--output|--params|--path|--points-per-minute|--port|--profile|--project|--protocol-version|--public-host|--rate|--raw-field|--region|--remaining|--remove|--remove-marker|--reset-in|--resource|--retry-after|--scheme|--scopes|--seed|--server|--service|--sign-in-wait|--since|--start|--status|--subscription|--template|--timeout|--tls-cert|--tls-key|--token-endpoint|--token-of|--type|--url|--user|--workload-token-file|-F|-H|-X|-a|-c|-f|-l|-m|-n|-o|-p|-q|-r|-s|-t|-u) skip=1 ;;
      -*) ;;
      *)
        if [[ " $(_lanyard_subcommands "$path") " == *" $w "* ]]; then
          path="${path:+$path }$w"
        fi
        ;;
    esac
  done
  case "$prev" in
    --profile|-p)
      COMPREPLY=($(compgen -W "$(lanyard __complete profiles 2>/dev/null)" -- "$cur")); return 0
      ;;
    --add|--add-marker|--allow-host|--api-version|--audience|--auth-param|--authorization-endpoint|--caller|--check-timeout|--checkpoint|--client-id|--client-key|--client-metadata-url|--concurrent|--content-per-hour|--content-per-minute|--content-window|--count|--data|--dir|--domain|--elicitation|--email|--expires-within|--fail-under|--field|--filter|--header|--host|--hostname|--idp-client-id|--idp-token-endpoint|--issuer|--jq|--label|--latency|--lifetime|--login|--login-hint|--marker|--max|--max-wait|--method|--min|--note|--params|--path|--points-per-minute|--port|--project|--public-host|--rate|--raw-field|--region|--remaining|--remove|--remove-marker|--reset-in|--retry-after|--scopes|--seed|--server|--sign-in-wait|--since|--start|--status|--subscription|--template|--timeout|--token-endpoint|--token-of|--url|--workload-token-file|-F|-H|-X|-a|-f|-l|-m|-n|-q|-s|-t)
      COMPREPLY=(); return 0
      ;;
    --resource|-r)
      COMPREPLY=($(compgen -W "$(lanyard __complete resources 2>/dev/null)" -- "$cur")); return 0
      ;;
    --user|-u)
      COMPREPLY=($(compgen -W "$(lanyard __complete accounts 2>/dev/null)" -- "$cur")); return 0
      ;;
    --credentials|--input|--output|--tls-cert|--tls-key|-c|-o)
      COMPREPLY=($(compgen -f -- "$cur")); return 0
      ;;
    --service)
      COMPREPLY=($(compgen -W 'hosting echo protocol mailbox health admin' -- "$cur")); return 0
      ;;
    --scheme)
      COMPREPLY=($(compgen -W 'vendor-jwt service-account default-service-account' -- "$cur")); return 0
      ;;
    --protocol-version)
      COMPREPLY=($(compgen -W '2026-07-28 2025-11-25 2025-06-18 2025-03-26' -- "$cur")); return 0
      ;;
    --impact)
      COMPREPLY=($(compgen -W 'critical error warning informational' -- "$cur")); return 0
      ;;
    --data-dir)
      COMPREPLY=($(compgen -d -- "$cur")); return 0
      ;;
    --type)
      COMPREPLY=($(compgen -W 'latency reset status truncate' -- "$cur")); return 0
      ;;
    --algorithm)
      COMPREPLY=($(compgen -W 'RS256 ES256' -- "$cur")); return 0
      ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_lanyard_flags "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_lanyard_subcommands "$path")" -- "$cur"))
  fi
  return 0
}
complete -F _lanyard lanyard
