/** The emulator's self-signed certificate kept in its data directory (`emulator start --tls`). */
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataDirCertificate } from '../../../src/emulator/tls.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-25T12:00:00Z');
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-tls-unit-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('dataDirCertificate', () => {
  it('makes a certificate for the host, 127.0.0.1, ::1 and localhost: the certificate 0644, the key 0600', async () => {
    const c = await dataDirCertificate(dir, '127.0.0.7', T0);
    expect(c.reused).toBe(false);
    expect(c.caFile).toBe(join(dir, 'emulator-ca.pem'));
    expect(await readFile(c.caFile, 'utf8')).toBe(c.cert);
    expect((await stat(c.caFile)).mode & 0o777).toBe(0o644);
    expect((await stat(join(dir, 'emulator-tls-key.pem'))).mode & 0o777).toBe(0o600);
    const x = new X509Certificate(c.cert);
    for (const ip of ['127.0.0.7', '127.0.0.1', '::1']) expect(x.checkIP(ip)).toBe(ip);
    expect(x.checkHost('localhost')).toBe('localhost');
    expect(x.checkIP('127.0.0.8')).toBeUndefined();
    expect(x.ca).toBe(true);
  });

  it('keeps it across starts while it is valid for another day and covers the host', async () => {
    const first = await dataDirCertificate(dir, '127.0.0.1', T0);
    const again = await dataDirCertificate(dir, '127.0.0.1', T0 + 28 * DAY);
    expect(again).toMatchObject({ reused: true, cert: first.cert, key: first.key });
    // 30 days of validity: within the last day it is made again.
    const renewed = await dataDirCertificate(dir, '127.0.0.1', T0 + 29.5 * DAY);
    expect(renewed.reused).toBe(false);
    expect(renewed.cert).not.toBe(first.cert);
    expect(await readFile(renewed.caFile, 'utf8')).toBe(renewed.cert);
  });

  it('covers the name it is reached by (--public-host) too; a kept certificate without that name is made again, then kept', async () => {
    const plain = await dataDirCertificate(dir, '127.0.0.1', T0);
    expect(new X509Certificate(plain.cert).checkHost('emu.corp.test')).toBeUndefined();
    const named = await dataDirCertificate(dir, ['127.0.0.1', 'Emu.Corp.Test'], T0);
    expect(named.reused).toBe(false);
    const x = new X509Certificate(named.cert);
    expect(x.checkHost('emu.corp.test')).toBe('emu.corp.test');
    expect(x.checkHost('localhost')).toBe('localhost');
    for (const ip of ['127.0.0.1', '::1']) expect(x.checkIP(ip)).toBe(ip);
    expect(x.subjectAltName).toBe('IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:emu.corp.test, DNS:localhost');
    expect((await dataDirCertificate(dir, ['127.0.0.1', 'emu.corp.test'], T0)).reused).toBe(true);
    // Without the name again: the kept one still covers what is asked.
    expect((await dataDirCertificate(dir, '127.0.0.1', T0)).reused).toBe(true);
    expect((await dataDirCertificate(dir, ['127.0.0.1', 'other.corp.test'], T0)).reused).toBe(false);
  });

  it('makes a new one for another host, a key that does not match, or unreadable files', async () => {
    const first = await dataDirCertificate(dir, '127.0.0.1', T0);
    const other = await dataDirCertificate(dir, '127.0.0.9', T0);
    expect(other.reused).toBe(false);
    expect(new X509Certificate(other.cert).checkIP('127.0.0.9')).toBe('127.0.0.9');

    await writeFile(join(dir, 'emulator-tls-key.pem'), first.key); // the previous certificate's key
    expect((await dataDirCertificate(dir, '127.0.0.9', T0)).reused).toBe(false);

    await writeFile(join(dir, 'emulator-ca.pem'), 'not a certificate');
    const fresh = await dataDirCertificate(dir, '127.0.0.9', T0);
    expect(fresh.reused).toBe(false);
    expect((await dataDirCertificate(dir, '127.0.0.9', T0)).reused).toBe(true);
  });
});
