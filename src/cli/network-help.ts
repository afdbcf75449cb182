/** The network settings in `lanyard --help` (the manual: docs/networks.md). */
export const NETWORK_HELP = `
Networks (docs/networks.md):
  LANYARD_ALLOW_PLAIN_HTTP=host[:port],…  lab setups only: allow a credential over
      http:// to these non-loopback hosts (* any); otherwise refused before sending (exit 2)`;
