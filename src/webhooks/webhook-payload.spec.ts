import { Webhook as StandardWebhook } from 'standardwebhooks';

import type { EventBody } from '../events/events';
import { requestBody, signedHeaders, slackMessage } from './webhook-payload';

const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const event: EventBody = {
  type: 'deployment.created',
  timestamp: '2026-11-26T12:00:00.000Z',
  workspaceId: 'ws_1',
  data: { projectId: 'proj_1', projectSlug: 'a<b>', deploymentId: 'dep_1', version: 3, url: 'https://a.sites.test/', live: true, createdBy: 'usr_1' },
};

describe('signedHeaders', () => {
  it('signs so that the standardwebhooks package verifies it, and nothing else', () => {
    const body = requestBody('standard', event);
    const headers = signedHeaders(secret, 'msg_1', new Date(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,/);
    expect(new StandardWebhook(secret).verify(body, headers)).toEqual(event);
    expect(() => new StandardWebhook(secret).verify(body.replace('dep_1', 'dep_2'), headers)).toThrow();
    expect(() => new StandardWebhook(`whsec_${Buffer.alloc(24, 8).toString('base64')}`).verify(body, headers)).toThrow();
  });
});

describe('slackMessage', () => {
  it('says what happened in one line, names escaped, with the link', () => {
    expect(slackMessage(event).text).toBe('New deployment v3 in *a&lt;b&gt;* (live) <https://a.sites.test/|open>');
    expect(JSON.parse(requestBody('slack', event))).toHaveProperty('blocks');
  });
});
