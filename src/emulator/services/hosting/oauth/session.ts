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

export function sessionUser(state: HostingState, req: EmuRequest): HostingUser | undefined {
  const id = cookies(req)[SESSION_COOKIE];
  const login = id ? state.sessions.get(id) : undefined;
  return login ? state.users.get(login) : undefined;
}

/** Checks a login and password; the user on success. */
export function checkPassword(state: HostingState, login: string | undefined, password: string | undefined): HostingUser | undefined {
  const u = login ? state.users.get(login) : undefined;
  return u && password && u.password === password ? u : undefined;
}

/** Starts a session for `login`: sets the cookie on the response. */
export function startSession(state: HostingState, res: EmuResponse, login: string): void {
  const id = hex(20);
  state.sessions.set(id, login);
  res.extraHeaders['set-cookie'] = `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`;
}

export function endSession(state: HostingState, req: EmuRequest, res: EmuResponse): void {
  const id = cookies(req)[SESSION_COOKIE];
  if (id) state.sessions.delete(id);
  res.extraHeaders['set-cookie'] = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}
