/** Options of the `protocol` commands, shared by the command declarations and their run modules. */
import type { ProtocolRevision } from '../../../shared/constants.js';

export interface ProtocolRequestOptions {
  method?: string;
  params?: string;
  json?: boolean;
  scopes?: string;
  clientId?: string;
  clientCredentials?: boolean;
  browser?: boolean;
  timeout?: string;
  clientMetadataUrl?: string;
  clientKey?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  workloadTokenFile?: string;
  dpop?: boolean;
  resource?: string | false;
  authParam?: Record<string, string>;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  elicitation?: string;
  protocolVersion?: ProtocolRevision;
}

export interface ProtocolBridgeOptions {
  scopes?: string;
  clientId?: string;
  clientCredentials?: boolean;
  browser?: boolean;
  timeout?: string;
  signInWait?: string;
  clientMetadataUrl?: string;
  clientKey?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  workloadTokenFile?: string;
  dpop?: boolean;
  resource?: string | false;
  authParam?: Record<string, string>;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
}
