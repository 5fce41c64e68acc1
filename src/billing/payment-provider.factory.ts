import type { Clock } from '../common/time';
import type { AppConfig } from '../config/app-config';
import { LocalPaymentProvider } from './local-payment.provider';
import type { PaymentProvider } from './payment-provider';
import type * as StripeAdapter from './stripe-payment.provider';

const STRIPE_REQUIRED = ['STRIPE_SECRET_KEY', 'STRIPE_PRICE_PRO_MONTH', 'STRIPE_PRICE_PRO_YEAR', 'STRIPE_PRICE_TEAM_MONTH', 'STRIPE_PRICE_TEAM_YEAR'] as const;

/** The adapter PAYMENT_PROVIDER names; Stripe without its key or any of its four prices stops start-up. */
export function createPaymentProvider(config: AppConfig, clock: Clock): PaymentProvider {
  if (config.PAYMENT_PROVIDER === 'local') return new LocalPaymentProvider(clock);
  const missing = STRIPE_REQUIRED.filter((name) => !config[name]);
  if (missing.length > 0) {
    throw new Error(`Invalid configuration:\n${missing.map((name) => `  ${name}: required when PAYMENT_PROVIDER=stripe`).join('\n')}`);
  }
  // Required here, not imported at the top: the Stripe SDK is a few hundred modules that
  // every start with the local provider (and every e2e test file's) would load for nothing.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { StripePaymentProvider } = require('./stripe-payment.provider') as typeof StripeAdapter;
  return new StripePaymentProvider({
    secretKey: config.STRIPE_SECRET_KEY!,
    prices: {
      pro: { month: config.STRIPE_PRICE_PRO_MONTH!, year: config.STRIPE_PRICE_PRO_YEAR! },
      team: { month: config.STRIPE_PRICE_TEAM_MONTH!, year: config.STRIPE_PRICE_TEAM_YEAR! },
    },
    host: config.STRIPE_API_HOST,
    port: config.STRIPE_API_PORT,
    protocol: config.STRIPE_API_PROTOCOL,
  });
}
