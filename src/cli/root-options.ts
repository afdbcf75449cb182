/**
 * The root command's options, declared once: program.ts declares them on
 * commander from this table, and `GlobalOptions` (what `ctx.globals()`
 * returns) is derived from it — an option that takes a value (`<…>`) is a
 * string, a flag a boolean. test/unit/cli/program.test.ts checks each key is
 * the name commander parses the option into.
 */
export const ROOT_OPTIONS = {
  profile: ['-p, --profile <name>', 'profile to use (env: LANYARD_PROFILE)'],
  debug: ['--debug', 'trace HTTP requests on stderr, secrets redacted (env: LANYARD_DEBUG=1)'],
  wait: ['--wait', 'wait out rate limits, primary ones too, instead of failing with exit 3 (env: LANYARD_RATE_LIMIT_WAIT=1)'],
  maxWait: [
    '--max-wait <duration>',
    'longest single rate-limit or pacing wait: default 1h with --wait, else 1m for a wait the server asks for (Retry-After) or pacing needs; 0: never (env: LANYARD_RATE_LIMIT_MAX_WAIT)',
  ],
  /** Deadline of each HTTP request (`ratelimit wait`: of the wait). */
  timeout: [
    '--timeout <duration>',
    'deadline of each HTTP request, body included (default 5m; 0 for none; env: LANYARD_TIMEOUT) — of a download, its head and each silence of its body; for a sign-in or `ratelimit wait`, also its longest wait',
  ],
  /** Hosting calls use client_id:client_secret Basic auth (public data). */
  basicClient: [
    '--basic-client',
    'hosting calls authenticate as the OAuth app (client id + LANYARD_CLIENT_SECRET, Basic) for public data (env: LANYARD_BASIC_CLIENT=1)',
  ],
  /** `--no-color`: false when given. */
  color: ['--no-color', 'disable colour (env: NO_COLOR)'],
} as const satisfies Record<string, readonly [flags: string, description: string]>;

/** What an option's flags make of it: a value (`<…>`) is a string, a flag a boolean. */
type ValueOf<Flags extends string> = Flags extends `${string}<${string}>` ? string : boolean;

/** Options every command accepts (defined on the root program from ROOT_OPTIONS), as commander parses them. */
export type GlobalOptions = { readonly [K in keyof typeof ROOT_OPTIONS]?: ValueOf<(typeof ROOT_OPTIONS)[K][0]> };
