// Chooses the payment provider from the configuration.
import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
import { DEFAULT_PLANS_FILE, type LocalCheckoutStore, LocalPaymentProvider, loadPlansFile } from './local.js';
import { StripePaymentProvider } from './stripe.js';
import type { PaymentProvider } from './types.js';

export function createPaymentProvider(config: Config, clock: Clock, localCheckouts: LocalCheckoutStore): PaymentProvider {
  const { secretKey, webhookSecret, apiUrl } = config.stripe;
  if (secretKey !== null && webhookSecret !== null) return new StripePaymentProvider({ secretKey, webhookSecret, apiUrl, clock });
  return new LocalPaymentProvider({ checkouts: localCheckouts, clock, publicUrl: config.publicUrl, plans: loadPlansFile(DEFAULT_PLANS_FILE) });
}
