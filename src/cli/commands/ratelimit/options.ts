/** Options of the `ratelimit` commands, shared by the command declarations and their run modules. */

export interface RatelimitStatusOptions {
  resource?: string;
  failUnder?: string;
  user?: string;
}

export interface RatelimitWaitOptions {
  resource?: string;
  min?: string;
  user?: string;
}
