/**
 * Whether a sign-in that needs a person (a browser page, a code to enter) may
 * start. It may when standard input and standard error are both terminals, or
 * when LANYARD_BROWSER names the program the sign-in page is handed to (an
 * automated sign-in, as in tests); never with LANYARD_PROMPT_DISABLED set.
 * Otherwise the command ends at once with exit 4 and what would work instead,
 * rather than printing a URL into a pipe and waiting minutes for no one.
 */
import { AuthRequiredError } from '../../core/errors.js';
import type { IO } from '../io.js';

export function promptDisabled(env: NodeJS.ProcessEnv): boolean {
  const v = env.LANYARD_PROMPT_DISABLED;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * Why no interactive sign-in may start, or undefined when it may.
 * `stdinIsInput`: the command read its input from stdin (a client secret
 * piped in), so only standard error tells whether a person is there.
 */
export function noPersonReason(io: IO, env: NodeJS.ProcessEnv, stdinIsInput = false): string | undefined {
  if (promptDisabled(env)) return 'LANYARD_PROMPT_DISABLED is set';
  if (env.LANYARD_BROWSER) return undefined;
  if (!stdinIsInput && !io.stdinIsTTY) return 'standard input is not a terminal';
  if (!io.stderrIsTTY) return 'standard error is not a terminal';
  return undefined;
}

/**
 * Throws exit 4 when no person can finish `signIn` ("the device sign-in");
 * `instead` names the command or variable that works without one.
 */
export function requirePerson(ctx: { io: IO; env: NodeJS.ProcessEnv }, signIn: string, instead: string, o: { stdinIsInput?: boolean } = {}): void {
  const why = noPersonReason(ctx.io, ctx.env, o.stdinIsInput);
  if (why) throw new AuthRequiredError(`${signIn} needs a person at a terminal, and ${why}: not starting it`, { hint: instead });
}

/**
 * An ssh session with no display (SSH_CONNECTION or SSH_TTY set,
 * neither DISPLAY nor WAYLAND_DISPLAY), and no browser command named
 * (LANYARD_BROWSER, BROWSER): no browser can open on this machine, and one on
 * the person's own computer cannot reach a redirect to 127.0.0.1 here. As gh
 * does, a sign-in then does not pretend to open a browser.
 */
export function remoteWithoutDisplay(env: NodeJS.ProcessEnv): boolean {
  const ssh = !!(env.SSH_CONNECTION || env.SSH_TTY);
  return ssh && !env.DISPLAY && !env.WAYLAND_DISPLAY && !env.LANYARD_BROWSER && !env.BROWSER;
}

/**
 * In an ssh session with no display (remoteWithoutDisplay), a browser sign-in
 * whose page redirects to a loopback listener here cannot finish without a
 * person who forwards its port: with nobody at a terminal it ends at once,
 * exit 4 (`hint`: what works instead), rather than wait minutes for no one.
 * Returns whether the session is such a one (the URL then comes with the
 * `ssh -L` advice of loopbackOverSsh, and no browser is opened).
 */
export function refuseRemoteWithoutPerson(ctx: { io: IO; env: NodeJS.ProcessEnv }, signIn: string, hint: string, o: { stdinIsInput?: boolean } = {}): boolean {
  const remote = remoteWithoutDisplay(ctx.env);
  const nobody = remote && noPersonReason(ctx.io, ctx.env, o.stdinIsInput);
  if (nobody)
    throw new AuthRequiredError(`${signIn} cannot finish in an ssh session with no display (${nobody}): its page redirects to 127.0.0.1 on this machine`, {
      hint,
    });
  return remote;
}

/** Whether `url` is served on this machine's loopback (a browser elsewhere reaches it only through a forwarded port). */
export function onLoopback(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The lines that say why no browser opens in an ssh session with no display
 * and how a browser on the person's own computer reaches `loopback` (a URL on
 * this machine's 127.0.0.1, `what` it is: "the sign-in page redirects to"):
 * the `ssh -L` forward of its port, to do what (`to`: "sign in").
 */
export function sshForwardAdvice(what: string, loopback: string, to = 'sign in'): string[] {
  const port = URL.canParse(loopback) ? new URL(loopback).port : '';
  return [
    `This is an ssh session with no display: no browser can open here, and ${what}`,
    `${loopback || 'a port on 127.0.0.1'} on this machine, which a browser on your own computer cannot reach by itself.`,
    `To ${to} from your computer, first forward port ${port} (a new ssh connection, or the ~C escape): ssh -L ${port}:127.0.0.1:${port} <this host>`,
  ];
}

/**
 * What to do in an ssh session with no display when a sign-in page redirects
 * to a loopback listener on this machine (`url` carries its redirect_uri): a
 * browser elsewhere reaches it only through a forwarded port. `instead`: the
 * last line, what else works.
 */
export function loopbackOverSsh(url: string, instead: string): string {
  const redirect = new URL(url).searchParams.get('redirect_uri') ?? '';
  return [...sshForwardAdvice('the sign-in page redirects to', redirect), `then open this URL there:\n  ${url}`, instead].join('\n');
}
