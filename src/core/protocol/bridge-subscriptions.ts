/**
 * Resource subscriptions of a host with the handshake in front of a
 * 2026-07-28 server. That revision has no `resources/subscribe`: a client
 * names what it wants to hear of in a `subscriptions/listen` request, whose
 * answer is a stream the server first acknowledges (with what it honours) and
 * then carries `notifications/resources/updated` on. The bridge keeps one such
 * stream for the resources the host subscribed to: a subscribe or unsubscribe
 * opens it again with the new set, answered once the server acknowledged it;
 * the updates go to the host as they come. A stream that the server ends or
 * that breaks is opened again after a second, up to MAX_REOPENS times in a
 * row (stderr says so each time); after that the subscriptions are dropped.
 */
import { LanyardError } from '../errors.js';

/** Streams opened again in a row, with no acknowledgement between, before the subscriptions are given up. */
export const MAX_REOPENS = 5;
const REOPEN_DELAY_MS = 1000;

export interface ListenPorts {
  /** Sends `subscriptions/listen` with these params; settles when the stream ends (rejects on an error answer). */
  listen(params: unknown, signal: AbortSignal): Promise<void>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  notify(line: string): void;
}

type Waiter = { resolve(honoured: readonly unknown[]): void; reject(err: unknown): void };

export class ListenedResources {
  readonly #uris = new Set<string>();
  /** The stream open now. */
  #ac?: AbortController;
  /** Subscribes and unsubscribes waiting for the server to acknowledge the stream opened for them. */
  #waiters: Waiter[] = [];
  #reopens = 0;
  readonly #closed = new AbortController();

  constructor(private readonly ports: ListenPorts) {}

  /** The server's `notifications/subscriptions/acknowledged` on the stream. */
  acknowledged(params: unknown): void {
    const honoured = (params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications?.resourceSubscriptions;
    this.#reopens = 0;
    for (const w of this.#waiters.splice(0)) w.resolve(Array.isArray(honoured) ? honoured : []);
  }

  /** Subscribes to `uri`: resolved once the server listens for it, rejected when it will not. */
  async subscribe(uri: string): Promise<void> {
    if (this.#uris.has(uri)) return;
    this.#uris.add(uri);
    try {
      const honoured = await this.#change();
      if (!honoured.includes(uri))
        throw new LanyardError('protocol_error', `the server does not report updates of ${uri} (not among the resources it listens for)`);
    } catch (err) {
      this.#uris.delete(uri);
      if (!this.#ac) this.#restart();
      throw err;
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    if (!this.#uris.delete(uri)) return;
    await this.#change();
  }

  /** The host has gone: the stream is closed. */
  close(): void {
    this.#uris.clear();
    this.#closed.abort();
    this.#restart();
  }

  /** Opens the stream again for the resources now subscribed; what the server then honours (none subscribed: none). */
  #change(): Promise<readonly unknown[]> {
    this.#restart();
    if (!this.#ac) return Promise.resolve([]);
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  #restart(): void {
    this.#ac?.abort();
    this.#ac = undefined;
    if (!this.#uris.size || this.#closed.signal.aborted) return;
    const ac = new AbortController();
    this.#ac = ac;
    const ended = (err: unknown) => void this.#ended(ac, err);
    this.ports
      .listen({ notifications: { resourceSubscriptions: [...this.#uris] } }, ac.signal)
      .then(() => ended(new LanyardError('protocol_error', 'the server ended the stream')), ended);
  }

  /** A stream that ended by itself: its waiters get the error; else it is opened again after a second. */
  async #ended(ac: AbortController, err: unknown): Promise<void> {
    if (this.#ac !== ac) return;
    this.#ac = undefined;
    const reason = err instanceof Error ? err.message : String(err);
    const waiting = this.#waiters.splice(0);
    if (waiting.length) {
      for (const w of waiting) w.reject(err);
      return;
    }
    if (++this.#reopens > MAX_REOPENS) {
      this.ports.notify(`resource subscriptions dropped: the subscriptions/listen stream ended ${MAX_REOPENS + 1} times in a row (${reason})`);
      this.#uris.clear();
      return;
    }
    this.ports.notify(`the subscriptions/listen stream for the host's resource subscriptions ended (${reason}); listening again in 1 s`);
    try {
      await this.ports.sleep(REOPEN_DELAY_MS, this.#closed.signal);
    } catch {
      return;
    }
    if (!this.#ac) this.#restart();
  }
}
