import { HttpException } from '@nestjs/common';

import { deployOutcomeOf } from './deploy-outcome';

describe('deployOutcomeOf', () => {
  it('counts answers in the 4xx range as refused (quota 402, invalid files 400, 413)', () => {
    for (const status of [400, 402, 409, 413]) expect(deployOutcomeOf(new HttpException('refused', status))).toBe('refused');
  });

  it('counts 5xx answers and unexpected errors as failed', () => {
    expect(deployOutcomeOf(new HttpException('storage down', 503))).toBe('failed');
    expect(deployOutcomeOf(new Error('boom'))).toBe('failed');
    expect(deployOutcomeOf(undefined)).toBe('failed');
  });
});
