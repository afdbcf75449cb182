/** Options of the `api` commands, shared by the command declarations and their run modules. */
import type { ServiceName } from '../../../shared/services.js';

export interface ApiOptions {
  method?: string;
  header: string[];
  rawField: string[];
  field: string[];
  input?: string;
  paginate?: boolean;
  checkpoint?: string;
  include?: boolean;
  service: ServiceName;
  /** A stored hosting account instead of the active one. */
  user?: string;
  silent?: boolean;
}
