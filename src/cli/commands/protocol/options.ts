/** Options of the `protocol` commands, shared by the command declarations and their run modules. */
import type { ProtocolRevision } from '../../../shared/constants.js';
import type { ProtocolClientAuthOptions } from '../../services/protocol/wiring.js';

export interface ProtocolRequestOptions extends ProtocolClientAuthOptions {
  method?: string;
  params?: string;
  scopes?: string;
  clientCredentials?: boolean;
  browser?: boolean;
  elicitation?: string;
  protocolVersion?: ProtocolRevision;
}

export interface ProtocolBridgeOptions extends ProtocolClientAuthOptions {
  scopes?: string;
  clientCredentials?: boolean;
  browser?: boolean;
  signInWait?: string;
}
