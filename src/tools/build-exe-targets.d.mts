/** Types of build-exe-targets.mjs (the pins of `npm run build:exe`), for the tests. */

/** An npm package the build fetches: its spec (name@version), the registry's integrity, and the file used from it. */
export interface PinnedFile {
  spec: string;
  integrity: string;
  file: string;
}

/** One executable: its platform name, its file name in dist/exe/, and what it is made of. */
export interface ExeTarget {
  name: 'linux-x64' | 'linux-arm64' | 'win-x64';
  out: string;
  node: PinnedFile;
  keyring: PinnedFile;
}

export const NODE_VERSION: string;
export const TARGETS: ExeTarget[];
export const SEA_FUSE: string;
export const MAX_GROWTH: number;
export const CACHE: string;
export function cachedPackage(spec: string): string;
