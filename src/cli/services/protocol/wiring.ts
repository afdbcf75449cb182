/** Wires the protocol core to the terminal: HTTP, credential store, browser, stdin secret, prompts, notices. */
import type { Context } from '../../context.js';
import type { ProtocolSessionDeps } from '../../../core/protocol/session.js';
import type { WorkloadTokenSource } from '../../../core/protocol/store.js';
import { protocolCredentials } from './credentials.js';
import { AuthRequiredError, CancelledError } from '../../../core/errors.js';
import { checkClientMetadataUrl } from '../../../core/protocol/client-identity.js';
import { RESERVED_AUTHORIZATION_PARAMS, type AuthorizeOptions } from '../../../core/protocol/flow.js';
import { parseServerUrl } from '../../../core/protocol/endpoints.js';
import { signingAlgOf } from '../../../core/protocol/token.js';
import { sanitize } from '../../output/output.js';
import { waitTimeoutMs } from '../../option-parse.js';
import { readStdinSecret } from '../../terminal/stdin.js';
import { loopbackOverSsh, remoteWithoutDisplay, requirePerson } from '../../terminal/interactive.js';
import { UsageError } from '../../errors/usage-error.js';
import { answerElicitation, type ElicitationMode } from './elicit.js';

export interface ProtocolCliOptions {
  browser?: boolean;
  elicitation?: string;
  /**
   * stdin carries the protocol (the bridge): secrets come from the
   * environment only, and the person is at the host, not at a terminal.
   */
  stdinIsMessages?: boolean;
}

/** The options `withProtocolClientOptions` declares, with `--client-id`. */
export interface ProtocolClientAuthOptions {
  clientId?: string;
  clientMetadataUrl?: string;
  clientKey?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  workloadTokenFile?: string;
  dpop?: boolean;
  resource?: string | false;
  authParam?: Record<string, string>;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
}

/** The lock wait when nothing says otherwise (FileLock's default). */
const LOCK_WAIT_MS = 60_000;

export async function protocolDeps(ctx: Context, o: ProtocolCliOptions = {}): Promise<ProtocolSessionDeps> {
  const timeoutMs = waitTimeoutMs(ctx, '5m');
  // A sign-in holds the server's lock while the browser is out: another process (a second bridge) waits that long, and a little more.
  const waitMs = Math.max(LOCK_WAIT_MS, timeoutMs + LOCK_WAIT_MS / 2);
  const [http, credentials, lock] = await Promise.all([ctx.http(), protocolCredentials(ctx), ctx.credentialLock({ waitMs })]);
  const mode = o.stdinIsMessages ? 'decline' : elicitationMode(ctx, o.elicitation);
  let secret: Promise<string | undefined> | undefined;
  // A bridge's person is at the host that started it (which shows stderr in its log).
  const needPerson = (server: string) => {
    if (o.stdinIsMessages) return;
    requirePerson(
      ctx,
      'the browser sign-in to the protocol server',
      `run \`lanyard auth login --server ${server}\` once at a terminal (the token is stored and refreshed), or use \`lanyard auth login --server ${server} --client-credentials\` with LANYARD_CLIENT_SECRET`,
    );
  };
  return {
    http,
    credentials,
    lock,
    clock: ctx.clock,
    signal: ctx.signal,
    loopbackTimeoutMs: timeoutMs,
    notify: (line) => ctx.io.err(line),
    clientSecret: () => (secret ??= o.stdinIsMessages ? Promise.resolve(ctx.env.LANYARD_CLIENT_SECRET || undefined) : readClientSecret(ctx)),
    workloadToken: (from) => readWorkloadToken(ctx, from),
    idToken: async () =>
      ctx.env.LANYARD_ID_TOKEN || (ctx.io.stdinIsTTY || o.stdinIsMessages ? undefined : (await readStdinSecret(ctx.io, 'the ID token')) || undefined),
    elicit: (params) => answerElicitation(ctx, mode, params),
    onNotification(method, params) {
      if (method !== 'notifications/message' || !ctx.debug) return;
      const p = (params ?? {}) as { level?: string; data?: unknown };
      ctx.io.err(`* server ${sanitize(String(p.level ?? 'info'))}: ${sanitize(typeof p.data === 'string' ? p.data : JSON.stringify(p.data))}`);
    },
    requirePerson: (server) => needPerson(server),
    async presentAuthorizationUrl(url) {
      const server = new URL(url).searchParams.get('resource') ?? '<server-url>';
      needPerson(server);
      // Over ssh with no display the redirect to 127.0.0.1 here is reached only through a forwarded port.
      if (remoteWithoutDisplay(ctx.env))
        return ctx.io.err(loopbackOverSsh(url, `Or press Ctrl-C and sign in as a client: \`lanyard auth login --server ${server} --client-credentials\`.`));
      ctx.io.err(`Open this URL in a browser to authorize Lanyard:\n  ${url}`);
      if (o.browser === false) return;
      const opened = await (await ctx.browser()).open(url);
      if (!opened) ctx.warn('could not start a browser; open the URL above yourself');
      ctx.io.err('Waiting for the browser to come back…');
    },
  };
}

