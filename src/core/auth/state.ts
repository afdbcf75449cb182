/** Unguessable values for OAuth requests (the `state` against cross-site request forgery). */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import type { RandomBytes } from '../deps.js';

/** 32 random bytes, base64url: a fresh `state` for every authorization request. */
export function newState(random: RandomBytes = nodeRandomBytes): string {
  return Buffer.from(random(32)).toString('base64url');
}
