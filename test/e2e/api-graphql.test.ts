/**
 * `lanyard api graphql` against the emulator, as with gh: the path names
 * the query API beside the REST base (`/api/graphql` next to `/api/v3`),
 * fields other than `query` and `operationName` are variables, a full URL
 * of the query API gets the hosting credential, and a mutation is paced as
 * a content-creating request (one admission in the pacing file, a wait when
 * the minute is used) while a query is not.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { credentialIdentity, pacingKey } from '../../src/core/http/pacing.js';
import { eventLines } from './harness.js';
import { useEmulatorWorld } from './emulator-world.js';

const ref = useEmulatorWorld();

describe('lanyard api graphql', () => {
  const pacing = () => join(ref.world.configDir, 'pacing.json');
  beforeEach(() => writeFile(pacing(), JSON.stringify({ version: 1, admitted: {} })));
  const token = async () => ((await ref.world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
  const api = async (...args: string[]) => ref.run(['api', ...args], { CI: 'true', LANYARD_TOKEN: await token() });
  /** The file's record of the token's admissions (the origin and the credential's digest). */
  const key = async () => pacingKey({ origin: ref.world.url, identity: await credentialIdentity(ref.world.url, `Bearer ${await token()}`) });
  const admitted = async () => ((JSON.parse(await readFile(pacing(), 'utf8')) as { admitted: Record<string, number[]> }).admitted[await key()] ?? []).length;
  const REPO_ID = 'query=query($o: String!, $n: String!) { repository(owner: $o, name: $n) { id } }';

  it('queries the query API with fields as variables (gh’s convention), unpaced; the full URL gets the credential too', async () => {
    const r = await api('graphql', '-f', REPO_ID, '-f', 'o=mona', '-f', 'n=hello-world', '--jq', '.data.repository.id');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(eventLines(r.stderr)).toEqual([]);
    const full = await api(`${ref.world.url}/api/graphql`, '-f', 'query={ viewer { login } }');
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toEqual({ data: { viewer: { login: 'mona' } } });
    expect(await admitted()).toBe(0);
  });

  it('a mutation is content-creating: admitted once, REST lists what it made, and it waits when the minute is used', async () => {
    const repo = (await api('graphql', '-f', REPO_ID, '-f', 'o=mona', '-f', 'n=hello-world', '--jq', '.data.repository.id')).stdout.trim();
    const create = (title: string) =>
      api(
        'graphql',
        '-f',
        'query=mutation($r: ID!, $t: String!) { createIssue(input: {repositoryId: $r, title: $t}) { issue { number } } }',
        '-f',
        `r=${repo}`,
        '-f',
        `t=${title}`,
      );
    const first = await create('Made by lanyard');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ data: { createIssue: { issue: { number: 1 } } } });
    expect(await admitted()).toBe(1);
    const listed = await api('/repos/mona/hello-world/issues', '--jq', '[.[].title]');
    expect(JSON.parse(listed.stdout)).toEqual(['Made by lanyard']);
    // 80 admissions by other processes, the oldest 59 s ago: the mutation waits about a second; a query does not.
    const now = Date.now();
    await writeFile(pacing(), JSON.stringify({ version: 1, admitted: { [await key()]: Array.from({ length: 80 }, (_, i) => now - 59_000 + i * 10) } }));
    const query = await api('graphql', '-f', 'query={ viewer { login } }');
    expect(eventLines(query.stderr)).toEqual([]);
    const paced = await create('After a wait');
    expect(paced.code, paced.stderr).toBe(0);
    const [e, ...more] = eventLines(paced.stderr);
    expect(more).toEqual([]);
    expect(e).toMatchObject({ event: 'pacing_wait', url: `${ref.world.url}/api/graphql` });
    expect(e!.wait_ms as number).toBeGreaterThan(0);
    expect(JSON.parse(paced.stdout)).toEqual({ data: { createIssue: { issue: { number: 2 } } } });
  });
});
