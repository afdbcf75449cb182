/** Options of the `emulator` commands, shared by the command declarations and their run modules. */

export interface EmulatorStartOptions {
  port?: string;
  host?: string;
  dataDir?: string;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  allowHost?: string[];
  publicHost?: string;
  profile?: boolean;
  quiet?: boolean;
}

export interface EmulatorTargetOptions {
  url?: string;
}

export interface EmulatorRequestsOptions extends EmulatorTargetOptions {
  follow?: boolean;
  service?: string;
}
