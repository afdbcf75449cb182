// `npm run pack:size`: what `npm pack` would publish — file count, packed
// (gzipped tarball) and unpacked size, and the largest files. Build first
// (`npm run build`): the package is mostly dist/.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const [pack] = JSON.parse(
  execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
);
const kB = (n) => `${(n / 1024).toFixed(1)} kB`;
const largest = [...pack.files].sort((a, b) => b.size - a.size).slice(0, 8);
console.log(`${pack.name}@${pack.version}: ${pack.entryCount} files, ${kB(pack.size)} packed, ${kB(pack.unpackedSize)} unpacked`);
for (const f of largest) console.log(`  ${kB(f.size).padStart(10)}  ${f.path}`);
