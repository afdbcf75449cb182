/**
 * Packaging: `npm pack` ships only dist/, bin/, completions/, README and
 * licence, and the tarball installs globally into a fresh prefix and runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './harness.js';

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });

describe('npm package', () => {
  const work = mkdtempSync(join(tmpdir(), 'lanyard-pack-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const version = JSON.parse(npm(['pkg', 'get', 'version'], ROOT)) as string;

  it('ships only dist/, bin/, completions/, README and LICENSE', () => {
    const out = JSON.parse(npm(['pack', '--json', '--pack-destination', work], ROOT)) as Array<{ files: Array<{ path: string }> }>;
    const paths = out[0]!.files.map((f) => f.path);
    for (const p of paths) expect(p).toMatch(/^(dist\/|bin\/|completions\/|README\.md$|LICENSE$|package\.json$)/);
    expect(paths).toContain('bin/lanyard.js');
    expect(paths).toContain('dist/cli.cjs');
    expect(paths).toContain('bin/package.json');
    expect(paths).toContain('completions/lanyard.bash');
    expect(paths.some((p) => p.startsWith('src/') || p.startsWith('test/'))).toBe(false);
  }, 60_000);

  it('installs globally into a fresh prefix and runs', () => {
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
    const prefix = join(work, 'prefix');
    npm(['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', join(work, tgz)], work);
    const bin = join(prefix, 'bin', 'lanyard');
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);
    const help = execFileSync(bin, ['ratelimit', '--help'], { encoding: 'utf8' });
    expect(help).toMatch(/status/);
  }, 180_000);
});
