#!/usr/bin/env node
// The emulator's request loop against a bare node:http server (run `npm run bench:emulator`;
// needs a build). `GET /api/v3/rate_limit` with the emulator's default token, the secondary
// limits raised so that every limit is enforced and nothing is refused, the Host/Origin guard
// on and the journal recording (the emulator as `lanyard emulator start` runs it), loaded by
// autocannon with 10 connections. Beside it, in the same run, a bare node:http server answers
// every request with the same status, headers and body the emulator sent. Each server runs in
// its own process; rounds alternate between them, so a machine that slows down slows both.
// Prints each server's requests/s (median of the rounds), the median of the paired ratios
// (emulator ÷ bare server of the same round), p99 latency (median of the rounds), the server
// process's CPU time per request (user + system; steadier than rates on a busy machine) and RSS.
//
// Options:
//   --rounds N        rounds per server (default 5)
//   --duration S      seconds per round (default 5)
//   --connections N   default 10
//   --million         also the memory figure: the emulator's RSS after 10,000 requests and
//                     after 1,000,000 (autocannon by amount; takes minutes)
//   --requests N      with --million: the large count (default 1000000)
//   --dist DIR        the build to measure (default ./dist)
//   --also DIR        a second build measured in the same rounds (e.g. an earlier one)
//   --cpu-prof DIR    run the emulator(s) under `node --cpu-prof`, profiles written to DIR
//   --tool wrk        load with Debian's wrk (one thread) instead of autocannon for the timed
//                     rounds (the memory run always counts requests with autocannon)
//   --graphql         load the query API instead: `POST /api/graphql` with a query of the
//                     viewer and one repository (valid on older builds too); every round sends
//                     GRAPHQL_AMOUNT requests (the primary budget of 5,000 points an hour is
//                     put back before each round, so no answer is a refusal) and compares by
//                     CPU time per request and the rate of that round
//   --gh-issue-view   like --graphql, with the query gh 2.23's `gh issue view 1` sends (the
//                     issue's fields, its comments and reaction groups, spread on Issue and
//                     PullRequest) against an issue with one comment made on each emulator
//                     before the rounds (builds before the query API served gh's issue
//                     commands refuse it: compare such builds with --graphql)
//   --issues-page N   load `GET /api/v3/repos/mona/hello-world/issues?per_page=100&milestone=1`
//                     instead, after opening N issues on each emulator, half of them in one
//                     milestone (a page of 100 issues that each show their milestone and its
//                     counts); every round sends ISSUES_AMOUNT requests, the core budget put
//                     back before each round
//   --json            machine-readable results on stdout
import { fork, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const ROUNDS = Number(opt('rounds', 5));
const DURATION = Number(opt('duration', 5));
const CONNECTIONS = Number(opt('connections', 10));
const LARGE = Number(opt('requests', 1_000_000));
const PROF = opt('cpu-prof', undefined);
const TOOL = opt('tool', 'autocannon');
const GH_VIEW = flag('gh-issue-view');
const GRAPHQL = flag('graphql') || GH_VIEW;
const GRAPHQL_AMOUNT = 2000;
const ISSUES = Number(opt('issues-page', 0));
const ISSUES_AMOUNT = 500;
/** Rounds of a fixed number of requests (each refilling a budget first) rather than of a duration. */
const AMOUNT = GRAPHQL ? GRAPHQL_AMOUNT : ISSUES ? ISSUES_AMOUNT : 0;
/** gh 2.23's `issue view` selection, spread on Issue and on PullRequest as gh sends it. */
const GH_VIEW_FIELDS =
  'number,url,state,createdAt,title,body,author{login,...on User{id,name}},milestone{number,title,description,dueOn},assignees(first:100){nodes{id,login,name},totalCount},labels(first:100){nodes{id,name,description,color},totalCount},projectCards(first:100){nodes{project{name}column{name}},totalCount},reactionGroups{content,users{totalCount}},comments(first: 100) {nodes {id,author{login,...on User{id,name}},authorAssociation,body,createdAt,includesCreatedEdit,isMinimized,minimizedReason,reactionGroups{content,users{totalCount}},url,viewerDidAuthor},pageInfo{hasNextPage,endCursor},totalCount},id';
const GRAPHQL_BODY = JSON.stringify(
  GH_VIEW
    ? {
        query: `query IssueByNumber($owner: String!, $repo: String!, $number: Int!) { repository(owner: $owner, name: $repo) { hasIssuesEnabled issue: issueOrPullRequest(number: $number) { __typename ...on Issue{${GH_VIEW_FIELDS.replace('reactionGroups{content,users{totalCount}},comments', 'reactionGroups{content,users{totalCount}},stateReason,comments')}} ...on PullRequest{${GH_VIEW_FIELDS}} } } }`,
        variables: { owner: 'mona', repo: 'hello-world', number: 1 },
      }
    : {
        query:
          'query($o: String!, $n: String!) { viewer { login name } repository(owner: $o, name: $n) { id nameWithOwner isPrivate stargazerCount owner { login } } }',
        variables: { o: 'mona', n: 'hello-world' },
      },
);
const builds = [resolve(opt('dist', join(root, 'dist'))), ...(opt('also') ? [resolve(opt('also'))] : [])];
if (PROF) mkdirSync(PROF, { recursive: true });

async function child() {
  const kind = opt('child');
  let url;
  let answer;
  if (kind === 'emulator') {
    const { startEmulator } = await import(join(opt('child-dist'), 'lib', 'emulator.js'));
    const emu = await startEmulator();
    url = emu.url;
    process.on('SIGTERM', () => emu.stop().then(() => process.exit(0)));
  } else {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
    server.keepAliveTimeout = 5000;
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${server.address().port}`;
    process.on('SIGTERM', () => process.exit(0));
  }
  process.on('message', (m) => {
    if (m.answer) answer = m.answer;
    if (m.rss) process.send({ rss: process.memoryUsage().rss });
    if (m.cpu) {
      const u = process.cpuUsage();
      process.send({ cpuUs: u.user + u.system });
    }
  });
  process.send({ url });
}

function start(kind, dist) {
  const execArgv = PROF && kind === 'emulator' ? ['--cpu-prof', `--cpu-prof-dir=${PROF}`] : [];
  const p = fork(fileURLToPath(import.meta.url), ['--child', kind, ...(dist ? ['--child-dist', dist] : [])], { execArgv, stdio: 'inherit' });
  return new Promise((resolveStart, reject) => {
    p.once('error', reject);
    p.once('message', (m) => resolveStart({ proc: p, url: m.url }));
  });
}

const ask = (p, m) =>
  new Promise((r) => {
    p.once('message', r);
    p.send(m);
  });
const rssMiB = async (p) => (await ask(p, { rss: true })).rss / 2 ** 20;

async function post(url, body) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** The query API's primary budget put back (an emulator's; the bare server has none). */
async function refill(server) {
  if (!AMOUNT || server.name.startsWith('bare')) return;
  await post(`${server.url}/_emulator/hosting/budget`, { resource: GRAPHQL ? 'graphql' : 'core', remaining: 5000, resetInSeconds: 3600 });
}

/** For --issues-page: milestone 1 and N issues of mona/hello-world, the second half in it. */
async function seedIssues(url, authorization, n) {
  const write = (path, body) => writeRepo(url, authorization, path, body);
  await write('/milestones', { title: 'v1' });
  for (let i = 0; i < n; i += 25)
    await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, (_, k) => write('/issues', { title: `issue ${i + k}`, ...(i + k >= n / 2 ? { milestone: 1 } : {}) })),
    );
}

/** A POST to mona/hello-world's REST path (`/issues`, …), as its owner. */
async function writeRepo(url, authorization, path, body) {
  const r = await fetch(`${url}/api/v3/repos/mona/hello-world${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
}

/** Issue 1 of mona/hello-world with a label and one comment, for --gh-issue-view. */
async function seedIssue(url, authorization) {
  const write = (path, body) => writeRepo(url, authorization, path, body);
  await write('/issues', { title: 'Seen by gh issue view', body: 'details', labels: ['bug'] });
  await write('/issues/1/comments', { body: 'a comment' });
}

/** Raises every secondary limit far beyond what the run can reach (still checked on each request). */
async function raiseLimits(url) {
  const big = 2 ** 40;
  await post(`${url}/_emulator/hosting/limits`, {
    concurrent: 10_000,
    restPointsPerMinute: big,
    graphqlPointsPerMinute: big,
    contentCreatingPerMinute: big,
    contentCreatingPerHour: big,
    cpuMsPerMinute: big,
    graphqlCpuMsPerMinute: big,
  });
}

function load(url, headers, o) {
  if (TOOL === 'wrk' && o.duration) return wrk(url, headers, o.duration);
  return new Promise((res, rej) => {
    autocannon({ url, connections: CONNECTIONS, headers, ...o }, (err, r) => (err ? rej(err) : res(r)));
  });
}

/** Debian's wrk (one thread), its figures in autocannon's shape. */
function wrk(url, headers, seconds) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  const r = spawnSync('wrk', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wrk: ${r.stderr || r.error}`);
  const ms = (label) => {
    const m = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)\\b`, 'm').exec(r.stdout);
    return m ? Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]] : Number.NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(r.stdout)?.[1] ?? 0);
  const errors =
    /Socket errors: (.*)/
      .exec(r.stdout)?.[1]
      ?.match(/\d+/g)
      ?.reduce((a, b) => a + Number(b), 0) ?? 0;
  const total = Number(/(\d+) requests in/.exec(r.stdout)[1]);
  return {
    requests: { average: Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)[1]), total },
    latency: { p50: ms('50%'), p99: ms('99%') },
    non2xx,
    errors,
    timeouts: 0,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const emus = [];
  for (const dist of builds) emus.push({ dist, ...(await start('emulator', dist)) });
  const bare = await start('bare');
  const headers = {};
  try {
    // The emulator's default token, and the exact answer the bare server replays.
    const info = await (await fetch(`${emus[0].url}/_emulator/info`)).json();
    headers.authorization = `Bearer ${info.hosting.personalToken}`;
    for (const e of emus) await raiseLimits(e.url);
    if (GH_VIEW) for (const e of emus) await seedIssue(e.url, headers.authorization);
    if (ISSUES) for (const e of emus) await seedIssues(e.url, headers.authorization, ISSUES);
    const path = GRAPHQL ? '/api/graphql' : ISSUES ? '/api/v3/repos/mona/hello-world/issues?per_page=100&milestone=1' : '/api/v3/rate_limit';
    const request = GRAPHQL ? { method: 'POST', body: GRAPHQL_BODY } : {};
    if (GRAPHQL) headers['content-type'] = 'application/json';
    const sample = await fetch(`${emus[0].url}${path}`, { headers, ...request });
    const body = await sample.text();
    const answerHeaders = {};
    for (const [k, v] of sample.headers) if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) answerHeaders[k] = v;
    bare.proc.send({ answer: { status: sample.status, headers: answerHeaders, body } });
    const servers = [
      { name: 'bare node:http', url: bare.url, proc: bare.proc },
      ...emus.map((e, i) => ({ name: i ? `emulator (${e.dist})` : 'emulator', url: e.url, proc: e.proc })),
    ];
    for (const s of servers) {
      s.rounds = [];
      await refill(s);
      await load(s.url + path, headers, { ...request, ...(AMOUNT ? { amount: AMOUNT } : { duration: 2 }) }); // warm-up
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of servers) {
        await refill(s);
        const cpu0 = (await ask(s.proc, { cpu: true })).cpuUs;
        const res = await load(s.url + path, headers, { ...request, ...(AMOUNT ? { amount: AMOUNT } : { duration: DURATION }) });
        const cpuUs = (await ask(s.proc, { cpu: true })).cpuUs - cpu0;
        if (res.non2xx || res.errors || res.timeouts) throw new Error(`${s.name}: ${res.non2xx} non-2xx, ${res.errors} errors, ${res.timeouts} timeouts`);
        s.rounds.push({ rps: res.requests.average, p99: res.latency.p99, p50: res.latency.p50, cpuUs: cpuUs / res.requests.total });
      }
    }
    const base = servers[0];
    const results = servers.map((s) => ({
      server: s.name,
      requestsPerSecond: Math.round(median(s.rounds.map((x) => x.rps))),
      ratio: Number(median(s.rounds.map((x, i) => x.rps / base.rounds[i].rps)).toFixed(3)),
      ratioRange: [Math.min(...s.rounds.map((x, i) => x.rps / base.rounds[i].rps)), Math.max(...s.rounds.map((x, i) => x.rps / base.rounds[i].rps))].map((x) =>
        Number(x.toFixed(3)),
      ),
      p50Ms: median(s.rounds.map((x) => x.p50)),
      p99Ms: median(s.rounds.map((x) => x.p99)),
      cpuUsPerRequest: Math.round(median(s.rounds.map((x) => x.cpuUs))),
    }));
    for (const [i, s] of servers.entries()) results[i].rssMiB = Number((await rssMiB(s.proc)).toFixed(1));
    let memory;
    if (flag('million')) {
      memory = [];
      for (const s of servers.slice(1)) {
        // A fresh emulator for the memory figure: RSS after 10k requests, then after LARGE.
        const e = await start('emulator', emus[servers.indexOf(s) - 1].dist);
        await raiseLimits(e.url);
        const small = await load(e.url + path, headers, { amount: 10_000 });
        const after10k = await rssMiB(e.proc);
        const big = await load(e.url + path, headers, { amount: LARGE - 10_000 });
        const afterLarge = await rssMiB(e.proc);
        e.proc.kill('SIGTERM');
        if (small.non2xx || big.non2xx) throw new Error(`${s.name}: refused requests during the memory run`);
        memory.push({
          server: s.name,
          rssAfter10kMiB: Number(after10k.toFixed(1)),
          [`rssAfter${LARGE}MiB`]: Number(afterLarge.toFixed(1)),
          growthMiB: Number((afterLarge - after10k).toFixed(1)),
        });
      }
    }
    const out = { node: process.version, connections: CONNECTIONS, rounds: ROUNDS, durationSec: DURATION, bodyBytes: Buffer.byteLength(body), results, memory };
    if (flag('json')) console.log(JSON.stringify(out, null, 2));
    else {
      const each = AMOUNT ? `${AMOUNT} requests` : `${DURATION} s`;
      console.log(
        `${GRAPHQL ? 'POST' : 'GET'} ${path}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${each}, Node ${process.version}, body ${out.bodyBytes} bytes`,
      );
      for (const r of results)
        console.log(
          `${r.server.padEnd(28)} ${String(r.requestsPerSecond).padStart(7)} req/s  ${r.ratio.toFixed(3)}x (${r.ratioRange.join('–')})  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  CPU ${r.cpuUsPerRequest} µs/req  RSS ${r.rssMiB} MiB`,
        );
      for (const m of memory ?? [])
        console.log(`${m.server}: RSS after 10k ${m.rssAfter10kMiB} MiB, after ${LARGE} ${m[`rssAfter${LARGE}MiB`]} MiB (+${m.growthMiB} MiB)`);
    }
  } finally {
    for (const e of emus) e.proc.kill('SIGTERM');
    bare.proc.kill('SIGTERM');
  }
}

// The child: `node bench/emulator.mjs --child emulator DIST` or `--child bare` (answers over IPC).
if (flag('child')) await child();
else await main();
