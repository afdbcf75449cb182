/**
 * The built CLI follows a download endpoint's redirect to another origin, as
 * the code host's tarball, zipball, release-asset, artifact and log endpoints
 * answer (302 to a download or storage host): two real servers on 127.0.0.1
 * on two ports; the second gets no credential, the body arrives whole on
 * stdout, the `--debug` trace shows no secret. A POST answered 307 to another
 * origin is still refused, and nothing reaches it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './harness.js';

const TOKEN = 'lyp_redirect_e2e_token_00000000000000000001';
/** An archive's bytes, as text so stdout can be compared (2 MiB: several chunks). */
const ARCHIVE = randomBytes(1.5 * 1024 * 1024).toString('base64');
/** A signed download URL's query: whoever has it may fetch the file. */
const SIGNED_QUERY = 'X-Amz-Signature=SIGSECRET123&X-Amz-Credential=CREDSECRET&token=TOKSECRET';
let dir: string;
const servers: Server[] = [];
let apiUrl: string;
let codeloadUrl: string;
/** Where the API "moved": another origin (localhost, not 127.0.0.1), answering 401 to a request without a token. */
let movedUrl: string;
const seenByCodeload: Array<{ method?: string; url?: string; headers: IncomingMessage['headers'] }> = [];

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1'): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return `http://${host}:${(s.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-redirect-'));
  codeloadUrl = await listen((req, res) => {
    seenByCodeload.push({ method: req.method, url: req.url, headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-disposition': 'attachment; filename=o-r-main.tar.gz' }).end(ARCHIVE);
  });
  movedUrl = await listen((req, res) => {
    res.writeHead(req.headers.authorization ? 200 : 401, { 'content-type': 'application/json' });
    res.end(req.headers.authorization ? '{"login":"mona"}' : '{"message":"Requires authentication"}');
  }, 'localhost');
  apiUrl = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/api/repos/o/r/releases/assets/1') return res.writeHead(302, { location: `${codeloadUrl}/asset?${SIGNED_QUERY}` }).end();
    if (path === '/api/user') return res.writeHead(301, { location: `${movedUrl}/api/user` }).end();
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Bad credentials"}');
    if (path === '/api/repos/o/r/tarball/main') return res.writeHead(302, { location: `${codeloadUrl}/o/r/legacy.tar.gz/refs/heads/main` }).end();
    if (path === '/api/repos/o/r/issues') return res.writeHead(307, { location: `${codeloadUrl}/steal` }).end();
    res.writeHead(404).end();
  });
  const r = await runCli(['config', 'set', 'hosting.apiUrl', `${apiUrl}/api`], { env: { LANYARD_CONFIG_DIR: dir } });
  expect(r.code, r.stderr).toBe(0);
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[]) => runCli(args, { env: { LANYARD_CONFIG_DIR: dir, LANYARD_TOKEN: TOKEN }, timeoutMs: 30_000 });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('lanyard api on a download endpoint redirected to another origin', () => {
  it('follows the 302 without the token: the archive arrives whole, the second origin sees no credential, the trace no secret', async () => {
    seenByCodeload.length = 0;
    const r = await run(['--debug', 'api', '/repos/o/r/tarball/main']);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(sha(r.stdout)).toBe(sha(ARCHIVE));
    expect(seenByCodeload).toHaveLength(1);
    expect(seenByCodeload[0]!.url).toBe('/o/r/legacy.tar.gz/refs/heads/main');
    expect(seenByCodeload[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(seenByCodeload)).not.toContain(TOKEN);
    expect(r.stderr).toContain(`following the redirect (HTTP 302) to ${codeloadUrl}/o/r/legacy.tar.gz/refs/heads/main`);
    expect(r.stderr).toContain(`${codeloadUrl} is another origin: sent without the credential`);
    expect(r.stderr).not.toContain(TOKEN);
  });

  it("--debug shows the redirect answer's Location without the signed URL's signature, credential or token", async () => {
    const r = await run(['--debug', 'api', '/repos/o/r/releases/assets/1', '-H', 'Accept: application/octet-stream']);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    for (const secret of ['SIGSECRET123', 'CREDSECRET', 'TOKSECRET', TOKEN]) expect(r.stderr).not.toContain(secret);
    expect(r.stderr).toContain(`< location: ${codeloadUrl}/asset?X-Amz-Signature=[REDACTED]&X-Amz-Credential=[REDACTED]&token=[REDACTED]`);
  });

  it('a POST answered 307 to another origin is refused in one line, exit 1, and nothing reaches it', async () => {
    seenByCodeload.length = 0;
    const r = await run(['api', '-X', 'POST', '/repos/o/r/issues', '-f', 'title=t']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/redirected \(HTTP 307\) to http:\/\/127\.0\.0\.1:\d+\/steal; a POST is not sent again elsewhere/);
    expect(seenByCodeload).toEqual([]);
  });

  it('a 401 from the other origin (sent no token) is its answer, not the token refused: exit 1, one line naming it', async () => {
    const r = await run(['api', '/user']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `GET ${apiUrl}/api/user: redirected to ${movedUrl}, which answered HTTP 401: Requires authentication (no credential is sent to another origin)`,
    ]);
    expect(r.stderr).not.toMatch(/authentication needed|sign in/);
  });
});
