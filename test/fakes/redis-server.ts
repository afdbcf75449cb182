/**
 * A real `redis-server` (Debian's package) for the shared-pacing tests: on a
 * free loopback port, nothing saved to disk, optionally with `requirepass`.
 * Redis cannot be told to take a free port itself (port 0 turns TCP off), so
 * a port is found free and taken; when another process wins the race, the
 * start is tried again on another port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface RedisServer {
  url: string;
  port: number;
  /** Runs redis-cli against it (raw output). */
  cli(...args: string[]): Promise<string>;
  /** SIGKILL: the server gone mid-run. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function ended(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

/** With `tls`: TLS only (no plain port), the server's certificate and key and the CA that signed it (PEM files); no client certificates. */
export async function startRedis(o: { password?: string; tls?: { cert: string; key: string; ca: string } } = {}): Promise<RedisServer> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning'];
    if (o.password) args.push('--requirepass', o.password);
    if (o.tls) {
      args.splice(0, 2, '--port', '0', '--tls-port', String(port));
      args.push('--tls-cert-file', o.tls.cert, '--tls-key-file', o.tls.key, '--tls-ca-cert-file', o.tls.ca, '--tls-auth-clients', 'no');
    }
    const tlsArgs = o.tls ? ['--tls', '--cacert', o.tls.ca] : [];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const cli = (...a: string[]) =>
      new Promise<string>((resolve, reject) => {
        const p = spawn('redis-cli', [...tlsArgs, '-h', '127.0.0.1', '-p', String(port), ...a], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, ...(o.password ? { REDISCLI_AUTH: o.password } : {}) },
        });
        let text = '';
        p.stdout!.on('data', (c: Buffer) => (text += c.toString()));
        p.on('error', reject);
        p.on('close', () => resolve(text));
      });
    let up = false;
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if ((await cli('PING')).trim() === 'PONG') {
        up = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (!up) {
      child.kill('SIGKILL');
      await ended(child);
      if (attempt < 3) continue;
      throw new Error(`redis-server did not start: ${out}`);
    }
    return {
      url: `${o.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
      port,
      cli,
      async kill() {
        child.kill('SIGKILL');
        await ended(child);
      },
      async stop() {
        child.kill('SIGTERM');
        await ended(child);
      },
    };
  }
}
