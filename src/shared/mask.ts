/** How every command shows a secret it must not print: enough to recognise it, not to use it. */
export function maskSecret(secret: string): string {
  if (secret.length <= 12) return '*'.repeat(Math.max(8, secret.length));
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}
