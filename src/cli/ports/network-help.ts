/** The network settings in `lanyard --help` (the manual: docs/networks.md). */
// One line an item: the help wraps them to its width (output/help-wrap.ts).
export const NETWORK_HELP = `
Networks (docs/networks.md):
  LANYARD_ALLOW_PLAIN_HTTP=host[:port],…  lab setups only: allow a credential over http:// to these non-loopback hosts (* any); otherwise refused before sending (exit 2)
  HTTPS_PROXY, HTTP_PROXY, ALL_PROXY (lower-case first): proxy of every request, http://[user:password@]host:port; https through CONNECT. Profile: network.proxy
  NO_PROXY: hosts, .domains, *, IPs, CIDR ranges, each with optional :port go direct (profile: network.noProxy); loopback always goes direct
  LANYARD_CA_FILE=ca.pem: PEM bundle added to the default trust (profile: network.caFile)
  LANYARD_SYSTEM_CA=1: also trust the OS store, Node >= 22.15 (profile: network.systemCa)
  LANYARD_KEYCHAIN=required: credentials only in the OS keychain, never the 0600 file; exit 1 with the reason when it cannot be used (profile: keychain required)`;
