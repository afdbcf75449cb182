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
# $1 = "command path|flag": does the flag take a value there?
_lanyard_takes_value() {
  case "$1" in
    'auth device|--scopes'|'auth device|-s'|'auth login|--scopes'|'auth login|-s'|'auth login|--login'|'auth login|--timeout'|'auth login|--server'|'auth login|--client-id'|'auth login|--client-key'|'auth login|--client-metadata-url'|'auth login|--idp-token-endpoint'|'auth login|--idp-client-id'|'auth login|--workload-token-file'|'auth login|--resource'|'auth login|--auth-param'|'auth login|--authorization-endpoint'|'auth login|--token-endpoint'|'auth token|--user'|'auth token|-u'|'auth token|--hostname'|'auth token|--server'|'auth token create|--user'|'auth token create|-u'|'auth token create|--scopes'|'auth token create|-s'|'auth token create|--note'|'auth status|--jq'|'auth status|-q'|'auth status|--template'|'auth status|-t'|'auth status|--expires-within'|'auth refresh|--scopes'|'auth refresh|-s'|'auth refresh|--user'|'auth refresh|-u'|'auth refresh|--timeout'|'auth switch|--hostname'|'auth switch|--user'|'auth switch|-u'|'auth switch|--dir'|'auth logout|--user'|'auth logout|-u'|'auth logout|--dir'|'auth logout|--server'|'auth setup-git|--hostname'|'ratelimit status|--jq'|'ratelimit status|-q'|'ratelimit status|--template'|'ratelimit status|-t'|'ratelimit status|--resource'|'ratelimit status|-r'|'ratelimit status|--fail-under'|'ratelimit status|--user'|'ratelimit wait|--resource'|'ratelimit wait|-r'|'ratelimit wait|--min'|'ratelimit wait|--timeout'|'ratelimit wait|--user'|'api|--method'|'api|-X'|'api|--header'|'api|-H'|'api|--raw-field'|'api|-f'|'api|--field'|'api|-F'|'api|--input'|'api|--checkpoint'|'api|--service'|'api|--user'|'api|--jq'|'api|-q'|'api|--template'|'api|-t'|'exec|--service'|'exec|-s'|'exec|--user'|'echo send|--jq'|'echo send|-q'|'echo send|--template'|'echo send|-t'|'echo auth-info|--scheme'|'echo auth-info|-s'|'echo auth-info|--credentials'|'echo auth-info|-c'|'echo auth-info|--audience'|'echo auth-info|--issuer'|'echo auth-info|--lifetime'|'echo auth-info|--project'|'echo auth-info|--client-id'|'echo auth-info|--login-hint'|'echo auth-info|--timeout'|'echo auth-info|--jq'|'echo auth-info|-q'|'echo auth-info|--template'|'echo auth-info|-t'|'echo token|--scheme'|'echo token|-s'|'echo token|--credentials'|'echo token|-c'|'echo token|--audience'|'echo token|--issuer'|'echo token|--lifetime'|'echo token|--project'|'echo token|--client-id'|'echo token|--login-hint'|'echo token|--timeout'|'echo token|--jq'|'echo token|-q'|'echo token|--template'|'echo token|-t'|'echo key status|--jq'|'echo key status|-q'|'echo key status|--template'|'echo key status|-t'|'protocol request|--method'|'protocol request|-m'|'protocol request|--params'|'protocol request|--scopes'|'protocol request|-s'|'protocol request|--client-id'|'protocol request|--client-key'|'protocol request|--client-metadata-url'|'protocol request|--idp-token-endpoint'|'protocol request|--idp-client-id'|'protocol request|--workload-token-file'|'protocol request|--resource'|'protocol request|--auth-param'|'protocol request|--authorization-endpoint'|'protocol request|--token-endpoint'|'protocol request|--elicitation'|'protocol request|--timeout'|'protocol request|--protocol-version'|'protocol request|--jq'|'protocol request|-q'|'protocol request|--template'|'protocol request|-t'|'protocol bridge|--scopes'|'protocol bridge|-s'|'protocol bridge|--client-id'|'protocol bridge|--client-key'|'protocol bridge|--client-metadata-url'|'protocol bridge|--idp-token-endpoint'|'protocol bridge|--idp-client-id'|'protocol bridge|--workload-token-file'|'protocol bridge|--resource'|'protocol bridge|--auth-param'|'protocol bridge|--authorization-endpoint'|'protocol bridge|--token-endpoint'|'protocol bridge|--timeout'|'protocol bridge|--sign-in-wait'|'mailbox list|--jq'|'mailbox list|-q'|'mailbox list|--template'|'mailbox list|-t'|'mailbox list|--domain'|'mailbox list|--user'|'mailbox list|--label'|'mailbox list|-l'|'mailbox list|--count'|'mailbox list|-n'|'mailbox list|--start'|'mailbox list|--checkpoint'|'mailbox get|--jq'|'mailbox get|-q'|'mailbox get|--template'|'mailbox get|-t'|'mailbox get|--domain'|'mailbox get|--user'|'mailbox get|--label'|'mailbox get|-l'|'mailbox raw|--domain'|'mailbox raw|--user'|'mailbox raw|--output'|'mailbox raw|-o'|'mailbox url|--jq'|'mailbox url|-q'|'mailbox url|--template'|'mailbox url|-t'|'mailbox url|--domain'|'mailbox url|--user'|'mailbox part|--domain'|'mailbox part|--user'|'mailbox part|--output'|'mailbox part|-o'|'mailbox store|--jq'|'mailbox store|-q'|'mailbox store|--template'|'mailbox store|-t'|'mailbox store|--domain'|'mailbox store|--user'|'mailbox store|--label'|'mailbox store|-l'|'mailbox store|--marker'|'mailbox store|-m'|'mailbox update|--jq'|'mailbox update|-q'|'mailbox update|--template'|'mailbox update|-t'|'mailbox update|--domain'|'mailbox update|--user'|'mailbox label|--jq'|'mailbox label|-q'|'mailbox label|--template'|'mailbox label|-t'|'mailbox label|--domain'|'mailbox label|--user'|'mailbox label|--add'|'mailbox label|-a'|'mailbox label|--remove'|'mailbox label|-r'|'mailbox label|--add-marker'|'mailbox label|--remove-marker'|'mailbox delete|--jq'|'mailbox delete|-q'|'mailbox delete|--template'|'mailbox delete|-t'|'mailbox delete|--domain'|'mailbox delete|--user'|'health events|--subscription'|'health events|--filter'|'health events|--service'|'health events|--region'|'health events|--since'|'health events|--api-version'|'health events|--jq'|'health events|-q'|'health events|--template'|'health events|-t'|'health events|--max'|'health check|--subscription'|'health check|--filter'|'health check|--service'|'health check|--region'|'health check|--since'|'health check|--api-version'|'health check|--jq'|'health check|-q'|'health check|--template'|'health check|-t'|'health check|--impact'|'health event|--subscription'|'health event|--filter'|'health event|--service'|'health event|--region'|'health event|--since'|'health event|--api-version'|'health event|--jq'|'health event|-q'|'health event|--template'|'health event|-t'|'config get|--jq'|'config get|-q'|'config get|--template'|'config get|-t'|'config list|--jq'|'config list|-q'|'config list|--template'|'config list|-t'|'profile list|--jq'|'profile list|-q'|'profile list|--template'|'profile list|-t'|'profile use|--dir'|'profile remove|--dir'|'doctor|--check-timeout'|'doctor|--jq'|'doctor|-q'|'doctor|--template'|'doctor|-t'|'emulator start|--port'|'emulator start|--host'|'emulator start|--data-dir'|'emulator start|--tls-cert'|'emulator start|--tls-key'|'emulator start|--allow-host'|'emulator start|--public-host'|'emulator console|--jq'|'emulator console|-q'|'emulator console|--template'|'emulator console|-t'|'emulator console|--url'|'emulator info|--jq'|'emulator info|-q'|'emulator info|--template'|'emulator info|-t'|'emulator info|--url'|'emulator reset|--url'|'emulator advance|--jq'|'emulator advance|-q'|'emulator advance|--template'|'emulator advance|-t'|'emulator advance|--url'|'emulator requests|--jq'|'emulator requests|-q'|'emulator requests|--template'|'emulator requests|-t'|'emulator requests|--service'|'emulator requests|--url'|'emulator fault add|--jq'|'emulator fault add|-q'|'emulator fault add|--template'|'emulator fault add|-t'|'emulator fault add|--type'|'emulator fault add|--path'|'emulator fault add|--method'|'emulator fault add|--latency'|'emulator fault add|--status'|'emulator fault add|--retry-after'|'emulator fault add|--count'|'emulator fault add|--rate'|'emulator fault add|--seed'|'emulator fault add|--url'|'emulator fault list|--jq'|'emulator fault list|-q'|'emulator fault list|--template'|'emulator fault list|-t'|'emulator fault list|--url'|'emulator fault clear|--url'|'emulator budget|--user'|'emulator budget|--token-of'|'emulator budget|--caller'|'emulator budget|--jq'|'emulator budget|-q'|'emulator budget|--template'|'emulator budget|-t'|'emulator budget|--remaining'|'emulator budget|--reset-in'|'emulator budget|--resource'|'emulator budget|-r'|'emulator budget|--url'|'emulator budgets|--jq'|'emulator budgets|-q'|'emulator budgets|--template'|'emulator budgets|-t'|'emulator budgets|--url'|'emulator secondary|--user'|'emulator secondary|--token-of'|'emulator secondary|--caller'|'emulator secondary|--jq'|'emulator secondary|-q'|'emulator secondary|--template'|'emulator secondary|-t'|'emulator secondary|--count'|'emulator secondary|--retry-after'|'emulator secondary|--status'|'emulator secondary|--reset-in'|'emulator secondary|--url'|'emulator limits|--jq'|'emulator limits|-q'|'emulator limits|--template'|'emulator limits|-t'|'emulator limits|--concurrent'|'emulator limits|--points-per-minute'|'emulator limits|--content-per-minute'|'emulator limits|--content-per-hour'|'emulator limits|--content-window'|'emulator limits|--url'|'emulator admin|--jq'|'emulator admin|-q'|'emulator admin|--template'|'emulator admin|-t'|'emulator admin|--data'|'emulator admin|--url'|'emulator service-account create|--jq'|'emulator service-account create|-q'|'emulator service-account create|--template'|'emulator service-account create|-t'|'emulator service-account create|--scheme'|'emulator service-account create|--email'|'emulator service-account create|--algorithm'|'emulator service-account create|--output'|'emulator service-account create|-o'|'emulator service-account create|--url'|*'|--profile'|*'|-p'|*'|--max-wait'|*'|--timeout') return 0 ;;
  esac
  return 1
}
# $1 = "command path|flag": completes the flag's value into COMPREPLY.
_lanyard_value() {
  case "$1" in
    'auth device|--scopes'|'auth device|-s'|'auth login|--scopes'|'auth login|-s'|'auth login|--login'|'auth login|--timeout'|'auth login|--server'|'auth login|--client-id'|'auth login|--client-key'|'auth login|--client-metadata-url'|'auth login|--idp-token-endpoint'|'auth login|--idp-client-id'|'auth login|--workload-token-file'|'auth login|--auth-param'|'auth login|--authorization-endpoint'|'auth login|--token-endpoint'|'auth token|--hostname'|'auth token|--server'|'auth token create|--scopes'|'auth token create|-s'|'auth token create|--note'|'auth status|--jq'|'auth status|-q'|'auth status|--template'|'auth status|-t'|'auth status|--expires-within'|'auth refresh|--scopes'|'auth refresh|-s'|'auth refresh|--timeout'|'auth switch|--hostname'|'auth switch|--dir'|'auth logout|--dir'|'auth logout|--server'|'auth setup-git|--hostname'|'ratelimit status|--jq'|'ratelimit status|-q'|'ratelimit status|--template'|'ratelimit status|-t'|'ratelimit status|--fail-under'|'ratelimit wait|--min'|'ratelimit wait|--timeout'|'api|--method'|'api|-X'|'api|--header'|'api|-H'|'api|--raw-field'|'api|-f'|'api|--field'|'api|-F'|'api|--checkpoint'|'api|--jq'|'api|-q'|'api|--template'|'api|-t'|'echo send|--jq'|'echo send|-q'|'echo send|--template'|'echo send|-t'|'echo auth-info|--audience'|'echo auth-info|--issuer'|'echo auth-info|--lifetime'|'echo auth-info|--project'|'echo auth-info|--client-id'|'echo auth-info|--login-hint'|'echo auth-info|--timeout'|'echo auth-info|--jq'|'echo auth-info|-q'|'echo auth-info|--template'|'echo auth-info|-t'|'echo token|--audience'|'echo token|--issuer'|'echo token|--lifetime'|'echo token|--project'|'echo token|--client-id'|'echo token|--login-hint'|'echo token|--timeout'|'echo token|--jq'|'echo token|-q'|'echo token|--template'|'echo token|-t'|'echo key status|--jq'|'echo key status|-q'|'echo key status|--template'|'echo key status|-t'|'protocol request|--method'|'protocol request|-m'|'protocol request|--params'|'protocol request|--scopes'|'protocol request|-s'|'protocol request|--client-id'|'protocol request|--client-key'|'protocol request|--client-metadata-url'|'protocol request|--idp-token-endpoint'|'protocol request|--idp-client-id'|'protocol request|--workload-token-file'|'protocol request|--auth-param'|'protocol request|--authorization-endpoint'|'protocol request|--token-endpoint'|'protocol request|--elicitation'|'protocol request|--timeout'|'protocol request|--jq'|'protocol request|-q'|'protocol request|--template'|'protocol request|-t'|'protocol bridge|--scopes'|'protocol bridge|-s'|'protocol bridge|--client-id'|'protocol bridge|--client-key'|'protocol bridge|--client-metadata-url'|'protocol bridge|--idp-token-endpoint'|'protocol bridge|--idp-client-id'|'protocol bridge|--workload-token-file'|'protocol bridge|--auth-param'|'protocol bridge|--authorization-endpoint'|'protocol bridge|--token-endpoint'|'protocol bridge|--timeout'|'protocol bridge|--sign-in-wait'|'mailbox list|--jq'|'mailbox list|-q'|'mailbox list|--template'|'mailbox list|-t'|'mailbox list|--domain'|'mailbox list|--label'|'mailbox list|-l'|'mailbox list|--count'|'mailbox list|-n'|'mailbox list|--start'|'mailbox list|--checkpoint'|'mailbox get|--jq'|'mailbox get|-q'|'mailbox get|--template'|'mailbox get|-t'|'mailbox get|--domain'|'mailbox get|--label'|'mailbox get|-l'|'mailbox raw|--domain'|'mailbox url|--jq'|'mailbox url|-q'|'mailbox url|--template'|'mailbox url|-t'|'mailbox url|--domain'|'mailbox part|--domain'|'mailbox store|--jq'|'mailbox store|-q'|'mailbox store|--template'|'mailbox store|-t'|'mailbox store|--domain'|'mailbox store|--label'|'mailbox store|-l'|'mailbox store|--marker'|'mailbox store|-m'|'mailbox update|--jq'|'mailbox update|-q'|'mailbox update|--template'|'mailbox update|-t'|'mailbox update|--domain'|'mailbox label|--jq'|'mailbox label|-q'|'mailbox label|--template'|'mailbox label|-t'|'mailbox label|--domain'|'mailbox label|--add'|'mailbox label|-a'|'mailbox label|--remove'|'mailbox label|-r'|'mailbox label|--add-marker'|'mailbox label|--remove-marker'|'mailbox delete|--jq'|'mailbox delete|-q'|'mailbox delete|--template'|'mailbox delete|-t'|'mailbox delete|--domain'|'health events|--subscription'|'health events|--filter'|'health events|--service'|'health events|--region'|'health events|--since'|'health events|--api-version'|'health events|--jq'|'health events|-q'|'health events|--template'|'health events|-t'|'health events|--max'|'health check|--subscription'|'health check|--filter'|'health check|--service'|'health check|--region'|'health check|--since'|'health check|--api-version'|'health check|--jq'|'health check|-q'|'health check|--template'|'health check|-t'|'health event|--subscription'|'health event|--filter'|'health event|--service'|'health event|--region'|'health event|--since'|'health event|--api-version'|'health event|--jq'|'health event|-q'|'health event|--template'|'health event|-t'|'config get|--jq'|'config get|-q'|'config get|--template'|'config get|-t'|'config list|--jq'|'config list|-q'|'config list|--template'|'config list|-t'|'profile list|--jq'|'profile list|-q'|'profile list|--template'|'profile list|-t'|'profile use|--dir'|'profile remove|--dir'|'doctor|--check-timeout'|'doctor|--jq'|'doctor|-q'|'doctor|--template'|'doctor|-t'|'emulator start|--port'|'emulator start|--host'|'emulator start|--allow-host'|'emulator start|--public-host'|'emulator console|--jq'|'emulator console|-q'|'emulator console|--template'|'emulator console|-t'|'emulator console|--url'|'emulator info|--jq'|'emulator info|-q'|'emulator info|--template'|'emulator info|-t'|'emulator info|--url'|'emulator reset|--url'|'emulator advance|--jq'|'emulator advance|-q'|'emulator advance|--template'|'emulator advance|-t'|'emulator advance|--url'|'emulator requests|--jq'|'emulator requests|-q'|'emulator requests|--template'|'emulator requests|-t'|'emulator requests|--url'|'emulator fault add|--jq'|'emulator fault add|-q'|'emulator fault add|--template'|'emulator fault add|-t'|'emulator fault add|--path'|'emulator fault add|--method'|'emulator fault add|--latency'|'emulator fault add|--status'|'emulator fault add|--retry-after'|'emulator fault add|--count'|'emulator fault add|--rate'|'emulator fault add|--seed'|'emulator fault add|--url'|'emulator fault list|--jq'|'emulator fault list|-q'|'emulator fault list|--template'|'emulator fault list|-t'|'emulator fault list|--url'|'emulator fault clear|--url'|'emulator budget|--token-of'|'emulator budget|--caller'|'emulator budget|--jq'|'emulator budget|-q'|'emulator budget|--template'|'emulator budget|-t'|'emulator budget|--remaining'|'emulator budget|--reset-in'|'emulator budget|--url'|'emulator budgets|--jq'|'emulator budgets|-q'|'emulator budgets|--template'|'emulator budgets|-t'|'emulator budgets|--url'|'emulator secondary|--token-of'|'emulator secondary|--caller'|'emulator secondary|--jq'|'emulator secondary|-q'|'emulator secondary|--template'|'emulator secondary|-t'|'emulator secondary|--count'|'emulator secondary|--retry-after'|'emulator secondary|--status'|'emulator secondary|--reset-in'|'emulator secondary|--url'|'emulator limits|--jq'|'emulator limits|-q'|'emulator limits|--template'|'emulator limits|-t'|'emulator limits|--concurrent'|'emulator limits|--points-per-minute'|'emulator limits|--content-per-minute'|'emulator limits|--content-per-hour'|'emulator limits|--content-window'|'emulator limits|--url'|'emulator admin|--jq'|'emulator admin|-q'|'emulator admin|--template'|'emulator admin|-t'|'emulator admin|--data'|'emulator admin|--url'|'emulator service-account create|--jq'|'emulator service-account create|-q'|'emulator service-account create|--template'|'emulator service-account create|-t'|'emulator service-account create|--email'|'emulator service-account create|--url')
      COMPREPLY=(); return 0
      ;;
    'auth login|--resource'|'ratelimit status|--resource'|'ratelimit status|-r'|'ratelimit wait|--resource'|'ratelimit wait|-r'|'protocol request|--resource'|'protocol bridge|--resource'|'emulator budget|--resource'|'emulator budget|-r')
      COMPREPLY=($(compgen -W "$(lanyard __complete resources 2>/dev/null)" -- "$cur")); return 0
      ;;
    'auth token|--user'|'auth token|-u'|'auth token create|--user'|'auth token create|-u'|'auth refresh|--user'|'auth refresh|-u'|'auth switch|--user'|'auth switch|-u'|'auth logout|--user'|'auth logout|-u'|'ratelimit status|--user'|'ratelimit wait|--user'|'api|--user'|'exec|--user'|'mailbox list|--user'|'mailbox get|--user'|'mailbox raw|--user'|'mailbox url|--user'|'mailbox part|--user'|'mailbox store|--user'|'mailbox update|--user'|'mailbox label|--user'|'mailbox delete|--user'|'emulator budget|--user'|'emulator secondary|--user')
      COMPREPLY=($(compgen -W "$(lanyard __complete accounts 2>/dev/null)" -- "$cur")); return 0
      ;;
    'api|--input'|'echo auth-info|--credentials'|'echo auth-info|-c'|'echo token|--credentials'|'echo token|-c'|'mailbox raw|--output'|'mailbox raw|-o'|'mailbox part|--output'|'mailbox part|-o'|'emulator start|--tls-cert'|'emulator start|--tls-key'|'emulator service-account create|--output'|'emulator service-account create|-o')
      COMPREPLY=($(compgen -f -- "$cur")); return 0
      ;;
    'api|--service')
      COMPREPLY=($(compgen -W 'hosting echo mailbox health protocol' -- "$cur")); return 0
      ;;
    'exec|--service'|'exec|-s')
      COMPREPLY=($(compgen -W 'hosting echo health protocol' -- "$cur")); return 0
      ;;
    'echo auth-info|--scheme'|'echo auth-info|-s'|'echo token|--scheme'|'echo token|-s')
      COMPREPLY=($(compgen -W 'vendor-jwt service-account default-service-account id-token app-platform' -- "$cur")); return 0
      ;;
    'protocol request|--protocol-version')
      COMPREPLY=($(compgen -W '2026-07-28 2025-11-25 2025-06-18 2025-03-26' -- "$cur")); return 0
      ;;
    'health check|--impact')
      COMPREPLY=($(compgen -W 'critical error warning informational' -- "$cur")); return 0
      ;;
    'emulator start|--data-dir')
      COMPREPLY=($(compgen -d -- "$cur")); return 0
      ;;
    'emulator requests|--service')
      COMPREPLY=($(compgen -W 'hosting echo protocol mailbox health admin' -- "$cur")); return 0
      ;;
    'emulator fault add|--type')
      COMPREPLY=($(compgen -W 'latency reset status truncate' -- "$cur")); return 0
      ;;
    'emulator service-account create|--scheme')
      COMPREPLY=($(compgen -W 'vendor-jwt service-account default-service-account' -- "$cur")); return 0
      ;;
    'emulator service-account create|--algorithm')
      COMPREPLY=($(compgen -W 'RS256 ES256' -- "$cur")); return 0
      ;;
    *'|--max-wait'|*'|--timeout')
      COMPREPLY=(); return 0
      ;;
    *'|--profile'|*'|-p')
      COMPREPLY=($(compgen -W "$(lanyard __complete profiles 2>/dev/null)" -- "$cur")); return 0
      ;;
  esac
  COMPREPLY=()
}
# $1 = "command path|index": the choices of that positional argument.
_lanyard_args() {
  case "$1" in
    'completion|0') echo 'bash zsh fish' ;;
  esac
}
_lanyard() {
  local cur path="" w i skip=0 npos=0
  cur="${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ "$w" == -* ]]; then
      _lanyard_takes_value "$path|$w" && skip=1
    elif [[ " $(_lanyard_subcommands "$path") " == *" $w "* ]]; then
      path="${path:+$path }$w"
      npos=0
    else
      npos=$((npos + 1))
    fi
  done
  if ((skip)); then
    _lanyard_value "$path|${COMP_WORDS[COMP_CWORD-1]}"
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
