/**
 * Clients of the Python ecosystem that no one here wrote, against the
 * emulator over real HTTP (scripts beside this file, run in the virtual
 * environment .ci/run makes; see venv.ts): PyGithub (repositories with their
 * permissions, the query API and its mutations, a conditional read, issue search, labels, lock and assignees, emails, milestones), google-auth with
 * cryptography (the published X.509 certificates, an app platform ID token, service
 * account key files), and the protocol's Python SDK `mcp` (resources and
 * prompts at every revision the emulator speaks, 2026-07-28 included).
 */
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';
import { runPython, withPython } from './venv.js';

const ref = useInProcessEmulator();

describe(
  'PyGithub',
  withPython(() => {
    it('repo.permissions.push works (the owner may push, another user may not), a new repository, the list, GraphQL, a 304', { timeout: 90_000 }, async () => {
      const { app } = ref.emu.fixtures.hosting;
      const other = (await ref.emu.admin('hosting', 'issue-token', { login: 'hubot', clientId: app.clientId, scopes: ['repo'] })) as { access_token: string };
      const out = await runPython('github_client.py', {
        api: ref.emu.urls.hosting.api,
        token: ref.emu.fixtures.hosting.personalToken,
        otherToken: other.access_token,
      });
      expect(out).toEqual({
        permissions: { push: true, admin: true, pull: true },
        allow_squash_merge: true,
        delete_branch_on_merge: false,
        login: 'mona',
        created: { full_name: 'mona/from-pygithub', private: true, push: true },
        listed: [
          ['from-pygithub', true],
          ['hello-world', true],
          ['lanyard-notes', true],
        ],
        other: { push: false, pull: true },
        graphql: { data: { rateLimit: { limit: expect.any(Number), remaining: expect.any(Number) }, viewer: { login: 'mona' } } },
        notFound: 404,
        changed: false,
      });
    });
  }),
);

describe(
  'PyGithub and the query API’s mutations',
  withPython(() => {
    it('graphql_named_mutation (createIssue, addComment, addLabelsToLabelable, closeIssue, addReaction) and its REST classes see one store', {
      timeout: 90_000,
    }, async () => {
      const { app } = ref.emu.fixtures.hosting;
      const other = (await ref.emu.admin('hosting', 'issue-token', { login: 'hubot', clientId: app.clientId, scopes: ['repo'] })) as { access_token: string };
      const out = await runPython('github_mutations.py', {
        api: ref.emu.urls.hosting.api,
        token: ref.emu.fixtures.hosting.personalToken,
        otherToken: other.access_token,
      });
      expect(out).toEqual({
        clientMutationId: 'py-1',
        rest: { title: 'From PyGithub', body: 'via GraphQL', node_id_matches: true, state: 'open' },
        comments: ['A comment'],
        after: { labels: ['bug'], state: 'closed', state_reason: 'not_planned' },
        reactions: ['hooray'],
        forbidden: ['FORBIDDEN'],
      });
    });
  }),
);

describe(
  'PyGithub’s search_issues',
  withPython(() => {
    it('finds, counts and pages (GET /search/issues), and a refused query is a GithubException of 422 with the service’s message', {
      timeout: 90_000,
    }, async () => {
      const out = await runPython('github_search.py', { api: ref.emu.urls.hosting.api, token: ref.emu.fixtures.hosting.personalToken });
      expect(out).toEqual({
        total: 3,
        titles: ['Paged crash 1', 'Paged crash 3', 'Paged crash 5'],
        first: { number: 1, state: 'open', user: 'mona', labels: ['bug'], repository: 'mona/hello-world' },
        me: ['Paged crash 1', 'Paged crash 3', 'Paged crash 5'],
        refused: { status: 422, message: 'More than five AND / OR / NOT operators were used.' },
      });
    });
  }),
);

describe(
  'PyGithub and labels',
  withPython(() => {
    it('add_to_labels and set_labels (the array itself as the body), remove_from_labels, delete_labels, Label.edit and Label.delete', {
      timeout: 90_000,
    }, async () => {
      const out = await runPython('github_labels.py', { api: ref.emu.urls.hosting.api, token: ref.emu.fixtures.hosting.personalToken });
      expect(out).toEqual({
        added: ['bug', 'question'],
        set: ['enhancement', 'documentation'],
        removed: ['documentation'],
        cleared: [],
        edited: ['py2', '000000', 'Edited by PyGithub'],
        after_delete: [],
        gone: [404, '404'],
        taken: [422, ['already_exists']],
      });
    });
  }),
);

