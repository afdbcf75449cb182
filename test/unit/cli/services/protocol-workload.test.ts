/**
 * The CLI's side of workload identity renewals: the sign-in records where
 * the JWT came from (an absolute file path, or the variable's name), and a
 * renewal reads it again there — a rotated file's new JWT; a file gone, an
 * unset variable or a non-JWT is one line and exit 4.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor, formatError } from '../../../../src/cli/errors/exit.js';
import { protocolAuthExtras, protocolDeps } from '../../../../src/cli/services/protocol/wiring.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { FakeClock } from '../../../fakes/clock.js';
import { contextOnFakes } from '../../../fakes/context.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { createTestIO } from '../../../fakes/io.js';

const JWT_1 = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJqb2IifQ.sig-1';
const JWT_2 = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJqb2IifQ.sig-2';

let dir: string;
let http: HttpClient;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-workload-'));
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
});
afterEach(async () => {
  await http.close();
  await rm(dir, { recursive: true, force: true });
});

const deps = (env: Record<string, string> = {}) =>
  protocolDeps(contextOnFakes(createTestIO(), { LANYARD_CONFIG_DIR: dir, ...env }, { http, credentials: new MemoryCredentialStore() }));

describe('workload identity token sources', () => {
  it('a sign-in records the absolute path of --workload-token-file, or the name of LANYARD_WORKLOAD_TOKEN', async () => {
    const file = join(dir, 'token');
    await writeFile(file, `${JWT_1}\n`);
    const fromFile = await protocolAuthExtras({ clientId: 'c', workloadTokenFile: relative(process.cwd(), file) });
    expect(fromFile).toMatchObject({ workloadToken: JWT_1, workloadTokenFrom: { file } });
    const fromEnv = await protocolAuthExtras({ clientId: 'c' }, { LANYARD_WORKLOAD_TOKEN: JWT_2 });
    expect(fromEnv).toMatchObject({ workloadToken: JWT_2, workloadTokenFrom: { env: 'LANYARD_WORKLOAD_TOKEN' } });
  });

  it('a renewal reads the file again (rotated) or the variable as it is now', async () => {
    const file = join(dir, 'token');
    await writeFile(file, JWT_1);
    const d = await deps({ LANYARD_WORKLOAD_TOKEN: JWT_2 });
    expect(await d.workloadToken!({ file })).toBe(JWT_1);
    await writeFile(file, `${JWT_2}\n`);
    expect(await d.workloadToken!({ file })).toBe(JWT_2);
    expect(await d.workloadToken!({ env: 'LANYARD_WORKLOAD_TOKEN' })).toBe(JWT_2);
  });

  it('a file gone, an unset variable, something else than a JWT: one line each, exit 4', async () => {
    const d = await deps();
    const file = join(dir, 'gone');
    const failures = [
      await d.workloadToken!({ file }).catch((e: unknown) => e),
      await d.workloadToken!({ env: 'LANYARD_WORKLOAD_TOKEN' }).catch((e: unknown) => e),
      await writeFile(file, 'not a jwt').then(() => d.workloadToken!({ file }).catch((e: unknown) => e)),
    ];
    expect(failures.map((e) => formatError(e, false))).toEqual([
      `cannot renew the protocol access token: the workload identity token file ${file}, where the sign-in read it, cannot be read (ENOENT)`,
      'cannot renew the protocol access token: LANYARD_WORKLOAD_TOKEN, where the sign-in read the workload identity token, is not set',
      `cannot renew the protocol access token: the workload identity token in ${file} is not a JWT (header.payload.signature)`,
    ]);
    expect(failures.map(exitCodeFor)).toEqual([4, 4, 4]);
  });
});
