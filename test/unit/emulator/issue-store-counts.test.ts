/** The issue store's kept counts (a repository's `open_issues_count`, stars, a milestone's open and closed issues), kept as issues open, close and move. */
import { describe, expect, it } from 'vitest';
import type { MilestoneRecord } from '../../../src/emulator/services/hosting/issues/milestone-store.js';
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

  it("a milestone's open/closed counts follow create, close, reopen, moving between milestones, clearing, and deleting a milestone", () => {
    const store = new IssueStore(() => 1_000);
    const [v1, v2] = ['v1', 'v2'].map((title) => store.milestones.create('a/b', 'mona', { title })) as [MilestoneRecord, MilestoneRecord];
    const counts = () => [v1, v2].map((m) => store.milestones.counts(m.id));
    // What a scan of every issue gives: the counts must always equal it.
    const scan = (m: MilestoneRecord) => {
      const of = store.issuesOf(m.repo).filter((i) => i.milestone === m.id);
      return { open: of.filter((i) => i.state === 'open').length, closed: of.filter((i) => i.state === 'closed').length };
    };
    const check = (want: Array<[number, number]>) => {
      expect(counts()).toEqual(want.map(([open, closed]) => ({ open, closed })));
      expect(counts()).toEqual([scan(v1), scan(v2)]);
    };
    const [a, b, c] = [v1.id, v1.id, null].map((milestone, k) => store.createIssue('a/b', 'mona', { title: `t${k}`, body: null, milestone }));
    store.createIssue('a/c', 'mona', { title: 'elsewhere', body: null });
    check([
      [2, 0],
      [0, 0],
    ]);
    store.setState(a!, 'closed', 'mona');
    store.setState(a!, 'closed', 'mona', 'not_planned'); // still closed
    store.setState(b!, 'open', 'mona'); // already open
    check([
      [1, 1],
      [0, 0],
    ]);
    store.edit(a!, 'mona', { milestone: v2.id }); // a closed issue moves
    store.edit(c!, 'mona', { milestone: v2.id }); // an open one joins
    store.edit(b!, 'mona', { milestone: v1.id }); // unchanged
    store.edit(b!, 'mona', { title: 'renamed' }); // milestone not given
    check([
      [1, 0],
      [1, 1],
    ]);
    store.setState(a!, 'open', 'mona');
    store.setState(b!, 'closed', 'mona', 'duplicate');
    check([
      [0, 1],
      [2, 0],
    ]);
    store.edit(c!, 'mona', { milestone: null });
    check([
      [0, 1],
      [1, 0],
    ]);
    store.deleteMilestone(v2.id);
    expect([a!.milestone, store.milestones.counts(v2.id)]).toEqual([null, { open: 0, closed: 0 }]);
    store.edit(a!, 'mona', { milestone: v1.id }); // onto the one left
    store.setState(c!, 'closed', 'mona'); // in no milestone: counts nothing
    check([
      [1, 1],
      [0, 0],
    ]);
    store.reset();
    expect(store.milestones.counts(v1.id)).toEqual({ open: 0, closed: 0 });
  });
});
