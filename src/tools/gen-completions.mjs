// `npm run completions`: writes completions/ from the built CLI's command tree.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const files = { bash: 'lanyard.bash', zsh: '_lanyard', fish: 'lanyard.fish' };
for (const [shell, file] of Object.entries(files)) {
  const text = execFileSync(process.execPath, [join(root, 'bin', 'lanyard.js'), 'completion', shell], { encoding: 'utf8' });
  writeFileSync(join(root, 'completions', file), text);
  console.log(`completions/${file}`);
}
