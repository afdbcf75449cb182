/** HTML of the emulated sign-in, consent, device and application pages. */
import { escapeHtml as e } from '../../../router.js';

export function layout(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${e(title)} · Hosting emulator</title>` +
    '<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;color:#1f2328}' +
    'label{display:block;margin:.6rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}' +
    'button{margin:.8rem .5rem 0 0;padding:.4rem 1rem}.error{color:#b00020}.note{color:#57606a;font-size:.9rem}code{font-size:1.1rem}</style>' +
    `</head><body><h1>${e(title)}</h1>${body}</body></html>`
  );
}

export function hiddenFields(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${e(k)}" value="${e(v)}">`)
    .join('');
}

/** The login/password inputs (prefilled login), shown when no one is signed in or an account must be picked. */
export function credentialInputs(login: string | undefined): string {
  return (
    `<label for="login">Username</label><input type="text" id="login" name="login" autocomplete="username" value="${e(login ?? '')}">` +
    '<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password">'
  );
}

export function scopeList(scopes: readonly string[]): string {
  if (!scopes.length) return '<p>This application requests <strong>no scopes</strong>: read-only access to public information.</p>';
  return `<p>This application requests:</p><ul id="scopes">${scopes.map((s) => `<li><code>${e(s)}</code></li>`).join('')}</ul>`;
}

export function errorPage(title: string, message: string): string {
  return layout(title, `<p class="error" id="error">${e(message)}</p>`);
}

export interface ConsentPage {
  action: string;
  appName: string;
  scopes: readonly string[];
  hidden: Record<string, string | undefined>;
  /** Signed-in user, if any. */
  current?: string;
  /** The account picker: accounts signed in on this browser. */
  accounts?: readonly string[];
  /** Show the login/password inputs (no session, or the account picker). */
  askCredentials: boolean;
  suggestedLogin?: string;
  signupUrl?: string;
  error?: string;
  notes?: string[];
}

/** The sign-in and consent page: inputs `login`, `password`; buttons `authorize` = 1 / 0. */
export function consentPage(p: ConsentPage): string {
  const parts: string[] = [];
  if (p.error) parts.push(`<p class="error" id="error">${e(p.error)}</p>`);
  for (const n of p.notes ?? []) parts.push(`<p class="note">${e(n)}</p>`);
  parts.push(`<p><strong>${e(p.appName)}</strong> wants to access your account.</p>`);
  parts.push(scopeList(p.scopes));
  parts.push(`<form method="post" action="${e(p.action)}">${hiddenFields(p.hidden)}`);
  if (p.current && p.askCredentials) {
    const choices = (p.accounts?.length ? p.accounts : [p.current])
      .map((a) => `<label><input type="radio" name="account" value="${e(a)}"${a === p.current ? ' checked' : ''}> ${e(a)}</label>`)
      .join('');
    parts.push(
      `<fieldset id="account-picker"><legend>Choose an account</legend>${choices}</fieldset>` +
        `<p>Signed in as <strong>${e(p.current)}</strong>. Continue with the account chosen above, or sign in with another account:</p>`,
    );
  } else if (p.current) {
    parts.push(`<p id="signed-in">Signed in as <strong>${e(p.current)}</strong>.</p>`);
  } else {
    parts.push('<p>Sign in to continue.</p>');
  }
  if (p.askCredentials) parts.push(credentialInputs(p.suggestedLogin ?? (p.current ? '' : undefined)));
  parts.push('<button type="submit" name="authorize" value="1" id="authorize">Authorize</button>');
  parts.push('<button type="submit" name="authorize" value="0" id="cancel">Cancel</button></form>');
  if (p.signupUrl && !p.current) parts.push(`<p class="note">New here? <a id="signup" href="${e(p.signupUrl)}">Create an account</a></p>`);
  return layout('Authorize application', parts.join(''));
}
