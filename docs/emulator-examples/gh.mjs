// Debian's gh against the emulator. gh refuses a port in a host name, so the emulator listens on
// port 443 (needs root or CAP_NET_BIND_SERVICE) of a spare loopback address, over HTTPS; gh (a Go
// program) trusts the emulator's certificate through SSL_CERT_FILE.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from 'lanyard-cli/emulator';

const host = process.env.EMULATOR_HOST ?? '127.0.0.42';
const emu = await startEmulator({ tls: true, host, port: 443 });
const config = mkdtempSync(join(tmpdir(), 'gh-'));
const env = { PATH: process.env.PATH, HOME: config, GH_CONFIG_DIR: config, SSL_CERT_FILE: emu.tls.caFile, GH_NO_UPDATE_NOTIFIER: '1' };
// Asynchronous: the emulator runs in this process and must keep answering while gh waits.
const gh = (args, input = '') =>
  new Promise((resolve, reject) => {
    const child = execFile('gh', args, { env }, (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)));
    child.stdin.end(input);
  });
try {
  await gh(['auth', 'login', '--hostname', host, '--with-token'], emu.fixtures.hosting.personalToken);
  console.log(JSON.parse(await gh(['api', 'user', '--hostname', host])).login);
} finally {
  rmSync(config, { recursive: true, force: true });
  await emu.stop();
}
