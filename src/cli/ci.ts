/**
 * CI output: in a CI environment (`CI=true`, or `LANYARD_EVENTS=ndjson`
 * anywhere; `LANYARD_EVENTS=off` turns it off) every rate-limit wait and every
 * retry is one JSON line on stderr, `{"event": …, …}`; and where the workflow
 * runner names a step-summary file (`GITHUB_STEP_SUMMARY`), commands that
 * report on budgets append a markdown summary to it.
 */
import type { IO } from './io.js';

export function ciEventsOn(env: NodeJS.ProcessEnv): boolean {
  if (env.LANYARD_EVENTS === 'off') return false;
  return env.LANYARD_EVENTS === 'ndjson' || env.CI === 'true' || env.CI === '1';
}

/** One event line on stderr (no secrets: callers pass paths, never query strings). */
export function ciEvent(io: IO, env: NodeJS.ProcessEnv, now: number, event: string, fields: Record<string, unknown>): boolean {
  if (!ciEventsOn(env)) return false;
  io.err(JSON.stringify({ event, time: new Date(now).toISOString(), ...fields }));
  return true;
}

/** A URL as an event may show it: origin and path, no query (it may hold a key). */
export function eventUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.origin + u.pathname;
  } catch {
    return '';
  }
}

/**
 * Appends markdown to the step-summary file, when the runner names one. A
 * file that cannot be written (a job container without the runner's mount)
 * is a warning: the summary is an extra, and the command's own result and
 * exit status (a budget check's 0 or 3) stand.
 */
export async function appendStepSummary(env: NodeJS.ProcessEnv, markdown: string, warn: (text: string) => void): Promise<void> {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  const { appendFile } = await import('node:fs/promises');
  try {
    await appendFile(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    warn(`could not append to GITHUB_STEP_SUMMARY (${file}): ${code ?? (err as Error).message}; the summary is skipped`);
  }
}
