import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { runDeviceFlow } from '../../../../src/core/hosting/device-flow.js';
import { HttpClient } from '../../../../src/core/http/client.js';

describe('runDeviceFlow over HTTP', () => {
  let stub: StubHttp | undefined;
  afterEach(async () => {
    await stub?.close();
  });

  it('requests a code, shows it, then polls; errors arrive with HTTP 200 in form encoding', async () => {
    stub = await StubHttp.start();
    stub.on('POST', '/login/device/code', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'device_code=' + 'd'.repeat(40) + '&user_code=WDJB-MJHT&verification_uri=http%3A%2F%2Fweb%2Flogin%2Fdevice&expires_in=900&interval=5',
    });
    stub.on('POST', '/login/oauth/access_token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'error=authorization_pending&error_description=pending',
    });
    stub.on('POST', '/login/oauth/access_token', {
      headers: { 'content-type': 'application/xml' },
      body: '<OAuth><error>slow_down</error><interval>10</interval></OAuth>',
    });
    stub.on('POST', '/login/oauth/access_token', { body: { access_token: 'lyo_done', token_type: 'bearer', scope: 'repo,read:org' } });
    const clock = new FakeClock();
    const http = new HttpClient({ clock, userAgent: 'test' });
    const shown: string[] = [];
    const token = await runDeviceFlow({
      http,
      clock,
      webUrl: stub.url,
      clientId: 'cid',
      scopes: ['repo', 'read:org'],
      onCode: (a) => void shown.push(a.userCode),
    });
    expect(token).toMatchObject({ accessToken: 'lyo_done', scopes: ['repo', 'read:org'] });
    expect(shown).toEqual(['WDJB-MJHT']);
    expect(clock.sleeps).toEqual([5000, 5000, 10000]);
    const codeReq = new URLSearchParams(stub.requests[0]!.body);
    expect(codeReq.get('client_id')).toBe('cid');
    expect(codeReq.get('scope')).toBe('repo read:org');
    const poll = new URLSearchParams(stub.requests[1]!.body);
    expect(poll.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:device_code');
    expect(poll.get('device_code')).toBe('d'.repeat(40));
    expect(poll.has('client_secret')).toBe(false);
    stub.verify();
    await http.close();
  });

  it('device_flow_disabled on the code request is a clear error', async () => {
    stub = await StubHttp.start();
    stub.on('POST', '/login/device/code', {
      status: 400,
      body: { error: 'device_flow_disabled', error_description: 'Device flow must be explicitly enabled for this app' },
    });
    const clock = new FakeClock();
    const http = new HttpClient({ clock, userAgent: 'test' });
    await expect(runDeviceFlow({ http, clock, webUrl: stub.url, clientId: 'cid', onCode: () => undefined })).rejects.toThrow(/device flow is not enabled/);
    await http.close();
  });
});
