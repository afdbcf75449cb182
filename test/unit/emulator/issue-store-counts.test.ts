/** The issue store's per-repository counts (a repository's `open_issues_count` and stars), kept as issues open and close. */
import { describe, expect, it } from 'vitest';
import { IssueStore } from '../../../src/emulator/services/hosting/issues/store.js';

describe('IssueStore counts', () => {
  it('open issues follow creation, closing (with any reason), reopening and no-op changes; stars follow star/unstar', () => {
    const store = new IssueStore(() => 1_000);
    const scan = (repo: string) => store.issuesOf(repo).filter((i) => i.state === 'open').length;
    const made = Array.from({ length: 5 }, (_, k) => store.createIssue('a/b', 'mona', { title: `t${k}`, body: null }));
    store.createIssue('a/c', 'mona', { title: 'other', body: null });
    expect([store.openIssues('a/b'), store.openIssues('a/c'), store.openIssues('x/y')]).toEqual([5, 1, 0]);
    store.setState(made[0]!, 'closed', 'mona');
    store.setState(made[0]!, 'closed', 'mona', 'not_planned'); // a new reason, still closed: no change of count
    store.setState(made[1]!, 'closed', 'mona', 'duplicate');
    store.setState(made[2]!, 'open', 'mona'); // already open
    expect(store.openIssues('a/b')).toBe(3);
    store.setState(made[1]!, 'open', 'mona');
    expect([store.openIssues('a/b'), scan('a/b'), store.openIssues('a/c')]).toEqual([4, 4, 1]);
    store.star('mona', 'a/b');
    store.star('hubot', 'a/b');
    store.star('mona', 'a/b');
    store.unstar('hubot', 'a/b');
    expect([store.stargazerCount('a/b'), store.stargazersOf('a/b').length, store.stargazerCount('a/c')]).toEqual([1, 1, 0]);
    store.reset();
    expect(store.openIssues('a/b')).toBe(0);
  });
});
