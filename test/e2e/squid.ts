/**
 * A real forward proxy for the tests: Debian's squid, started on a free
 * loopback port with basic authentication (a password file written with
 * htpasswd) and its own hosts file, so a host name only squid can resolve
 * makes any request that bypasses the proxy fail.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';

export interface Squid {
  port: number;
  /** The proxy URL with `user:password@` (percent-encoded). */
  url(user?: string, password?: string): string;
  /** squid's access log so far (one line per request: CONNECT host:port, GET http://…). */
  accessLog(): Promise<string>;
  stop(): Promise<void>;
}

/** A free port on 127.0.0.1 (taken, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function listening(port: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => resolve(!!c.end()));
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`squid did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts squid in `dir` (empty, directly under a world-readable directory such as /tmp); `hosts` maps names to 127.0.0.1 inside squid only. */
export async function startSquid(dir: string, o: { users: Record<string, string>; hosts: string[] }): Promise<Squid> {
  // squid drops root for its own user: the directory must be open to it.
  await chmod(dir, 0o777);
  const passwd = join(dir, 'passwd');
  for (const [i, [user, password]] of Object.entries(o.users).entries())
    execFileSync('htpasswd', [i === 0 ? '-bc' : '-b', passwd, user, password], { stdio: 'ignore' });
  await writeFile(join(dir, 'hosts'), o.hosts.map((h) => `127.0.0.1 ${h}\n`).join(''));
  const port = await freePort();
  const conf = join(dir, 'squid.conf');
  await writeFile(
    conf,
    [
      `http_port 127.0.0.1:${port}`,
      `pid_filename ${dir}/squid.pid`,
      `access_log stdio:${dir}/access.log`,
      `cache_log ${dir}/cache.log`,
      'cache_store_log none',
      'cache deny all',
      `hosts_file ${dir}/hosts`,
      // Nothing else resolves: no name server answers on this port.
      'dns_nameservers 127.0.0.1',
      `auth_param basic program /usr/lib/squid/basic_ncsa_auth ${passwd}`,
      'auth_param basic realm lanyard-test',
      'acl authed proxy_auth REQUIRED',
      'http_access allow authed',
      'http_access deny all',
      `coredump_dir ${dir}`,
      'shutdown_lifetime 0 seconds',
      'visible_hostname lanyard-test-proxy',
      '',
    ].join('\n'),
  );
  for (const f of [passwd, join(dir, 'hosts'), conf]) await chmod(f, 0o644);
  const child = spawn('squid', ['-N', '-f', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await Promise.race([listening(port, 20_000), exited.then(() => Promise.reject(new Error(`squid exited: ${out}`)))]);
  const [firstUser, firstPassword] = Object.entries(o.users)[0]!;
  return {
    port,
    url: (user = firstUser, password = firstPassword) => `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    accessLog: () => readFile(join(dir, 'access.log'), 'utf8').catch(() => ''),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