/** --elicitation: prompt (a person at a terminal), decline (the default elsewhere), defaults (accept the schema's defaults). */
function elicitationMode(ctx: Context, given: string | undefined): ElicitationMode {
  const v = given ?? ctx.env.LANYARD_ELICITATION;
  if (v === undefined || v === '') return ctx.io.stdinIsTTY && ctx.io.stderrIsTTY ? 'prompt' : 'decline';
  if (v === 'prompt' || v === 'decline' || v === 'defaults') {
    if (v === 'prompt' && !ctx.io.stdinIsTTY) throw new UsageError('--elicitation prompt needs a terminal on stdin');
    return v;
  }
  throw new UsageError(`--elicitation must be prompt, decline or defaults (got ${JSON.stringify(v)})`);
}

/** The client secret: LANYARD_CLIENT_SECRET, else stdin when it is not a terminal. Never argv. */
async function readClientSecret(ctx: Context): Promise<string | undefined> {
  const env = ctx.env.LANYARD_CLIENT_SECRET;
  if (env) return env;
  if (ctx.io.stdinIsTTY) return undefined;
  return (await readStdinSecret(ctx.io, 'the client secret')) || undefined;
}

/** The client metadata URL, private key and identity provider options (`withProtocolClientOptions`), checked. */
export async function protocolAuthExtras(
  o: ProtocolClientAuthOptions,
  env: Readonly<Record<string, string | undefined>> = {},
  signal?: AbortSignal,
): Promise<Partial<AuthorizeOptions>> {
  const out: {
    clientMetadataUrl?: string;
    clientKey?: string;
    identityProvider?: { tokenEndpoint: string; clientId: string };
    workloadToken?: string;
    workloadTokenFrom?: WorkloadTokenSource;
    dpop?: boolean;
    resource?: string | false;
    authorizationParams?: Record<string, string>;
    authorizationEndpoint?: string;
    tokenEndpoint?: string;
  } = {};
  if (o.resource !== undefined) out.resource = o.resource === false ? false : checkResource(o.resource);
  if (o.authParam && Object.keys(o.authParam).length) {
    const reserved = Object.keys(o.authParam).find((k) => RESERVED_AUTHORIZATION_PARAMS.includes(k));
    if (reserved) throw new UsageError(`--auth-param cannot set ${reserved} (Lanyard sets it for the flow's security)`);
    out.authorizationParams = o.authParam;
  }
  for (const k of ['authorizationEndpoint', 'tokenEndpoint'] as const) {
    if (o[k]) {
      parseServerUrl(o[k]);
      out[k] = o[k];
    }
  }
  out.dpop = o.dpop ?? dpopSetting(env.LANYARD_DPOP);
  if (o.workloadTokenFile || (env.LANYARD_WORKLOAD_TOKEN && o.clientId)) {
    if (!o.clientId) throw new UsageError('--workload-token-file needs --client-id');
    // Where it came from is stored with the tokens (never the JWT): renewals read it again there.
    const { resolve } = await import('node:path');
    out.workloadTokenFrom = o.workloadTokenFile ? { file: resolve(o.workloadTokenFile) } : { env: WORKLOAD_TOKEN_VAR };
    out.workloadToken = o.workloadTokenFile
      ? (await readOptionFile(o.workloadTokenFile, '--workload-token-file', signal)).trim()
      : env.LANYARD_WORKLOAD_TOKEN!.trim();
    if (!isJwt(out.workloadToken)) throw new UsageError('the workload identity token is not a JWT (header.payload.signature)');
  }
  if (o.clientMetadataUrl) out.clientMetadataUrl = checkClientMetadataUrl(o.clientMetadataUrl);
  if (o.clientKey) {
    if (!o.clientId) throw new UsageError('--client-key needs --client-id');
    out.clientKey = await readOptionFile(o.clientKey, '--client-key', signal);
    signingAlgOf(out.clientKey);
  }
  if (o.idpTokenEndpoint || o.idpClientId) {
    if (!o.idpTokenEndpoint || !o.idpClientId) throw new UsageError('cross-app access needs both --idp-token-endpoint and --idp-client-id');
    if (!o.clientId) throw new UsageError('cross-app access needs --client-id (and its secret from LANYARD_CLIENT_SECRET)');
    parseServerUrl(o.idpTokenEndpoint);
    out.identityProvider = { tokenEndpoint: o.idpTokenEndpoint, clientId: o.idpClientId };
  }
  return out;
}

