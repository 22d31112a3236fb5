import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api, ApiError, call, callWrite, type Plan } from '../api/client';
import { useInvalidate, useMe, usePlans } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { useActionKeys } from '../lib/action-keys';
import { Capacities } from '../components/layout';
import { Empty, ErrorState, Loading } from '../components/status';
import { formatMoney } from '../lib/format';

const PER: Record<Plan['interval'], string> = { day: 'day', week: 'week', month: 'month', year: 'year' };

function useGoTo<TVars>(fn: (v: TVars) => Promise<{ url: string }>, onSettled?: (v: TVars) => void) {
  return useMutation({
    mutationFn: fn,
    onSuccess: ({ url }) => window.location.assign(url),
    onSettled: (_data, _error, v) => onSettled?.(v),
  });
}

export function PlansPage() {
  const [params] = useSearchParams();
  // Checkout may return here with its outcome in the query.
  if (params.has('checkout') || params.has('session_id')) return <BillingReturnPage />;
  return <PlanList />;
}

function PlanList() {
  const me = useMe();
  const plans = usePlans();
  const keys = useActionKeys();
  const checkout = useGoTo(
    (price_id: string) =>
      callWrite(keys.keyFor(['checkout', price_id]), (header) => api.POST('/api/pay/checkout', { params: { header }, body: { price_id } })),
    (price_id) => keys.settled(['checkout', price_id]),
  );
  const portal = useGoTo(() => call(api.POST('/api/pay/portal')));
  const subscribed = Boolean(me.data?.pay_subscription_id);
  const alreadySubscribed = checkout.error instanceof ApiError && checkout.error.status === 409;

  return (
    <>
      <h1>Plans</h1>
      {me.data && (
        <div className="card">
          <p>
            Your capacities: <strong className="num">{me.data.bet_capacity}</strong> open {me.data.bet_capacity === 1 ? 'bet' : 'bets'} and{' '}
            <strong className="num">{me.data.follow_capacity}</strong> followed {me.data.follow_capacity === 1 ? 'trader' : 'traders'}.
            {subscribed
              ? ' You have an active plan: switch to another one or cancel it in the billing portal. A switch applies at once; a cancelled plan runs to the end of the period you paid for.'
              : ' You are on the free plan.'}
          </p>
          {(subscribed || alreadySubscribed) && (
            <button type="button" className="btn" onClick={() => portal.mutate(undefined)} disabled={portal.isPending}>
              Change plan or cancel
            </button>
          )}
          {portal.isError && <ErrorState error={portal.error} />}
        </div>
      )}
      {plans.isPending && <Loading />}
      {plans.isError && <ErrorState error={plans.error} retry={() => void plans.refetch()} />}
      {plans.data && plans.data.plans.length === 0 && <Empty>No plans are on offer right now.</Empty>}
      {plans.data && plans.data.plans.length > 0 && (
        <ul className="plans" data-testid="plans">
          {plans.data.plans.map((plan) => (
            <li key={plan.price_id} className="plan card">
              <h2>{plan.name ?? 'Plan'}</h2>
              <p className="plan-price">
                <span className="num">{formatMoney(plan.amount, plan.currency)}</span> <span className="muted">/ {PER[plan.interval]}</span>
              </p>
              {plan.description && <p className="muted">{plan.description}</p>}
              <ul className="plan-perks">
                <li>
                  +<span className="num">{plan.extra_bets}</span> open {plan.extra_bets === 1 ? 'bet' : 'bets'}
                </li>
                <li>
                  +<span className="num">{plan.extra_slots}</span> followed {plan.extra_slots === 1 ? 'trader' : 'traders'}
                </li>
              </ul>
              {me.data && subscribed ? (
                // A subscriber moves between plans in the portal (prorated there), never through a second checkout.
                <button type="button" className="btn" disabled={portal.isPending} onClick={() => portal.mutate(undefined)}>
                  Switch in the billing portal
                </button>
              ) : me.data ? (
                <button
                  type="button"
                  className="btn btn-primary"
                  disabled={checkout.isPending}
                  onClick={() => checkout.mutate(plan.price_id)}
                  aria-label={`Choose ${plan.name ?? plan.price_id}`}
                >
                  Choose
                </button>
              ) : (
                <Link to="/login?next=/plans" className="btn btn-primary">
                  Log in to choose
                </Link>
              )}
            </li>
          ))}
        </ul>
      )}
      {alreadySubscribed && (
        <p className="alert alert-warn" role="alert">
          You already have a plan. Switch or cancel it under Change plan or cancel.
        </p>
      )}
      {checkout.isError && !alreadySubscribed && <ErrorState error={checkout.error} />}
    </>
  );
}

/**
 * Where checkout returns. The checkout address alone changes nothing: the plan
 * applies once the provider confirms it, so the page waits for /me to show it.
 */
export function BillingReturnPage() {
  const invalidate = useInvalidate();
  const me = useMe();
  const before = useRef<{ bets: number; follows: number; sub: string | null } | null>(null);
  if (before.current === null && me.data) {
    before.current = { bets: me.data.bet_capacity, follows: me.data.follow_capacity, sub: me.data.pay_subscription_id ?? null };
  }
  const confirmed = Boolean(me.data?.pay_subscription_id);
  useEffect(() => {
    if (confirmed) {
      invalidate(queryKeys.portfolio);
      return;
    }
    const id = setInterval(() => invalidate(queryKeys.me), 2000);
    return () => clearInterval(id);
  }, [confirmed, invalidate]);
  const cancelled = /cancel/i.test(window.location.pathname + window.location.search) && !/success/i.test(window.location.search);

  if (me.isPending) return <Loading />;
  if (!me.data) return <ErrorState error={new Error('Log in to see your plan.')} />;
  if (cancelled && !confirmed) {
    return (
      <>
        <h1>Checkout cancelled</h1>
        <p>
          Nothing was charged and your plan is unchanged. <Link to="/plans">Back to the plans</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Thank you</h1>
      {confirmed ? (
        <p className="alert alert-ok" role="status" data-testid="upgrade-confirmed">
          Your plan is active. You can now have <strong className="num">{me.data.bet_capacity}</strong> open{' '}
          {me.data.bet_capacity === 1 ? 'bet' : 'bets'} and follow <strong className="num">{me.data.follow_capacity}</strong>{' '}
          {me.data.follow_capacity === 1 ? 'trader' : 'traders'}.
        </p>
      ) : (
        <p className="alert alert-info" role="status" data-testid="upgrade-pending">
          Your upgrade applies once the payment provider confirms it, usually within seconds. This page updates by itself.
        </p>
      )}
      <Capacities user={me.data} label="Your capacities now" />
      <p>
        <Link to="/portfolio">Go to your portfolio</Link>
      </p>
    </>
  );
}
