/**
 * Version-1 (time-based) UUIDs as the mail store uses them: the timestamp is
 * the arrival time in 100 ns ticks since 1582-10-15, so ordering by id is
 * ordering by time. Ids generated within one millisecond get increasing tick
 * offsets, and a clock that moves back never produces an older id.
 */
import { randomBytes } from 'node:crypto';

const GREGORIAN_OFFSET_MS = 12_219_292_800_000n;
const TICKS_PER_MS = 10_000n;

export class TimeUuidGenerator {
  #lastTicks = 0n;
  readonly #clockSeq: number;
  readonly #node: string;

  constructor(seed: Buffer = randomBytes(8)) {
    this.#clockSeq = ((seed[0]! << 8) | seed[1]!) & 0x3fff;
    const node = Buffer.from(seed.subarray(2, 8));
    node[0]! |= 0x01; // multicast bit: a random node id, not a MAC address
    this.#node = node.toString('hex');
  }

  /** A new id for a message arriving at `ms` (epoch milliseconds). */
  next(ms: number): string {
    let ticks = (BigInt(Math.floor(ms)) + GREGORIAN_OFFSET_MS) * TICKS_PER_MS;
    if (ticks <= this.#lastTicks) ticks = this.#lastTicks + 1n;
    this.#lastTicks = ticks;
    return formatV1(ticks, this.#clockSeq, this.#node);
  }

  /** Never issue an id older than one already stored (after a reload). */
  observe(id: string): void {
    const t = uuidTicks(id);
    if (t > this.#lastTicks) this.#lastTicks = t;
  }
}

function formatV1(ticks: bigint, clockSeq: number, node: string): string {
  const low = (ticks & 0xffffffffn).toString(16).padStart(8, '0');
  const mid = ((ticks >> 32n) & 0xffffn).toString(16).padStart(4, '0');
  const hi = (((ticks >> 48n) & 0x0fffn) | 0x1000n).toString(16).padStart(4, '0');
  const seq = (clockSeq | 0x8000).toString(16).padStart(4, '0');
  return `${low}-${mid}-${hi}-${seq}-${node}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** The 60-bit timestamp of a version-1 UUID (0 for other versions). */
export function uuidTicks(id: string): bigint {
  const h = id.toLowerCase();
  if (h[14] !== '1') return 0n;
  const low = BigInt('0x' + h.slice(0, 8));
  const mid = BigInt('0x' + h.slice(9, 13));
  const hi = BigInt('0x' + h.slice(15, 18));
  return (hi << 48n) | (mid << 32n) | low;
}

/** Epoch milliseconds of a version-1 UUID. */
export function uuidTimeMs(id: string): number {
  return Number(uuidTicks(id) / TICKS_PER_MS - GREGORIAN_OFFSET_MS);
}

/** Orders like Cassandra's TimeUUIDType: by timestamp, then by the bytes. */
export function compareTimeUuid(a: string, b: string): number {
  const ta = uuidTicks(a);
  const tb = uuidTicks(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return la < lb ? -1 : la > lb ? 1 : 0;
}
