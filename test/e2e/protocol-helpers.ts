/** Shared pieces of the protocol e2e tests: a stand-in browser, stored-credential readers, admin calls. */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ROOT, startWorld, type World } from './harness.js';
import type { Stats } from '../../src/emulator/services/protocol/state.js';

export const CONSENT_BROWSER = join(ROOT, 'test', 'e2e', 'protocol-consent.mjs');

export interface Client {
  /** Isolated config dir (credentials file) for one simulated user. */
  dir: string;
  urlLog: string;
  env(extra?: Record<string, string>): Record<string, string>;
  /** URLs the CLI asked the browser to open. */
  urls(): Promise<string[]>;
  /** Stored protocol credentials (file store). */
  stored(): Promise<Record<string, Record<string, unknown>>>;
}

export async function newClient(consent: 'allow' | 'deny' | 'record' = 'allow'): Promise<Client> {
  const dir = await mkdtemp(join(tmpdir(), 'lanyard-proto-'));
  const urlLog = join(dir, 'urls.log');
  return {
    dir,
    urlLog,
    env: (extra = {}) => ({
      LANYARD_CONFIG_DIR: dir,
      LANYARD_BROWSER: CONSENT_BROWSER,
      LANYARD_TEST_URL_LOG: urlLog,
      LANYARD_TEST_CONSENT: consent,
      ...extra,
    }),
    urls: async () => (await readFile(urlLog, 'utf8').catch(() => '')).split('\n').filter(Boolean),
    async stored() {
      const raw = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8').catch(() => '{}')) as Record<string, string>;
      const out: Record<string, Record<string, unknown>> = {};
      for (const [k, v] of Object.entries(raw)) if (k.startsWith('protocol')) out[k] = JSON.parse(v) as Record<string, unknown>;
      return out;
    },
  };
}

/** The shape of `POST /_emulator/protocol/stats`. */
export type { Stats };

export const stats = (w: World) => w.admin('protocol/stats', {}) as Promise<Stats>;
export const configure = (w: World, s: Record<string, unknown>) => w.admin('protocol/configure', s);

/** The stored token record of a server. */
export async function tokensOf(c: Client, serverUrl: string): Promise<Record<string, unknown> | undefined> {
  return (await c.stored())[`protocol:${serverUrl}`];
}

/** Headless Chromium as the brief prescribes (CHROMIUM_PATH overrides the binary). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** One emulator for a test file, reset before each test; `on` gets it and its protocol server URL once started. */
export function useProtocolWorld(on: (w: World, mcp: string) => void): void {
  let world: World | undefined;
  beforeAll(async () => {
    world = await startWorld();
    on(world, `${world.url}/mcp`);
  });
  afterAll(async () => world?.stop());
  beforeEach(async () => {
    await world!.admin('reset');
  });
}
