/**
 * The protocol server's event streams (revisions 2025-03-26 to 2025-11-25):
 * every event has an id, the last KEPT_EVENTS of each stream are kept, and a
 * client that lost a stream resumes it with `GET` and `Last-Event-ID` (the
 * events after that one are sent again — also those written while the stream
 * had no connection — then the stream goes on). The `breakNextStream`
 * switch closes the next stream after its first event, as a proxy or a
 * flaky network would, so clients' resumption can be tested.
 */
import type { ServerResponse } from 'node:http';

/** Streams kept for resumption (the oldest are forgotten). */
const KEPT = 200;
/** Events of one stream kept for a resumption (the oldest are forgotten: a Last-Event-ID older than those is unknown). */
export const KEPT_EVENTS = 100;

export class EventStream {
  readonly events: Array<{ id: number; text: string }> = [];
  #out?: ServerResponse;
  #ended = false;
  #broken = false;
  #written = 0;
  #abandoned?: () => void;

  constructor(
    readonly session: string | undefined,
    out: ServerResponse,
    readonly nextId: () => number,
    /** Close the connection after this many events (the client resumes). */
    readonly breakAfter?: number,
  ) {
    this.#attach(out);
  }

  /** Called when the client goes away for good (not when the stream was broken on purpose). */
  onAbandon(f: () => void): void {
    this.#abandoned = f;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** No connection carries the stream now, and it has not ended: what is written waits for a resumption. */
  get detached(): boolean {
    return this.#out === undefined && !this.#ended;
  }

  /** Whether the stream still keeps the event `lastEventId` (a Last-Event-ID it can resume after). */
  has(lastEventId: string): boolean {
    const id = Number(lastEventId);
    return Number.isSafeInteger(id) && this.events.some((e) => e.id === id);
  }

  /** One event (`data` undefined: a priming event with only an id); its id. */
  write(data: unknown, retryMs?: number): number {
    const id = this.nextId();
    const text = `${data === undefined ? '' : 'event: message\n'}id: ${id}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}data: ${data === undefined ? '' : JSON.stringify(data)}\n\n`;
    this.events.push({ id, text });
    if (this.events.length > KEPT_EVENTS) this.events.shift();
    this.#out?.write(text);
    if (this.breakAfter !== undefined && ++this.#written === this.breakAfter) this.cut();
    return id;
  }

  /** Closes the connection, not the stream (a proxy's cut): what comes next waits for a resumption. Whether one was open. */
  cut(): boolean {
    const out = this.#out;
    if (!out) return false;
    this.#broken = true;
    this.#out = undefined;
    out.end();
    return true;
  }

  end(): void {
    this.#ended = true;
    this.#out?.end();
    this.#out = undefined;
  }

  /** A GET with Last-Event-ID: the events after `after`, then the rest as it comes. */
  resume(out: ServerResponse, after: number): void {
    for (const e of this.events) if (e.id > after) out.write(e.text);
    if (this.#ended) return void out.end();
    this.#broken = false;
    this.#attach(out);
  }

  #attach(out: ServerResponse): void {
    this.#out = out;
    out.on('close', () => {
      if (this.#out !== out) return;
      this.#out = undefined;
      if (!this.#ended && !this.#broken) this.#abandoned?.();
    });
  }
}

export class EventStreams {
  #seq = 0;
  readonly #streams: EventStream[] = [];

  open(out: ServerResponse, session: string | undefined, breakAfter?: number): EventStream {
    const s = new EventStream(session, out, () => ++this.#seq, breakAfter);
    this.#streams.push(s);
    if (this.#streams.length > KEPT) this.#streams.shift();
    return s;
  }

  /** The stream of the session that sent event `lastEventId`. */
  find(lastEventId: string, session: string | undefined): EventStream | undefined {
    return this.#streams.find((s) => s.session === session && s.has(lastEventId));
  }

  reset(): void {
    this.#streams.length = 0;
  }
}
