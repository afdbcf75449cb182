/** The emulator removes the temporary data directory it created when it stops; a --data-dir given to it is kept. */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/server.js';

describe('emulator data directory', () => {
  it('a temporary one is removed on close, with what the services wrote in it', async () => {
    const emu = await startEmulator();
    expect(existsSync(emu.dataDir)).toBe(true);
    await writeFile(join(emu.dataDir, 'extra.bin'), 'x');
    await emu.close();
    expect(existsSync(emu.dataDir)).toBe(false);
  });

  it('one that was given is kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-given-'));
    try {
      const emu = await startEmulator({ dataDir: dir });
      await emu.close();
      expect(existsSync(dir)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a temporary one is removed when the emulator cannot start', async () => {
    const first = await startEmulator();
    const privateTmp = await mkdtemp(join(tmpdir(), 'lanyard-tmp-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    try {
      await expect(startEmulator({ port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(readdirSync(privateTmp)).toEqual([]);
    } finally {
      // (assigning undefined would set the string "undefined": other files in this worker would then make their temporary directories there)
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await first.close();
      await rm(privateTmp, { recursive: true, force: true });
    }
  });
});
