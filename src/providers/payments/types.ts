// The payment layer's contract. Two providers: Stripe (a real account) and the
// local provider (plans from a file, confirmation on a page the service serves).
import type { StripePlan } from '../../schemas/payments.js';

/** The provider failed (network, non-2xx, malformed answer) → 500 per SPEC. */
export class PaymentProviderError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`Payment provider failed: ${reason}`, options);
    this.name = 'PaymentProviderError';
  }
}

export interface CheckoutParams {
  userId: number;
  customerId: string;
  plan: StripePlan;
  successUrl: string;
  cancelUrl: string;
}

export interface PaymentProvider {
  readonly kind: 'stripe' | 'local';
  /** The plans on offer; throws PaymentProviderError. */
  plans(): Promise<StripePlan[]>;
  /** A new customer record for the user; the caller remembers it. */
  createCustomer(user: { id: number; email: string; created_at: number }): Promise<string>;
  /** The hosted checkout's address; nothing is bought until the provider confirms. */
  createCheckout(params: CheckoutParams): Promise<string>;
  /** The customer portal's address. */
  createPortal(params: { customerId: string; returnUrl: string }): Promise<string>;
}