describe(
  'PyGithub: lock, assignees, emails, a user’s repositories, the profile by scope',
  withPython(() => {
    it('Issue.lock/unlock, get_assignees, has_in_assignees, add_to/remove_from_assignees, get_emails, NamedUser.get_repos, plan', {
      timeout: 90_000,
    }, async () => {
      const { app } = ref.emu.fixtures.hosting;
      const scoped = (await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: app.clientId, scopes: ['user'] })) as { access_token: string };
      const out = await runPython('github_people.py', {
        api: ref.emu.urls.hosting.api,
        token: ref.emu.fixtures.hosting.personalToken,
        userToken: scoped.access_token,
      });
      expect(out).toEqual({
        locked: [true, 'resolved'],
        unlocked: [false, null],
        assignable: expect.arrayContaining(['hubot', 'mona']),
        has_hubot: true,
        has_nobody: false,
        assigned: ['hubot', 'mona'],
        unassigned: ['mona'],
        repos: ['mona/hello-world'],
        plan_without_user_scope: null,
        emails_without_scope: 404,
        emails: [
          ['mona@example.com', true, true, 'public'],
          [expect.stringMatching(/^1\+mona@users\.noreply\./), false, true, null],
        ],
        plan: 'free',
      });
    });
  }),
);

describe(
  'PyGithub and milestones',
  withPython(() => {
    it('create_milestone (a date alone), get_milestones, get_milestone, Milestone.edit and delete, Issue.edit(milestone=…), the issue events', {
      timeout: 90_000,
    }, async () => {
      const out = await runPython('github_milestones.py', { api: ref.emu.urls.hosting.api, token: ref.emu.fixtures.hosting.personalToken });
      expect(out).toEqual({
        created: ['py-1', 'open', 'from PyGithub', '2032-03-04T00:00:00+00:00', 'mona'],
        issue_milestone: 'py-1',
        counts: [0, 1],
        closed: [['py-1.0', 'closed']],
        gone: 404,
        issue_after_delete: null,
        events: [
          ['milestoned', 'mona', 'py-1'],
          ['closed', 'mona', null],
        ],
        latest: ['closed', true],
        one: 'milestoned',
      });
    });
  }),
);

describe(
  'google-auth and cryptography',
  withPython(() => {
    it('load every published certificate, verify an app platform ID token and tokens signed with service account key files', { timeout: 90_000 }, async () => {
      const base = ref.emu.urls.echo.base;
      const owners = ['echo-client@lanyard-client.iam.lanyard.test', 'lanyard-client@appspot.lanyard.test', 'securetoken@system.lanyard.test'];
      const x509 = Object.fromEntries(owners.map((o) => [o, `${base}/service_accounts/v1/metadata/x509/${o}`]));
      const appToken = ((await ref.emu.admin('echo', 'app-token', {})) as { id_token: string }).id_token;
      const keyFiles = {
        serviceAccount: await ref.emu.admin('echo', 'service-account', { scheme: 'service-account' }),
        defaultAccount: await ref.emu.admin('echo', 'service-account', { scheme: 'default-service-account' }),
      };
      const out = await runPython('google_auth_client.py', { x509, appToken, project: 'lanyard-demo', appSigner: owners[2], keyFiles });
      for (const o of owners)
        expect(
          (out.subjects as Record<string, string[]>)[o]!.every((s) => s === `CN=${o}`),
          o,
        ).toBe(true);
      expect(out.app).toMatchObject({ aud: 'lanyard-demo', email: 'ada@lanyard.test' });
      expect(out.accounts).toEqual({ serviceAccount: owners[0], defaultAccount: owners[1] });
    });
  }),
);

describe(
  'the protocol’s Python SDK (mcp)',
  withPython(() => {
    for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']) {
      it(`${revision}: resources (list, read, templates, a subscription and its update) and prompts (list, get with arguments)`, {
        timeout: 90_000,
      }, async () => {
        await ref.emu.admin('protocol', 'configure', { revision, open: true });
        const out = await runPython('mcp_client.py', { url: ref.emu.urls.protocol.server, revision, adminUrl: ref.emu.urls.admin });
        expect(out).toMatchObject({
          version: revision,
          resources: ['emulator://docs/readme', 'emulator://notes/today', 'emulator://images/pixel.png'],
          templates: ['emulator://users/{login}'],
          readme: { mimeType: 'text/markdown', starts: '# The emulated protocol server' },
          user: { login: 'ada', name: 'Ada Lovelace' },
          missing: revision === '2026-07-28' ? -32602 : -32002,
          prompts: [
            ['greeting', ['name', 'style']],
            ['summarize', ['uri']],
          ],
          greeting: 'Please write a formal greeting addressed to Ada.',
          promptError: -32602,
          updates: ['emulator://notes/today'],
          notes: true,
        });
        expect(out.titles).toEqual(revision === '2025-03-26' ? [null, null, null] : ['About this server', 'Today’s notes', 'A pixel']);
        if (revision === '2026-07-28') expect(out.honored).toEqual(['emulator://notes/today']);
      });
    }
  }),
);
