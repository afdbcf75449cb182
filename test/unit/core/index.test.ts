/**
 * Type tests of the library's main entry points (src/core/index.ts, the
 * package's `lanyard-cli`): vitest's expectTypeOf, checked by `tsc --noEmit`
 * (npm test's typecheck) — a changed signature fails the type check even when
 * the API report was regenerated without a look.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as lanyard from '../../../src/core/index.js';
import type {
  Clock,
  Credential,
  CredentialStore,
  DeviceAuthorization,
  DeviceFlowOptions,
  HttpClientOptions,
  PollEvent,
  ProtocolSessionDeps,
  ProtocolCallOptions,
  ProtocolCallResult,
  RateLimitDecision,
  RateLimitOverview,
  RateLimitPolicy,
  StreamedBody,
  TokenSet,
} from '../../../src/core/index.js';

describe('lanyard-cli entry point', () => {
  it('the device flow: options with a prompt callback and progress events, a token set back', () => {
    expectTypeOf(lanyard.runDeviceFlow).parameter(0).toEqualTypeOf<DeviceFlowOptions>();
    expectTypeOf(lanyard.runDeviceFlow).returns.toEqualTypeOf<Promise<TokenSet>>();
    expectTypeOf<DeviceFlowOptions['onCode']>().toEqualTypeOf<(auth: DeviceAuthorization) => void | Promise<void>>();
    expectTypeOf<DeviceFlowOptions>().toHaveProperty('signal').toEqualTypeOf<AbortSignal | undefined>();
    expectTypeOf<PollEvent['kind']>().toEqualTypeOf<'pending' | 'slow_down' | 'network_error'>();
    expectTypeOf<TokenSet>().toHaveProperty('accessToken').toEqualTypeOf<string>();
    expectTypeOf<TokenSet>().toHaveProperty('scopes').toEqualTypeOf<readonly string[]>();
  });

  it('the rate-limit policy: a plain object, a pure decision, the budgets', () => {
    expectTypeOf(lanyard.defaultRateLimitPolicy).toEqualTypeOf<RateLimitPolicy>();
    expectTypeOf<RateLimitPolicy>().toEqualTypeOf<{
      wait: boolean;
      maxWaitMs: number;
      serverWaitMs?: number;
      maxPrimaryRetries: number;
      maxSecondaryRetries: number;
      secondaryBaseWaitMs: number;
    }>();
    expectTypeOf(lanyard.decideRateLimit).returns.toEqualTypeOf<RateLimitDecision>();
    expectTypeOf<Extract<RateLimitDecision, { action: 'wait' }>>().toHaveProperty('waitMs').toEqualTypeOf<number>();
    expectTypeOf(lanyard.fetchRateLimit).returns.toEqualTypeOf<Promise<RateLimitOverview>>();
    expectTypeOf<HttpClientOptions>().toHaveProperty('rateLimitPolicy').toEqualTypeOf<RateLimitPolicy | undefined>();
    expectTypeOf<HttpClientOptions>().toHaveProperty('clock').toEqualTypeOf<Clock>();
  });

  it('credentials and stores', () => {
    expectTypeOf<lanyard.MemoryCredentialStore>().toMatchTypeOf<CredentialStore>();
    expectTypeOf<lanyard.FileCredentialStore>().toMatchTypeOf<CredentialStore>();
    expectTypeOf<lanyard.KeychainCredentialStore>().toMatchTypeOf<CredentialStore>();
    expectTypeOf(lanyard.openCredentialStore).returns.toEqualTypeOf<Promise<CredentialStore>>();
    expectTypeOf<Credential['scheme']>().toEqualTypeOf<'none' | 'bearer' | 'dpop' | 'basic' | 'query' | 'header'>();
  });

  it('the mailbox streams, the protocol client, the error family', () => {
    expectTypeOf<lanyard.MailboxClient['raw']>().returns.toEqualTypeOf<Promise<StreamedBody>>();
    expectTypeOf(lanyard.callProtocolServer).parameters.toEqualTypeOf<[ProtocolSessionDeps, ProtocolCallOptions]>();
    expectTypeOf(lanyard.callProtocolServer).returns.toEqualTypeOf<Promise<ProtocolCallResult>>();
    expectTypeOf<lanyard.RateLimitError>().toMatchTypeOf<lanyard.LanyardError>();
    expectTypeOf<lanyard.AuthRequiredError>().toMatchTypeOf<lanyard.LanyardError>();
    expectTypeOf<lanyard.HttpError>().toHaveProperty('status').toEqualTypeOf<number>();
  });

  it('exports the values the guide uses, and no CLI or terminal piece', () => {
    for (const name of [
      'HttpClient',
      'systemClock',
      'runDeviceFlow',
      'defaultRateLimitPolicy',
      'fetchRateLimit',
      'MailboxClient',
      'callProtocolServer',
      'LanyardError',
    ])
      expect(lanyard).toHaveProperty(name);
    expect(Object.keys(lanyard).filter((k) => /program|render|spinner|io$|exit/i.test(k))).toEqual([]);
  });
});
