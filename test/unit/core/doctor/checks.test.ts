/** The library's doctor checks (core/doctor/checks.ts) with an injected HTTP client, clock and resolver. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { credentialOrigin, type DoctorDeps, type DoctorTarget, diagnose, diagnoseService, keychainCheck } from '../../../../src/core/doctor/checks.js';
import { fixedCredential } from '../../../../src/core/auth/provider.js';
import { AuthRequiredError, NetworkError, RateLimitError } from '../../../../src/core/errors.js';
import { TlsError } from '../../../../src/core/http/trust.js';
import type { HttpResponse, RequestSpec } from '../../../../src/core/http/types.js';
import { FakeClock } from '../../../fakes/clock.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function response(status: number, headers: Record<string, string> = {}, extra: Partial<HttpResponse> = {}): HttpResponse {
  return {
    status,
    headers,
    url: 'https://api.example.test/rate_limit',
    body: Readable.from([]),
    text: async () => '',
    json: async <T>() => ({}) as T,
    bytes: async () => new Uint8Array(),
    dump: async () => undefined,
    ...extra,
  };
}

/** An HTTP client answering with `answer`, recording each request. */
function http(answer: (spec: RequestSpec) => Promise<HttpResponse>): DoctorDeps['http'] & { specs: RequestSpec[] } {
  const specs: RequestSpec[] = [];
  return {
    specs,
    request: async (spec) => {
      specs.push(spec);
      return answer(spec);
    },
  };
}

const target = (o: Partial<DoctorTarget> = {}): DoctorTarget => ({
  service: 'hosting',
  url: () => 'https://api.example.test/api/v3',
  probe: (url) => ({ url: `${url}/rate_limit` }),
  credential: async () => fixedCredential({ scheme: 'bearer', token: 'secret-token-1' }, 'env:LANYARD_TOKEN'),
  ...o,
});

const deps = (h: DoctorDeps['http'], o: Partial<DoctorDeps> = {}): DoctorDeps => ({
  http: h,
  // Time stands still unless a test moves it: no check reaches its limit by itself.
  clock: new FakeClock(NOW, { autoAdvance: false }),
  lookup: async () => ['192.0.2.10'],
  ...o,
});

