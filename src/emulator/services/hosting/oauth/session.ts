/** Browser sessions of the emulated web pages: an HttpOnly cookie naming the signed-in user. */
import type { EmuRequest, EmuResponse } from '../../../router.js';
import type { HostingState, HostingUser } from '../state.js';
import { hex } from './wire.js';

export const SESSION_COOKIE = 'lanyard_emu_session';

function cookies(req: EmuRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

/** Every account signed in on this browser, the current one last. */
export function sessionLogins(state: HostingState, req: EmuRequest): string[] {
  const id = cookies(req)[SESSION_COOKIE];
  return ((id && state.sessions.get(id)) || []).filter((l) => state.users.has(l));
}

export function sessionUser(state: HostingState, req: EmuRequest): HostingUser | undefined {
  const login = sessionLogins(state, req).at(-1);
  return login ? state.users.get(login) : undefined;
}

/** Checks a login and password; the user on success. */
export function checkPassword(state: HostingState, login: string | undefined, password: string | undefined): HostingUser | undefined {
  const u = login ? state.users.get(login) : undefined;
  return u && password && u.password === password ? u : undefined;
}

/** Signs `login` in on this browser (added to its accounts, made current); sets the cookie. */
export function startSession(state: HostingState, req: EmuRequest, res: EmuResponse, login: string): void {
  const existing = cookies(req)[SESSION_COOKIE];
  const id = existing && state.sessions.has(existing) ? existing : hex(20);
  state.sessions.set(id, [...(state.sessions.get(id) ?? []).filter((l) => l !== login), login]);
  res.extraHeaders['set-cookie'] = `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`;
}

export function endSession(state: HostingState, req: EmuRequest, res: EmuResponse): void {
  const id = cookies(req)[SESSION_COOKIE];
  if (id) state.sessions.delete(id);
  res.extraHeaders['set-cookie'] = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}
