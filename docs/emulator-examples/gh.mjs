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
  // gh's issue commands: the query API and REST share one store.
  const R = ['-R', `${host}/mona/hello-world`];
  await gh(['issue', 'create', ...R, '--title', 'Filed by a script', '--body', 'details']);
  await gh(['issue', 'comment', '1', ...R, '--body', 'seen']);
  await gh(['issue', 'edit', '1', ...R, '--add-label', 'bug']);
  const [found] = JSON.parse(await gh(['issue', 'list', ...R, '--label', 'bug', '--json', 'number,title,state,comments']));
  console.log(`#${found.number} ${found.title}: ${found.state}, ${found.comments.length} comment`);
} finally {
  rmSync(config, { recursive: true, force: true });
  await emu.stop();
}