describe('diagnoseService', () => {
  it('a healthy service: endpoint, credential from the environment, accepted, clock, budget', async () => {
    const h = http(async () =>
      response(
        200,
        { date: new Date(NOW).toUTCString() },
        { rateLimit: { limit: 5000, remaining: 4990, used: 10, reset: NOW / 1000 + 3600, resource: 'core' } },
      ),
    );
    const r = await diagnoseService(target(), deps(h));
    expect(r.status).toBe('ok');
    expect(r.addresses).toEqual(['192.0.2.10']);
    expect(r.credential).toEqual({ from: 'environment', source: 'env:LANYARD_TOKEN', variable: 'LANYARD_TOKEN' });
    expect(r.checks.map((c) => [c.name, c.status])).toEqual([
      ['endpoint', 'ok'],
      ['credential', 'ok'],
      ['accepted', 'ok'],
      ['clock', 'ok'],
      ['rate-limit', 'ok'],
    ]);
    expect(r.rateLimit).toEqual({ resource: 'core', limit: 5000, remaining: 4990, resetAt: new Date(NOW + 3600_000).toISOString() });
    // The credential goes through its provider, with the time limit on the request.
    expect(h.specs[0]).toMatchObject({ url: 'https://api.example.test/api/v3/rate_limit', timeouts: { connectMs: 10_000, totalMs: 10_000 } });
    expect(h.specs[0]!.auth?.source).toBe('env:LANYARD_TOKEN');
    expect(JSON.stringify(r)).not.toContain('secret-token-1');
  });

  it('a refused credential is a failure naming its origin', async () => {
    const r = await diagnoseService(target(), deps(http(async () => response(401))));
    expect(r.status).toBe('fail');
    expect(r.checks.find((c) => c.name === 'accepted')).toMatchObject({
      status: 'fail',
      problem: 'refused',
      summary: expect.stringContaining('LANYARD_TOKEN'),
    });
  });

  it('each failed step of the endpoint has its own problem: DNS, TCP, TLS', async () => {
    const dns = await diagnoseService(
      target(),
      deps(
        http(async () => response(200)),
        {
          lookup: async () => {
            throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
          },
        },
      ),
    );
    expect(dns.checks).toEqual([expect.objectContaining({ name: 'endpoint', status: 'fail', problem: 'dns' })]);
    const refused = await diagnoseService(
      target(),
      deps(
        http(async () => {
          throw new NetworkError('GET', 'https://api.example.test/', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
        }),
      ),
    );
    expect(refused.checks[0]).toMatchObject({ name: 'endpoint', status: 'fail', problem: 'connect' });
    const tls = await diagnoseService(
      target(),
      deps(
        http(async () => {
          throw new TlsError('TLS: the certificate of api.example.test has expired (CERT_HAS_EXPIRED)', {}, undefined);
        }),
      ),
    );
    expect(tls.checks[0]).toMatchObject({ name: 'endpoint', status: 'fail', problem: 'tls', summary: expect.stringContaining('expired') });
  });

  it('a server that never answers is cut off at the time limit of the injected clock', async () => {
    const clock = new FakeClock(NOW, { autoAdvance: false });
    let aborted = false;
    const h = http(
      (spec) =>
        new Promise<HttpResponse>((_resolve, reject) => {
          spec.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          });
        }),
    );
    const pending = diagnoseService(target(), deps(h, { clock, limitMs: 3000 }));
    // Let the lookup and the credential settle, then move time past the limit.
    for (let i = 0; i < 20 && h.specs.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(h.specs).toHaveLength(1);
    clock.advance(3000);
    const r = await pending;
    expect(r.checks[0]).toMatchObject({ name: 'endpoint', status: 'fail', problem: 'timeout', summary: expect.stringContaining('within 3 s') });
    expect(aborted).toBe(true);
  });

  it("clock skew from the server's Date: a minute is a warning, an hour a failure", async () => {
    const at = (offset: number) => http(async () => response(200, { date: new Date(NOW + offset).toUTCString() }));
    const clockOf = async (offset: number) => (await diagnoseService(target(), deps(at(offset)))).checks.find((c) => c.name === 'clock');
    expect(await clockOf(2000)).toMatchObject({ status: 'ok' });
    expect(await clockOf(-60_000)).toMatchObject({ status: 'warn', problem: 'clock-skew', summary: expect.stringContaining('ahead of the server by 60 s') });
    expect(await clockOf(3600_000)).toMatchObject({ status: 'fail', problem: 'clock-skew', summary: expect.stringContaining('behind the server by 60 min') });
  });

  it('expiry: from the provider, else the JWT claim; past is a failure, soon a warning', async () => {
    const jwt = (exp: number) => `e30.${Buffer.from(JSON.stringify({ exp })).toString('base64url')}.sig`;
    const run = async (token: string, expiresAt?: number) =>
      (
        await diagnoseService(
          target({ credential: async () => fixedCredential({ scheme: 'bearer', token }, 'env:LANYARD_HEALTH_TOKEN', expiresAt) }),
          deps(http(async () => response(200))),
        )
      ).checks.find((c) => c.name === 'expiry');
    expect(await run('opaque', NOW - 1000)).toMatchObject({ status: 'fail', problem: 'expired' });
    expect(await run(jwt(NOW / 1000 + 120))).toMatchObject({ status: 'warn', problem: 'expires-soon' });
    expect(await run(jwt(NOW / 1000 + 86_400))).toMatchObject({ status: 'ok' });
    expect(await run('opaque')).toBeUndefined();
  });

  it('a credential that cannot be had is a warning with the remedy; the call goes out bare', async () => {
    const h = http(async () => response(200));
    const r = await diagnoseService(
      target({
        credential: async () => {
          throw new AuthRequiredError('not signed in to the health API', { remedy: { kind: 'sign-in', service: 'health' } });
        },
      }),
      deps(h),
    );
    expect(r.checks.find((c) => c.name === 'credential')).toMatchObject({ status: 'warn', problem: 'no-credential', remedy: { kind: 'sign-in' } });
    expect(h.specs[0]!.auth).toBeUndefined();
    expect(r.status).toBe('warn');
  });

  it('through a proxy: no local DNS, the proxy named without its password', async () => {
    let looked = false;
    const r = await diagnoseService(
      target(),
      deps(
        http(async () => response(200)),
        {
          proxy: { httpsProxy: 'http://alice:pr0xy-pass@proxy.example.test:3128' },
          lookup: async () => {
            looked = true;
            return [];
          },
        },
      ),
    );
    expect(looked).toBe(false);
    expect(r.proxy).toBe('http://alice@proxy.example.test:3128');
    expect(r.checks[0]!.summary).toContain('through the proxy http://alice@proxy.example.test:3128');
    expect(JSON.stringify(r)).not.toContain('pr0xy-pass');
  });

  it('a service not configured is skipped; an empty budget fails', async () => {
    const skipped = await diagnoseService(
      target({
        url: () => {
          throw new Error('hosting.apiUrl is not set');
        },
      }),
      deps(http(async () => response(200))),
    );
    expect(skipped).toMatchObject({ status: 'skip', checks: [{ problem: 'not-configured' }] });
    const empty = await diagnoseService(
      target(),
      deps(http(async () => response(200, {}, { rateLimit: { limit: 60, remaining: 0, used: 60, reset: NOW / 1000 + 60 } }))),
    );
    expect(empty.checks.find((c) => c.name === 'rate-limit')).toMatchObject({ status: 'fail', problem: 'rate-limited' });
  });

  it('a probe refused by the rate limit: the endpoint answered, the budget fails, and so does the service', async () => {
    const r = await diagnoseService(
      target(),
      deps(
        http(async () => {
          throw new RateLimitError('API rate limit exceeded (primary); resets in 10 min', 'primary', NOW + 600_000);
        }),
      ),
    );
    expect(r.status).toBe('fail');
    expect(r.checks.map((c) => [c.name, c.status, c.problem])).toEqual([
      ['credential', 'ok', undefined],
      ['endpoint', 'ok', undefined],
      ['rate-limit', 'fail', 'rate-limited'],
    ]);
    expect(r.checks[2]!.summary).toBe('API rate limit exceeded (primary); resets in 10 min');
  });
});

