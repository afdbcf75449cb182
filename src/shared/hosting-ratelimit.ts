/**
 * Wire shapes of the hosting emulator's rate-limit admin verbs
 * (`POST /_emulator/hosting/<verb>`), shared by the emulator and
 * `lanyard emulator budget|secondary|limits`. Values and types only.
 */

/** Names a caller bucket; with none of these set, a verb applies to every caller. */
export interface HostingCallerSelector {
  /** A bucket key as listed by `budgets`: `ip:127.0.0.1`, `user:mona`, `app:<client id>`, `installation:<id>`, `workflow:<owner/repo>`. */
  caller?: string;
  /** The user's shared bucket (every token and app acting for that user). */
  login?: string;
  /** The unauthenticated bucket of the originating IP (default 127.0.0.1). */
  anonymous?: boolean;
  ip?: string;
}

/** `POST /_emulator/hosting/budget` */
export interface HostingBudgetRequest extends HostingCallerSelector {
  /** Resource family; default `core`. */
  resource?: string;
  remaining?: number;
  /** The window resets this many seconds from the emulator's now. */
  resetInSeconds?: number;
}

/** `POST /_emulator/hosting/secondary`: the next `count` matching requests get a secondary limit. */
export interface HostingSecondaryRequest extends HostingCallerSelector {
  count?: number;
  /** Seconds for `retry-after`; absent: no header. */
  retryAfter?: number;
  /** 403 (default) or 429. */
  status?: number;
  /** Also zero the caller's core budget (resetting in `resetInSeconds`), as real limits sometimes do. */
  exhaustBudget?: boolean;
  resetInSeconds?: number;
}

/** `POST /_emulator/hosting/limits`: tune the secondary limits (tests); omitted fields keep their value. */
export interface HostingSecondaryLimits {
  concurrent?: number;
  restPointsPerMinute?: number;
  graphqlPointsPerMinute?: number;
  contentCreatingPerMinute?: number;
  contentCreatingPerHour?: number;
  /**
   * The length of the "per minute" window of content-creating requests, seconds (default 60): a test in real
   * time shortens it, with Lanyard's pacing told the same (`LANYARD_PACING_LIMITS`, docs/fleets.md).
   */
  contentCreatingWindowSeconds?: number;
  /** CPU time per 60 s, ms (90,000), and the query API's share of it (60,000). */
  cpuMsPerMinute?: number;
  graphqlCpuMsPerMinute?: number;
}

/** One bucket as the `budgets` verb lists it. */
export interface HostingBucketView {
  caller: string;
  resource: string;
  limit: number;
  used: number;
  remaining: number;
  /** UTC epoch seconds. */
  reset: number;
}
