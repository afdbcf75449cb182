import { describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { FakeClock } from '../../../fakes/clock.js';
import { ValidationError } from '../../../../src/core/errors.js';
import { mintServiceAccountJwt, parseServiceAccountKey, readServiceAccountKeyFile, serviceAccountClaims } from '../../../../src/core/echo/service-account.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const keyFile = (over: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'service_account', client_email: 'sa@proj.iam.example.test', private_key_id: 'kid-1', private_key: rsaPem, ...over });

describe('service-account claims', () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678));

  it('sets iss = sub = the account, email, aud, iat now and exp an hour later', () => {
    const c = serviceAccountClaims({ email: 'sa@x.test', audience: 'echo.example.test', nowMs: clock.now() });
    const iat = Math.floor(clock.now() / 1000);
    expect(c).toEqual({ iss: 'sa@x.test', sub: 'sa@x.test', email: 'sa@x.test', aud: 'echo.example.test', iat, exp: iat + 3600 });
  });

  it('follows the injected clock', () => {
    const before = serviceAccountClaims({ email: 'sa@x.test', audience: 'a', nowMs: clock.now() });
    clock.advance(90_000);
    const after = serviceAccountClaims({ email: 'sa@x.test', audience: 'a', nowMs: clock.now() });
    expect(after.iat - before.iat).toBe(90);
    expect(after.exp - after.iat).toBe(3600);
  });

  it('uses --issuer for iss and sub, keeps email the account', () => {
    const c = serviceAccountClaims({ email: 'sa@x.test', issuer: 'jwt-client.example.test', audience: 'a', nowMs: clock.now() });
    expect([c.iss, c.sub, c.email]).toEqual(['jwt-client.example.test', 'jwt-client.example.test', 'sa@x.test']);
  });

  it('never lets exp pass now + 3600 and refuses bad lifetimes and audiences', () => {
    expect(serviceAccountClaims({ email: 'a@b.c', audience: 'a', nowMs: 0, lifetimeSec: 60 }).exp).toBe(60);
    expect(() => serviceAccountClaims({ email: 'a@b.c', audience: 'a', nowMs: 0, lifetimeSec: 3601 })).toThrow(ValidationError);
    expect(() => serviceAccountClaims({ email: 'a@b.c', audience: 'a', nowMs: 0, lifetimeSec: 0 })).toThrow(/lifetime/);
    expect(() => serviceAccountClaims({ email: 'a@b.c', audience: '  ', nowMs: 0 })).toThrow(/audience/);
  });

  it('signs RS256 with kid = private_key_id, verifiable with the public key', async () => {
    const key = parseServiceAccountKey(keyFile(), 'sa.json');
    const { token, claims } = await mintServiceAccountJwt(key, { audience: 'echo.example.test', nowMs: clock.now() });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'kid-1' });
    const pub = await importSPKI(rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'RS256');
    const { payload } = await jwtVerify(token, pub, { currentDate: new Date(clock.now()), audience: 'echo.example.test' });
    expect(payload).toMatchObject({ iss: 'sa@proj.iam.example.test', sub: 'sa@proj.iam.example.test', email: 'sa@proj.iam.example.test' });
    expect(payload.exp).toBe(claims.exp);
  });
});

describe('service-account key files', () => {
  it('explains each problem in one line', () => {
    expect(() => parseServiceAccountKey('{nope', 'sa.json')).toThrow('sa.json is not a service-account key file (not JSON)');
    expect(() => parseServiceAccountKey(keyFile({ client_email: undefined }), 'sa.json')).toThrow(/has no "client_email"/);
    expect(() => parseServiceAccountKey(keyFile({ private_key_id: '' }), 'sa.json')).toThrow(/has no "private_key_id"/);
    expect(() => parseServiceAccountKey(keyFile({ private_key: 'hello' }), 'sa.json')).toThrow('sa.json: private_key is not a PEM private key');
    expect(() => parseServiceAccountKey(keyFile({ private_key: ecPem }), 'sa.json')).toThrow('sa.json: private_key is an EC key; RS256 needs an RSA key');
    const broken = rsaPem.replace(/\n[A-Za-z0-9+/]{10}/, '\n!!!!!!!!!!');
    expect(() => parseServiceAccountKey(keyFile({ private_key: broken }), 'sa.json')).toThrow(/not a valid PEM private key/);
  });

  it('reads files and reports unreadable ones', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-sa-'));
    await writeFile(join(dir, 'ok.json'), keyFile());
    expect((await readServiceAccountKeyFile(join(dir, 'ok.json'))).privateKeyId).toBe('kid-1');
    await expect(readServiceAccountKeyFile(join(dir, 'missing.json'))).rejects.toThrow(`cannot read the key file ${join(dir, 'missing.json')}: no such file`);
    await expect(readServiceAccountKeyFile(dir)).rejects.toThrow(/is a directory/);
    // A device is refused before it is read (a cap of 64 KiB for what is read at all).
    await expect(readServiceAccountKeyFile('/dev/zero')).rejects.toThrow('cannot read the key file /dev/zero: is a device, not a file');
  });
});