describe('diagnose and the store', () => {
  it('a keychain whose native binding cannot load is no usable keychain: a warning (the file takes new credentials), a failure when required', () => {
    const broken = keychainCheck({ kind: 'keychain', path: '/x/credentials.json', bindingProblem: 'keyring.node: invalid ELF header' });
    expect(broken).toMatchObject({ status: 'warn', problem: 'keychain-binding' });
    expect(broken.summary).toBe(
      'the OS keychain (Secret Service) answers, but its native binding cannot be loaded (keyring.node: invalid ELF header): what it holds is read, new credentials go to a plain file (/x/credentials.json, mode 0600)',
    );
    const required = keychainCheck({ kind: 'keychain', bindingProblem: 'keyring.node: invalid ELF header', required: true });
    expect(required).toMatchObject({ status: 'fail', problem: 'keychain-required', remedy: { kind: 'keychain-required' } });
    expect(required.summary).toMatch(/required, .*binding cannot be loaded .*nothing can be written/);
  });

  it('a required keychain names what requires it, as the caller words it (the variable, or the profile setting), else nothing', () => {
    const summary = (required: boolean | string) => keychainCheck({ kind: 'keychain', bindingProblem: 'bad ELF', required }).summary;
    expect(summary('LANYARD_KEYCHAIN=required')).toMatch(/^the OS keychain is required \(LANYARD_KEYCHAIN=required\), and its native binding/);
    expect(summary('profile "work": keychain required')).toMatch(/^the OS keychain is required \(profile "work": keychain required\), and its native binding/);
    expect(summary(true)).toMatch(/^the OS keychain is required, and its native binding/);
    expect(summary('profile "work": keychain required')).not.toContain('LANYARD_KEYCHAIN');
  });

  it('ok only when nothing failed; a keychain fallback is a warning', async () => {
    const kc = keychainCheck({ kind: 'file', fallbackReason: 'the OS keychain is unavailable (the keychain is locked)', path: '/x/credentials.json' });
    expect(kc).toMatchObject({ status: 'warn', problem: 'keychain-fallback' });
    expect(keychainCheck({ kind: 'keychain' }).status).toBe('ok');
    const ok = await diagnose([target()], kc, deps(http(async () => response(200))));
    expect(ok.ok).toBe(true);
    const echo = target({ service: 'echo', probe: (url) => ({ method: 'POST', url: `${url}/echo` }) });
    const bad = await diagnose([target(), echo], kc, deps(http(async (s) => response(s.url.endsWith('/echo') ? 500 : 200))));
    expect(bad.ok).toBe(false);
    expect(bad.services.map((s) => s.status)).toEqual(['ok', 'fail']);
    const failing = await diagnose([target()], kc, deps(http(async () => response(401))));
    expect(failing.ok).toBe(false);
  });

  it('credential origins', () => {
    expect(credentialOrigin('store', 'keychain')).toEqual({ from: 'keychain', source: 'store' });
    expect(credentialOrigin('anonymous').from).toBe('none');
    expect(credentialOrigin('file').from).toBe('file');
  });
});
