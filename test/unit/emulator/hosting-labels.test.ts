/**
 * The hosting emulator's labels over REST, through Octokit (an independent
 * client) where a client is involved and raw requests for the bodies the
 * published description allows: an issue's labels as an object with `labels`
 * (names or `{name}`), the array itself or one name; a repository's label
 * renamed, recoloured, redescribed and deleted (gone from its issues); the
 * scope and triage checks of those writes; issue, comment and reaction
 * numbers that are plain integers only; the methods a path serves (`Allow`
 * on a 405; the REST API answers an unserved method 404, as the service
 * does); and the `status` of the REST error bodies.
 */
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../../e2e/in-process-emulator.js';
import { hostingOctokit } from './hosting-octokit.js';
import { SEED } from '../../../src/emulator/services/hosting/state.js';

const ref = useInProcessEmulator({ port: 0 });
const owner = 'mona';
const repo = 'hello-world';
const { rest, tokenWith } = hostingOctokit(ref);

/** A raw request to the REST API (body sent as given when a string, else as JSON). */
async function call(method: string, path: string, body?: unknown, token: string = SEED.personalToken) {
  const res = await fetch(`${ref.emu.urls.hosting.api}${path}`, {
    method,
    headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const newIssue = async () => (await rest().rest.issues.create({ owner, repo, title: 'labels' })).data.number;
const names = (labels: Array<{ name: string }>) => labels.map((l) => l.name);

describe("an issue's labels", () => {
  it('POST and PUT take an object with labels (names or {name}), the array itself, or (PUT) one name; DELETE clears with 204', async () => {
    const n = await newIssue();
    const path = `/repos/${owner}/${repo}/issues/${n}/labels`;
    expect(await call('POST', path, ['bug'])).toMatchObject({ status: 200, body: [{ name: 'bug' }] });
    expect(names((await call('POST', path, [{ name: 'question' }, 'brand new'])).body)).toEqual(['bug', 'question', 'brand new']);
    expect(names((await call('POST', path, { labels: [{ name: 'wontfix' }] })).body)).toEqual(['bug', 'question', 'brand new', 'wontfix']);
    expect(names((await call('PUT', path, ['enhancement', 'BUG'])).body)).toEqual(['enhancement', 'bug']);
    expect(names((await call('PUT', path, { labels: [{ name: 'question' }] })).body)).toEqual(['question']);
    expect(names((await call('PUT', path, '"documentation"')).body)).toEqual(['documentation']);
    expect(names((await call('PUT', path, { labels: [] })).body)).toEqual([]);
    // Octokit's own calls.
    await rest().rest.issues.addLabels({ owner, repo, issue_number: n, labels: ['bug', 'question'] });
    expect(names((await rest().rest.issues.setLabels({ owner, repo, issue_number: n, labels: ['wontfix'] })).data)).toEqual(['wontfix']);
    expect((await rest().rest.issues.removeAllLabels({ owner, repo, issue_number: n })).status).toBe(204);
    expect((await rest().rest.issues.get({ owner, repo, issue_number: n })).data.labels).toEqual([]);
  });

  it('a body that is not JSON is a 400, JSON of another shape a 422; neither changes the labels', async () => {
    const n = await newIssue();
    const path = `/repos/${owner}/${repo}/issues/${n}/labels`;
    await call('PUT', path, ['bug']);
    expect(await call('POST', path, '["bug"')).toMatchObject({ status: 400, body: { message: 'Problems parsing JSON', status: '400' } });
    const invalid = (message: string) => ({ status: 422, body: { message: `Invalid request.\n\n${message}`, status: '422' } });
    expect(await call('POST', path, '5')).toMatchObject(invalid("For 'properties/labels', 5 is not an array."));
    expect(await call('PUT', path, { labels: { name: 'x' } })).toMatchObject(invalid(`For 'properties/labels', {"name" => "x"} is not an array.`));
    expect(names((await call('GET', path)).body)).toEqual(['bug']);
  });

  it('adding an empty list is refused (the description’s minItems 1); setting one clears them; a blank name is an invalid Label name', async () => {
    const n = await newIssue();
    const path = `/repos/${owner}/${repo}/issues/${n}/labels`;
    await call('PUT', path, ['bug']);
    const tooFew = { status: 422, body: { message: 'Invalid request.\n\n1 item required; only 0 were supplied.', status: '422' } };
    expect(await call('POST', path, { labels: [] })).toMatchObject(tooFew);
    expect(await call('POST', path, [])).toMatchObject(tooFew);
    await expect(rest().rest.issues.addLabels({ owner, repo, issue_number: n, labels: [] })).rejects.toMatchObject({ status: 422 });
    for (const body of [{ labels: [''] }, ['bug', { name: '  ' }]]) {
      const blank = await call('POST', path, body);
      expect(blank).toMatchObject({ status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Label', field: 'name', code: 'invalid' }] } });
      expect((await call('PUT', path, body)).status).toBe(422);
    }
    expect(names((await call('GET', path)).body)).toEqual(['bug']);
    expect(await call('PUT', path, { labels: [] })).toMatchObject({ status: 200, body: [] });
  });
});

describe("a repository's labels: update and delete", () => {
  it('PATCH renames (new_name), recolours and redescribes; the old name is gone, a name taken by another label is a 422', async () => {
    const o = rest();
    await o.rest.issues.createLabel({ owner, repo, name: 'x y', color: 'ff0000' });
    const updated = await o.rest.issues.updateLabel({ owner, repo, name: 'x y', new_name: 'z', color: '00FF00', description: 'Zed' });
    expect(updated.status).toBe(200);
    expect(updated.data).toMatchObject({ name: 'z', color: '00ff00', description: 'Zed', default: false });
    expect(updated.data.url).toMatch(/\/labels\/z$/);
    expect((await o.rest.issues.getLabel({ owner, repo, name: 'z' })).data.id).toBe(updated.data.id);
    expect((await call('GET', `/repos/${owner}/${repo}/labels/x%20y`)).status).toBe(404);
    // Only the case changes: the same label, allowed.
    expect((await o.rest.issues.updateLabel({ owner, repo, name: 'z', new_name: 'Z' })).data.name).toBe('Z');
    const taken = await call('PATCH', `/repos/${owner}/${repo}/labels/Z`, { new_name: 'BUG' });
    expect(taken).toMatchObject({
      status: 422,
      body: { message: 'Validation Failed', errors: [{ resource: 'Label', field: 'name', code: 'already_exists' }], status: '422' },
    });
    expect((await call('PATCH', `/repos/${owner}/${repo}/labels/Z`, { color: 'red' })).status).toBe(422);
    // The same colour rule on create (it was silently replaced by ededed); no colour at all is ededed.
    expect((await call('POST', `/repos/${owner}/${repo}/labels`, { name: 'c', color: 'zzz' })).body).toMatchObject({
      errors: [{ field: 'color', code: 'invalid' }],
    });
    expect((await call('POST', `/repos/${owner}/${repo}/labels`, { name: 'c' })).body.color).toBe('ededed');
    expect((await call('PATCH', `/repos/${owner}/${repo}/labels/Z`, { description: 'd'.repeat(101) })).status).toBe(422);
    expect((await call('PATCH', `/repos/${owner}/${repo}/labels/nope`, { color: '000000' })).status).toBe(404);
  });

  it('DELETE answers 204 and takes the label off every issue; the name is free again', async () => {
    const o = rest();
    const n = await newIssue();
    await o.rest.issues.addLabels({ owner, repo, issue_number: n, labels: ['bug', 'question'] });
    expect((await o.rest.issues.deleteLabel({ owner, repo, name: 'bug' })).status).toBe(204);
    expect(names((await o.rest.issues.get({ owner, repo, issue_number: n })).data.labels as Array<{ name: string }>)).toEqual(['question']);
    expect(names((await o.rest.issues.listLabelsOnIssue({ owner, repo, issue_number: n })).data)).toEqual(['question']);
    expect(names((await o.rest.issues.listLabelsForRepo({ owner, repo, per_page: 100 })).data)).not.toContain('bug');
    expect((await call('DELETE', `/repos/${owner}/${repo}/labels/bug`)).status).toBe(404);
    expect((await o.rest.issues.listForRepo({ owner, repo, labels: 'bug' })).data).toEqual([]);
    expect((await o.rest.issues.createLabel({ owner, repo, name: 'bug' })).status).toBe(201);
  });

  it('the writes need a write scope (else 404, as the other label writes) and a caller who triages the repository (else 403)', async () => {
    const noScope = await tokenWith('mona', []);
    expect((await call('PATCH', `/repos/${owner}/${repo}/labels/bug`, { color: '000000' }, noScope)).status).toBe(404);
    expect((await call('DELETE', `/repos/${owner}/${repo}/labels/bug`, undefined, noScope)).status).toBe(404);
    const publicRepo = await tokenWith('mona', ['public_repo']);
    const ok = await call('PATCH', `/repos/${owner}/${repo}/labels/bug`, { color: '000000' }, publicRepo);
    expect([ok.status, ok.headers.get('x-accepted-oauth-scopes')]).toEqual([200, 'public_repo, repo']);
    const hubot = await tokenWith('hubot', ['repo']);
    expect((await call('PATCH', `/repos/${owner}/${repo}/labels/bug`, { color: '111111' }, hubot)).status).toBe(403);
    expect((await call('DELETE', `/repos/${owner}/${repo}/labels/bug`, undefined, hubot)).status).toBe(403);
    expect((await call('GET', `/repos/${owner}/${repo}/labels/bug`)).body.color).toBe('000000');
  });
});

describe('numbers in paths', () => {
  it('only a plain integer names an issue, a comment or a reaction', async () => {
    const o = rest();
    const n = await newIssue();
    const comment = (await o.rest.issues.createComment({ owner, repo, issue_number: n, body: 'c' })).data.id;
    const reaction = (await o.rest.reactions.createForIssue({ owner, repo, issue_number: n, content: 'heart' })).data.id;
    const base = `/repos/${owner}/${repo}/issues`;
    expect((await call('GET', `${base}/${n}`)).status).toBe(200);
    for (const s of [`${n}.0`, `0x${n.toString(16)}`, `${n}e0`, `0${n}`, `+${n}`, `${n}%20`, '9'.repeat(30)]) {
      expect((await call('GET', `${base}/${s}`)).status, s).toBe(404);
      expect((await call('GET', `${base}/${s}/labels`)).status, s).toBe(404);
      expect((await call('GET', `${base}/${s}/comments`)).status, s).toBe(404);
    }
    expect((await call('GET', `${base}/comments/${comment}`)).status).toBe(200);
    expect((await call('GET', `${base}/comments/${comment}.0`)).status).toBe(404);
    expect((await call('GET', `${base}/comments/${comment}e0/reactions`)).status).toBe(404);
    expect((await call('DELETE', `${base}/${n}/reactions/${reaction}.0`)).status).toBe(404);
    expect((await call('DELETE', `${base}/${n}/reactions/${reaction}`)).status).toBe(204);
  });
});

describe('methods a path does not serve, and error bodies', () => {
  it('the REST API answers an unserved method 404 Not Found in its shape; other paths 405 with Allow', async () => {
    const put = await call('PUT', `/repos/${owner}/${repo}/labels/bug`, { color: '000000' });
    expect([put.status, put.headers.get('allow'), put.body]).toEqual([
      404,
      null,
      { message: 'Not Found', documentation_url: expect.any(String), status: '404' },
    ]);
    // A pre-flight is not served: 405, with what the path does serve.
    const pre = await fetch(`${ref.emu.urls.hosting.api}/repos/${owner}/${repo}/labels/bug`, { method: 'OPTIONS' });
    expect(pre.status).toBe(405);
    expect(pre.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    const token = await fetch(`${ref.emu.urls.hosting.web}/login/oauth/access_token`, { method: 'GET' });
    expect(token.status).toBe(405);
    expect(token.headers.get('allow')?.split(', ')).toContain('POST');
    expect(token.headers.get('allow')?.split(', ')).not.toContain('GET');
  });

  it('REST errors carry status (a string), as the published basic-error and the service have it', async () => {
    expect((await call('GET', '/no/such/route')).body).toEqual({ message: 'Not Found', documentation_url: 'https://docs.example.com/rest', status: '404' });
    expect((await call('GET', '/user', undefined, 'lyp_not_a_token')).body).toMatchObject({ message: 'Bad credentials', status: '401' });
    expect((await call('GET', `/repos/${owner}/nope`)).body).toMatchObject({ message: 'Not Found', status: '404' });
    expect((await call('POST', `/repos/${owner}/${repo}/issues`, { title: '' })).body).toMatchObject({ message: 'Validation Failed', status: '422' });
    expect((await call('POST', `/repos/${owner}/${repo}/issues`, '{')).body).toMatchObject({ message: 'Problems parsing JSON', status: '400' });
    // JSON that is not an object: the service's schema validator's 422, the value written as it (Ruby) writes it.
    const notObject = (shown: string) => ({ message: `Invalid request.\n\nFor 'links/0/schema', ${shown} is not an object.`, status: '422' });
    for (const [body, shown] of [
      ['123', '123'],
      ['"title"', '"title"'],
      ['null', 'nil'],
      ['[1, "a", null, {"b": true}]', '[1, "a", nil, {"b" => true}]'],
    ])
      expect(await call('POST', `/repos/${owner}/${repo}/issues`, body)).toMatchObject({ status: 422, body: notObject(shown!) });
    expect((await call('POST', '/user/repos', '[]')).body).toEqual({ ...notObject('[]'), documentation_url: 'https://docs.example.com/rest' });
    const hubot = await tokenWith('hubot', ['repo']);
    expect((await call('POST', `/repos/${owner}/${repo}/labels`, { name: 'x' }, hubot)).body).toMatchObject({ status: '403' });
    expect((await call('GET', '/search/repositories')).body).toMatchObject({ message: 'Validation Failed', status: '422' });
  });
});
