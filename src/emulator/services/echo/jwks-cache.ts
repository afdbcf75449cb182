/**
 * The gateway's key cache: JWKS documents fetched over HTTP from the scheme's
 * URI (the emulator's own, or any other), kept 300 s on the emulator clock,
 * and fetched again when a token names a kid the cached document lacks.
 */
import type { Agent } from 'undici';
import { JwtFailure } from './jwt-validate.js';

export const KEY_CACHE_SECONDS = 300;

interface Entry {
  doc: unknown;
  expiresAt: number;
}

export class JwksCache {
  readonly #entries = new Map<string, Entry>();
  /** Fetches per URI (for tests and `stats`). */
  readonly fetches = new Map<string, number>();
  // The emulator may serve HTTPS with a self-signed certificate: trust it for its own URLs. undici is
  // loaded on the first fetch, not with the emulator (few runs fetch a key).
  #selfAgent: Agent | undefined;

  constructor(
    private readonly now: () => number,
    private readonly selfOrigin: () => string,
  ) {}

  /** The document for `uri`; `fresh` forces a fetch. Returns whether it was just fetched. */
  async get(uri: string, fresh = false): Promise<{ doc: unknown; fetched: boolean }> {
    const hit = this.#entries.get(uri);
    if (!fresh && hit && hit.expiresAt > this.now()) return { doc: hit.doc, fetched: false };
    const doc = await this.#fetch(uri);
    this.#entries.set(uri, { doc, expiresAt: this.now() + KEY_CACHE_SECONDS * 1000 });
    return { doc, fetched: true };
  }

  async #fetch(uri: string): Promise<unknown> {
    this.fetches.set(uri, (this.fetches.get(uri) ?? 0) + 1);
    let status = 0;
    let text = '';
    try {
      const own = new URL(uri).origin === new URL(this.selfOrigin()).origin;
      const { Agent, request } = await import('undici');
      if (own) this.#selfAgent ??= new Agent({ connect: { rejectUnauthorized: false } });
      const res = await request(uri, {
        method: 'GET',
        headers: { accept: 'application/json' },
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
        ...(own ? { dispatcher: this.#selfAgent } : {}),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch {
      throw new JwtFailure(401, 'Unable to fetch verification key');
    }
    if (status >= 300 || !text) {
      throw new JwtFailure(401, `Unable to fetch verification key${status >= 300 ? `. HTTP response code: ${status}` : ''}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new JwtFailure(401, 'KEY_RETRIEVAL_ERROR');
    }
  }

  clear(): void {
    this.#entries.clear();
    this.fetches.clear();
  }

  async close(): Promise<void> {
    await this.#selfAgent?.close();
  }
}
