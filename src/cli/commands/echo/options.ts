/** Options of the `echo` commands, shared by the command declarations and their run modules. */

export interface EchoSendOptions {
  stdin?: boolean;
}

export interface EchoTokenOptions {
  scheme: string;
  credentials?: string;
  audience?: string;
  issuer?: string;
  lifetime?: string;
  project?: string;
  clientId?: string;
  loginHint?: string;
  browser?: boolean;
  fresh?: boolean;
}

/** `echo key set|delete` take no options of their own (the output options are the Output's). */
export type EchoKeyOptions = Record<string, never>;
