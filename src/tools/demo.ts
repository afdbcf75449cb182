/**
 * `npm run demo`: starts the embedded emulator, runs lanyard against it as a
 * user would (real processes, real HTTP on 127.0.0.1) and shows what happened.
 */
import { spawn } from 'node:child_process';

/** Runs lanyard without blocking this process (the emulator answers from this event loop). */
function spawnAsync(cmd: string, args: string[], o: { env: NodeJS.ProcessEnv; input?: string; encoding?: 'utf8' }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(o.input ?? '');
  });
}
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../emulator/server.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'lanyard.js');

interface Step {
  title: string;
  args: string[];
  input?: string;
  env?: Record<string, string>;
}

async function main(): Promise<void> {
  const configDir = mkdtempSync(join(tmpdir(), 'lanyard-demo-'));
  const emu = await startEmulator({ port: 0 });
  const env = { ...process.env, LANYARD_CONFIG_DIR: configDir, LANYARD_KEYCHAIN: 'off', LANYARD_PROFILE: 'emulator', NO_COLOR: '1' };
  const info = (await (await fetch(`${emu.url}/_emulator/info`)).json()) as Record<string, Record<string, unknown>>;
  const profile: Record<string, string> = {};
  for (const s of Object.values(info)) if (s && typeof s === 'object' && s.profile) Object.assign(profile, s.profile);
  for (const [k, v] of Object.entries(profile)) await spawnAsync(process.execPath, [bin, '--profile', 'emulator', 'config', 'set', k, v], { env });
  process.stdout.write(`Lanyard demo: emulator at ${emu.url}, config in ${configDir}\n`);
  const token = String(info.hosting?.personalToken ?? '');
  const steps: Step[] = [
    { title: 'Which profile points where', args: ['config', 'list'] },
    { title: 'Anonymous rate-limit budget (60/h per IP)', args: ['ratelimit', 'status', '--resource', 'core'] },
    { title: 'Budget of the seeded user, as JSON, with a CI budget check', args: ['ratelimit', 'status', '--resource', 'core', '--fail-under', '100', '--json'], env: { LANYARD_TOKEN: token } },
  ];
  let failed = 0;
  for (const s of steps) {
    process.stdout.write(`\n$ lanyard ${s.args.join(' ')}${s.env?.LANYARD_TOKEN ? '   (LANYARD_TOKEN from the environment)' : ''}\n`);
    const r = await spawnAsync(process.execPath, [bin, ...s.args], { env: { ...env, ...s.env }, input: s.input, encoding: 'utf8' });
    process.stdout.write(r.stdout);
    if (r.stderr) process.stdout.write(r.stderr.replace(/^/gm, '  stderr: '));
    process.stdout.write(`  -> exit ${r.status}  (${s.title})\n`);
    if (r.status !== 0) failed++;
  }
  await emu.close();
  rmSync(configDir, { recursive: true, force: true });
  process.stdout.write(`\nDemo finished: ${steps.length - failed} of ${steps.length} steps succeeded.\n`);
  if (failed) process.exitCode = 1;
}

await main();
