/**
 * The one sanitiser at the terminal boundary: everything Lanyard writes to a
 * terminal (stdout and stderr, the pager's input; `--jq` and `--template`
 * results, tables, bodies, prompts, errors) passes through `terminalText`, in
 * io.ts and pager.ts. Control characters become visible caret notation, as
 * the code host's CLI shows them (its asciisanitizer): ESC is `^[`, BEL `^G`,
 * a bare CR `^M`, DEL `^?`, a C1 control such as U+009B (CSI) `^[[`; the
 * Unicode bidirectional controls are shown as `<U+202E>`. Newlines and tabs
 * stay. With colour on, the colour sequences Lanyard writes itself
 * (`ESC [ digits ; m`, SGR) stay; every other escape sequence is shown.
 *
 * Output that is not a terminal (a pipe, a file) is never changed: JSON keeps
 * its exact bytes there. See docs/security.md.
 */

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_OR_SGR = /\u001b\[[0-9;]*m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function caret(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  if (code <= 0x9f) return `^[${String.fromCharCode(code - 0x40)}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** `text` fit for a terminal: controls in caret notation; Lanyard's own colour kept when `keepColor`. */
export function terminalText(text: string, keepColor = false): string {
  return keepColor ? text.replace(CONTROL_OR_SGR, (m) => (m.length > 1 ? m : caret(m))) : text.replace(CONTROL, caret);
}
