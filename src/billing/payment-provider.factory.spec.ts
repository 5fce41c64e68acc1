import { SystemClock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { validateEnv } from '../config/env.schema';
import { LocalPaymentProvider } from './local-payment.provider';
import { createPaymentProvider } from './payment-provider.factory';
import { StripePaymentProvider } from './stripe-payment.provider';

const config = (env: Record<string, string>) => AppConfig.from(validateEnv(env));
const STRIPE = {
  PAYMENT_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_abc123',
  STRIPE_PRICE_PRO_MONTH: 'price_a',
  STRIPE_PRICE_PRO_YEAR: 'price_b',
  STRIPE_PRICE_TEAM_MONTH: 'price_c',
  STRIPE_PRICE_TEAM_YEAR: 'price_d',
};

describe('createPaymentProvider', () => {
  it('is local unless told otherwise', () => {
    expect(createPaymentProvider(config({}), new SystemClock())).toBeInstanceOf(LocalPaymentProvider);
  });

  it('builds the Stripe adapter when its key and four prices are set', () => {
    expect(createPaymentProvider(config(STRIPE), new SystemClock())).toBeInstanceOf(StripePaymentProvider);
  });

  it('stops start-up naming each missing Stripe setting', () => {
    const { STRIPE_SECRET_KEY: _key, STRIPE_PRICE_TEAM_YEAR: _price, ...partial } = STRIPE;
    expect(() => createPaymentProvider(config(partial), new SystemClock())).toThrow(
      'Invalid configuration:\n  STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER=stripe\n  STRIPE_PRICE_TEAM_YEAR: required when PAYMENT_PROVIDER=stripe',
    );
  });

  it('refuses malformed Stripe settings in the environment check', () => {
    expect(() => config({ ...STRIPE, STRIPE_SECRET_KEY: 'pk_test_publishable' })).toThrow('STRIPE_SECRET_KEY must be a Stripe secret key');
    expect(() => config({ ...STRIPE, STRIPE_PRICE_PRO_MONTH: 'prod_123' })).toThrow('STRIPE_PRICE_PRO_MONTH must be a Stripe price id');
    expect(() => config({ PAYMENT_PROVIDER: 'paypal' })).toThrow('PAYMENT_PROVIDER');
  });
});
