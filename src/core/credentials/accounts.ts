/**
 * Account names under Lanyard's keychain service `lanyard`. One scheme for all
 * services, so `auth status` can list everything:
 *   hosting:<api host>:<login>     token record (JSON) of a hosting account
 *   hosting:<api host>             the active login of that host (plain text)
 *   echo:apikey:<echo host>        the echo API key
 *   echo:idtoken:<idp host>        cached identity token
 *   protocol:<origin>              tokens of a context-protocol server (JSON)
 *   protocol-client:<origin>       its client registration (JSON)
 *   health:<auth host>             service-health token (JSON)
 */
export const KEYCHAIN_SERVICE = 'lanyard';

export function accountKey(service: string, ...parts: string[]): string {
  return [service, ...parts].join(':');
}

/** Host (with port) of a URL, lower-cased; the identity of a server in account names. */
export function hostOf(url: string): string {
  return new URL(url).host.toLowerCase();
}
