// TypeDoc's options (`npm run docs`; CI runs it: a broken doc comment or link fails).
import { execFileSync } from 'node:child_process';

/**
 * TypeDoc links each declaration to its source through the git remote
 * `origin`, and warns (an error here, with warnings treated as errors) when a
 * checkout has none: a fresh `git init`, a fork whose remote has another name.
 * Without it the reference is built without source lines instead.
 */
function hasOrigin() {
  try {
    execFileSync('git', ['remote', 'get-url', 'origin'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'lanyard-cli',
  entryPoints: ['src/core/index.ts', 'src/emulator/index.ts'],
  tsconfig: 'tsconfig.lib.json',
  out: 'docs/api',
  readme: 'none',
  projectDocuments: ['docs/guide.md'],
  excludePrivate: true,
  excludeInternal: true,
  treatWarningsAsErrors: true,
  disableSources: !hasOrigin(),
  validation: { notExported: false, invalidLink: true, invalidPath: true, rewrittenLink: true, notDocumented: false, unusedMergeModuleWith: true },
};
