/**
 * Running Debian's `gh` (the code host's own CLI) against the emulator on
 * HTTPS: a host other than the public one is an enterprise server to gh,
 * which refuses a port in a host name, so the emulator listens on port 443
 * of a random 127.x.y.z address; gh trusts its certificate through
 * SSL_CERT_FILE (Go's variable) and keeps its state in GH_CONFIG_DIR.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

export interface GhResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `gh ARGS` with HOME and GH_CONFIG_DIR under `home`, trusting `caFile`, never prompting, no colour; `token` as gh's variable for a host that is not the public one. */
export function runGh(args: string[], o: { home: string; caFile: string; input?: string; token?: string }): Promise<GhResult> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.home,
    GH_CONFIG_DIR: join(o.home, 'gh'),
    SSL_CERT_FILE: o.caFile,
    GH_NO_UPDATE_NOTIFIER: '1',
    GH_PROMPT_DISABLED: '1',
    NO_COLOR: '1',
    ...(o.token ? { GH_ENTERPRISE_TOKEN: o.token } : {}),
  };
  return new Promise((resolve) => {
    const child = execFile('gh', args, { env, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(o.input ?? '');
  });
}

/** A random address of 127.0.0.0/8, so parallel runs do not fight over port 443. */
export const spareLoopback = () => `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;

/** The emulator on HTTPS port 443 of a spare loopback address, and a fresh home directory for gh. */
export async function startGhEmulator(prefix: string): Promise<{ emu: RunningEmulator; home: string; host: string }> {
  const ip = spareLoopback();
  const emu = await startEmulator({ tls: true, host: ip, port: 443 });
  const host = new URL(emu.url).host;
  if (host !== ip) throw new Error(`the emulator listens on ${host}, not ${ip}`);
  return { emu, host, home: await mkdtemp(join(tmpdir(), prefix)) };
}

export async function stopGhEmulator(emu: RunningEmulator | undefined, home: string | undefined): Promise<void> {
  await emu?.stop();
  if (home) await rm(home, { recursive: true, force: true });
}
