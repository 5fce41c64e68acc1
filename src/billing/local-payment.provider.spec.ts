import { Clock } from '../common/time';
import { LocalPaymentProvider } from './local-payment.provider';

class FixedClock extends Clock {
  constructor(public at: Date) {
    super();
  }
  now(): Date {
    return this.at;
  }
}

describe('LocalPaymentProvider', () => {
  const clock = new FixedClock(new Date('2025-01-31T10:00:00.000Z'));
  const local = new LocalPaymentProvider(clock);

  it('accepts payment method ids and refuses anything else before storing it', () => {
    expect(local.tokenProblem('pm_card_visa')).toBeNull();
    expect(local.tokenProblem('pm_1PqRsTuVwXyZ')).toBeNull();
    for (const bad of ['', 'pm_', 'tok_visa', '4242424242424242', 'pm_card visa', 'pm_' + 'x'.repeat(201), 'pm_é']) {
      expect(local.tokenProblem(bad)).toContain('paymentMethodToken');
    }
  });

  it('stores a digest of the token, never the token', async () => {
    const attached = await local.attachPaymentMethod(null, 'pm_secretish_123');
    expect(attached.ref).toMatch(/^local_[0-9a-f]{32}$/);
    expect(attached.ref).not.toContain('secretish');
    expect(local.refOf('pm_secretish_123')).toBe(attached.ref);
    expect(attached.card).toEqual({ brand: null, last4: null, expMonth: null, expYear: null });
  });

  it('shows brand and last four of Stripe’s test payment methods', async () => {
    expect((await local.attachPaymentMethod(null, 'pm_card_mastercard')).card).toMatchObject({ brand: 'mastercard', last4: '4444' });
  });

  it('runs periods by the calendar from activation; a change of interval starts a new one', async () => {
    const started = await local.subscribe({ interval: 'month' });
    expect(started).toEqual({ ref: null, itemRef: null, periodAnchor: clock.at, currentPeriodEnd: new Date('2025-02-28T10:00:00.000Z') });
    const current = {
      ref: null,
      itemRef: null,
      tier: 'pro' as const,
      interval: 'month' as const,
      periodAnchor: started.periodAnchor,
      currentPeriodEnd: started.currentPeriodEnd,
    };
    clock.at = new Date('2025-03-05T00:00:00.000Z');
    expect((await local.changeSubscription(current, 'team', 'month')).currentPeriodEnd.toISOString()).toBe('2025-03-31T10:00:00.000Z');
    const yearly = await local.changeSubscription(current, 'pro', 'year');
    expect(yearly.periodAnchor).toEqual(clock.at);
    expect(yearly.currentPeriodEnd.toISOString()).toBe('2026-03-05T00:00:00.000Z');
    expect((await local.cancelAtPeriodEnd(current)).currentPeriodEnd.toISOString()).toBe('2025-03-31T10:00:00.000Z');
  });
});