const WORKLOAD_TOKEN_VAR = 'LANYARD_WORKLOAD_TOKEN';
const isJwt = (v: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(v);

/**
 * A renewal's workload JWT, read again where the sign-in read it (the
 * platform rotates the file); a file that is gone or unreadable, an unset
 * variable or something else than a JWT is one line, exit 4 — never a
 * browser sign-in.
 */
async function readWorkloadToken(ctx: Context, from: WorkloadTokenSource): Promise<string> {
  const cannot = (why: string) => new AuthRequiredError(`cannot renew the protocol access token: ${why}`, { service: 'protocol' });
  let jwt: string;
  if ('file' in from) {
    const [{ FileReadError, readBoundedText }, { USER_FILE_CAPS, USER_FILE_PIPE_MS }] = await Promise.all([
      import('../../../core/fs/bounded-read.js'),
      import('../../user-file.js'),
    ]);
    try {
      jwt = (await readBoundedText(from.file, { maxBytes: USER_FILE_CAPS.credential, timeoutMs: USER_FILE_PIPE_MS, signal: ctx.signal })).trim();
    } catch (err) {
      if (!(err instanceof FileReadError)) throw err;
      if (err.kind === 'aborted') throw new CancelledError();
      throw cannot(`the workload identity token file ${from.file}, where the sign-in read it, ${err.reason}`);
    }
  } else {
    jwt = (ctx.env[from.env] ?? '').trim();
    if (!jwt) throw cannot(`${from.env}, where the sign-in read the workload identity token, is not set`);
  }
  if (!isJwt(jwt)) throw cannot(`the workload identity token in ${'file' in from ? from.file : from.env} is not a JWT (header.payload.signature)`);
  return jwt;
}

async function readOptionFile(path: string, flag: string, signal?: AbortSignal): Promise<string> {
  const { readUserFile, USER_FILE_CAPS } = await import('../../user-file.js');
  return readUserFile(path, flag, { maxBytes: USER_FILE_CAPS.credential, signal });
}

/** LANYARD_DPOP: 1/true/on asks for DPoP, 0/false/off never; unset or empty: when the server advertises it. */
function dpopSetting(v: string | undefined): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  if (/^(1|true|on|yes)$/i.test(v)) return true;
  if (/^(0|false|off|no)$/i.test(v)) return false;
  throw new UsageError(`LANYARD_DPOP must be 1 or 0 (got ${JSON.stringify(v)})`);
}

/** RFC 8707 §2: an absolute URI without a fragment. */
function checkResource(v: string): string {
  try {
    const u = new URL(v);
    if (!u.hash) return v;
  } catch {
    /* below */
  }
  throw new UsageError(`--resource must be an absolute URL without a fragment (got ${JSON.stringify(v)})`);
}
