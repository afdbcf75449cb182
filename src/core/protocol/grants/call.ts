/** What every token request of a grant carries: plain data (the signer of a DPoP-bound request aside). */
import type { HttpResponse } from '../../http/client.js';
import type { DpopProver } from '../dpop.js';
import type { ClientIdentity } from '../registration.js';

export interface TokenCall {
  readonly tokenEndpoint: string;
  /** The authorization server's issuer (the audience of a private_key_jwt assertion). */
  readonly issuer: string;
  readonly client: ClientIdentity;
  /** Epoch ms. */
  readonly now: number;
  readonly signal?: AbortSignal;
  /** The signer when the tokens are to be DPoP-bound (RFC 9449). */
  readonly dpop?: DpopProver;
}

export type { HttpResponse };
export { processTokenResponse } from '../token.js';
