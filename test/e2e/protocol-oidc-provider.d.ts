/** The little of oidc-provider's API the interoperability test uses (the package ships no types). */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export const errors: { InvalidTarget: new () => Error };
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    AccessToken: { find(token: string): Promise<{ isExpired: boolean; aud?: string; accountId: string; scope?: string } | undefined> };
  }
}
