#!/usr/bin/env node
// Pacing cost per request (run `npm run bench:pacing`; needs a build and redis-server):
// sequential POSTs through the library's HttpClient to a bare node:http server on
// loopback, with each pacing store: none worth the name (MemoryPacing, in process),
// FilePacing (pacing.json under the lock: every process of one machine) and RedisPacing
// (a redis-server on a loopback port: every machine of a fleet). The pacing windows are
// raised so nothing waits: what is measured is the cost of asking the store. Prints the
// median per request of each store over the runs, and the ratios.
// Options: --requests N (default 2000), --runs N (default 5).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock, FilePacing, HttpClient, MemoryPacing, RedisPacing } from '../dist/lib/index.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const REQUESTS = arg('requests', 2000);
const RUNS = arg('runs', 5);

const clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => (clearTimeout(t), reject(new Error('aborted'))), { once: true });
    }),
};

const freePort = () =>
  new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const redisPort = await freePort();
const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
const api = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(201, {
      'content-type': 'application/json',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    });
    res.end('{}');
  });
});
await new Promise((r) => api.listen(0, '127.0.0.1', r));
const apiUrl = `http://127.0.0.1:${api.address().port}`;
const dir = await mkdtemp(join(tmpdir(), 'lanyard-bench-pacing-'));

const stores = {
  memory: () => new MemoryPacing(),
  file: () => new FilePacing(join(dir, 'pacing.json'), new FileLock(dir)),
  redis: () => new RedisPacing({ url: `redis://127.0.0.1:${redisPort}`, clock, required: true }),
};

async function run(make) {
  // The API is named the code host's (hostingApis): its writes are paced (the default, the public host's API, would pace none here).
  const http = new HttpClient({ clock, userAgent: 'bench', pacing: make(), hostingApis: [apiUrl], contentCreatingPerMinute: 1e9, contentCreatingPerHour: 1e9 });
  const credential = { scheme: 'bearer', token: 'bench-token-0123456789' };
  await http.request({ method: 'POST', url: `${apiUrl}/warm`, json: {}, credential }).then((r) => r.dump());
  const t0 = performance.now();
  for (let i = 0; i < REQUESTS; i++) await (await http.request({ method: 'POST', url: `${apiUrl}/x`, json: { i }, credential })).dump();
  const perRequest = (performance.now() - t0) / REQUESTS;
  await http.close();
  return perRequest;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = {};
try {
  for (let r = 0; r < RUNS; r++) for (const [name, make] of Object.entries(stores)) (results[name] ??= []).push(await run(make));
  const m = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)]));
  console.log(`POST per request, median of ${RUNS} runs of ${REQUESTS} (node ${process.version}):`);
  for (const [k, v] of Object.entries(m))
    console.log(`  ${k.padEnd(7)} ${(v * 1000).toFixed(0).padStart(5)} µs  (runs: ${results[k].map((x) => (x * 1000).toFixed(0)).join(', ')})`);
  console.log(
    `  redis/memory ${(m.redis / m.memory).toFixed(2)}x, redis/file ${(m.redis / m.file).toFixed(2)}x, file/memory ${(m.file / m.memory).toFixed(2)}x`,
  );
  console.log(`  cost of the store per request: file +${((m.file - m.memory) * 1000).toFixed(0)} µs, redis +${((m.redis - m.memory) * 1000).toFixed(0)} µs`);
} finally {
  redis.kill();
  api.close();
  await rm(dir, { recursive: true, force: true });
}
