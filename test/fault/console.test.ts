/**
 * The emulator's console is a page on the emulator's own origin that can
 * revoke tokens, approve sign-ins and move the clock: another origin, a
 * foreign Host (DNS rebinding) and a post without the page's token are
 * refused, and what requests bring (a path, a header, a user agent) reaches
 * the page and its event stream as text, never as markup — nor any secret.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/server.js';

let emu: Emulator;
const CONSOLE = '/_emulator/console';
const PERSONAL_TOKEN = 'lyp_emulator_default_token_0000000000000001';

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(async () => emu?.close());
beforeEach(async () => emu.admin.reset());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request (node:http: any Host, any header). */
function raw(method: string, path: string, headers: Record<string, string>, body = ''): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${emu.url}${path}`,
      { method, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The console page as a browser of its origin gets it: its cookie and the form token in it. */
async function session(): Promise<{ cookie: string; token: string; html: string }> {
  const page = await raw('GET', CONSOLE, {});
  expect(page.status).toBe(200);
  const cookie = String(page.headers['set-cookie']).split(';')[0]!;
  const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  expect(token).toBeTruthy();
  return { cookie, token: token!, html: page.body };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';

describe('console actions', () => {
  it('work from the page: same origin, its cookie and its token (the control: the refusals below are not refusals of everything)', async () => {
    const { cookie, token } = await session();
    const r = await raw(
      'POST',
      `${CONSOLE}/actions`,
      { cookie, 'content-type': FORM, origin: emu.url, 'sec-fetch-site': 'same-origin' },
      form({ _csrf: token, action: 'advance', duration: '1h' }),
    );
    expect(r.status).toBe(303);
    expect(emu.clock.offsetMs).toBeGreaterThanOrEqual(3_600_000 - 1000);
  });

  it('are refused (403) from another origin, even with a valid cookie and token', async () => {
    const { cookie, token } = await session();
    for (const headers of <Array<Record<string, string>>>[
      { origin: 'http://evil.example' },
      { origin: 'http://localhost:1' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' },
    ]) {
      const r = await raw(
        'POST',
        `${CONSOLE}/actions`,
        { cookie, 'content-type': FORM, ...headers },
        form({ _csrf: token, action: 'advance', duration: '1h' }),
      );
      expect(r.status, JSON.stringify(headers)).toBe(403);
    }
    expect(emu.clock.offsetMs).toBeLessThan(1000);
  });

  it('are refused (403) for a foreign Host: a DNS-rebinding page reaches the emulator under its own name', async () => {
    const { cookie, token } = await session();
    const host = 'rebind.evil.example';
    const page = await raw('GET', CONSOLE, { host });
    expect(page.status).toBe(403);
    const events = await raw('GET', `${CONSOLE}/events`, { host });
    expect(events.status).toBe(403);
    const r = await raw('POST', `${CONSOLE}/actions`, { host, cookie, 'content-type': FORM }, form({ _csrf: token, action: 'reset' }));
    expect(r.status).toBe(403);
  });

  it('are refused (403) without the token of the page, or with a token of another cookie', async () => {
    const { cookie, token } = await session();
    const other = await session();
    const attempts: Array<Record<string, string>> = [{ cookie }, { cookie, token: 'x'.repeat(token.length) }, { cookie: other.cookie, token }, { token }];
    for (const a of attempts) {
      const r = await raw(
        'POST',
        `${CONSOLE}/actions`,
        { ...(a.cookie ? { cookie: a.cookie } : {}), 'content-type': FORM },
        form({ ...(a.token ? { _csrf: a.token } : {}), action: 'advance', duration: '1h' }),
      );
      expect(r.status, JSON.stringify(a)).toBe(403);
    }
    // A JSON body (what a page of another site cannot send without a pre-flight) is no way around it.
    const j = await raw('POST', `${CONSOLE}/actions`, { cookie, 'content-type': 'application/json' }, JSON.stringify({ action: 'reset' }));
    expect(j.status).toBe(415);
    // Nor is GET: reading never changes anything.
    expect((await raw('GET', `${CONSOLE}/actions?action=advance&duration=1h`, {})).status).toBe(405);
    expect(emu.clock.offsetMs).toBeLessThan(1000);
  });
});

describe('the event stream', () => {
  it('serves at most 16 consoles at once (503 beyond), and takes a new one when one leaves', async () => {
    const streams = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const ac = new AbortController();
        const res = await fetch(`${emu.url}${CONSOLE}/events`, { signal: ac.signal });
        expect(res.status).toBe(200);
        return ac;
      }),
    );
    const refused = await fetch(`${emu.url}${CONSOLE}/events`);
    expect(refused.status).toBe(503);
    await refused.arrayBuffer();
    streams.pop()!.abort();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const ac = new AbortController();
      const again = await fetch(`${emu.url}${CONSOLE}/events`, { signal: ac.signal });
      status = again.status;
      if (status === 200) streams.push(ac);
      else await again.arrayBuffer();
    }
    expect(status).toBe(200);
    for (const s of streams) s.abort();
  });
});

describe('what requests bring', () => {
  const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script><blink>"\'';

  it('is escaped in the page and its event stream; no secret is in either', async () => {
    // Watch the stream first: answer headers are kept while a console is open.
    const ac = new AbortController();
    const stream = await fetch(`${emu.url}${CONSOLE}/events`, { signal: ac.signal });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    let events = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        events += new TextDecoder().decode(value);
      }
    })().catch(() => undefined);
    const issued = (await emu.admin.verb('hosting', 'issue-token', { login: 'mona', clientId: 'Iv1.lanyardinstallable', scopes: [] })) as {
      access_token: string;
      refresh_token: string;
    };
    const path = `/api/v3/${encodeURIComponent(hostile)}/x<blink>`;
    await raw('GET', path, { authorization: `token ${PERSONAL_TOKEN}`, 'user-agent': hostile, 'x-hostile': hostile, cookie: `session=${issued.access_token}` });
    await raw('GET', `/api/v3/user?access_token=${issued.access_token}`, { authorization: `Bearer ${issued.access_token}` });
    // An answer that carries a code in its Location: the authorization server's redirect.
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    const consent = await raw(
      'GET',
      `/authorize?${form({ response_type: 'code', client_id: 'ctx-cli', redirect_uri: 'http://127.0.0.1:9/callback', code_challenge: challenge, code_challenge_method: 'S256', state: 'st' })}`,
      {},
    );
    const requestId = /name="request_id" value="([^"]+)"/.exec(consent.body)![1]!;
    const consentForm = await session();
    const allowed = await raw(
      'POST',
      '/authorize',
      { cookie: consentForm.cookie, 'content-type': FORM },
      form({ request_id: requestId, decision: 'allow', _csrf: consentForm.token }),
    );
    const code = new URL(String(allowed.headers.location)).searchParams.get('code')!;
    // A read of the journal is not journaled: its answer must not pass for the one before.
    expect((await raw('GET', '/_emulator/requests?limit=1', {})).status).toBe(200);
    expect(code).toBeTruthy();
    const seconds = Date.now();
    while (!events.includes('x-hostile') && Date.now() - seconds < 5000) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    const { html } = await session();
    for (const text of [html, events]) {
      expect(text).toContain('x-hostile');
      expect(text).toContain('location</dt><dd>http://127.0.0.1:9/callback?code=%5Bredacted%5D&amp;state=st');
      expect(text).not.toMatch(/<img|<script>alert|<blink>/);
      expect(text).toContain('&lt;img src=x onerror=alert(1)&gt;');
      for (const secret of [
        code,
        PERSONAL_TOKEN,
        issued.access_token,
        issued.refresh_token,
        'lanyard-emulator-password',
        'lanyard-cli-emulator-secret-0000000000000001',
        'emu-health-ada-0123456789abcdef',
        'AIzaSyLanyardEmulatorEchoKey0000000001',
      ]) {
        expect(text).not.toContain(secret);
      }
      // Masked the way the CLI masks: first four, last four.
      expect(text).toContain(`${PERSONAL_TOKEN.slice(0, 4)}…${PERSONAL_TOKEN.slice(-4)}`);
    }
    ac.abort();
    await reading;
  });

  it('the page runs no script but its own (CSP), cannot be framed, and is not cached', async () => {
    const page = await raw('GET', CONSOLE, {});
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).not.toMatch(/<script>(?!<\/script>)/);
  });
});
