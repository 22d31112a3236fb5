// After sign-up, the page the new account lands on says where the
// verification link went (issue 36, item 11). The address travels in the
// navigation's state, so the notice shows once, on that page, and a reload
// or a link followed later does not bring it back.
import { Link, Outlet, useLocation } from 'react-router-dom';

/** The navigation state RegisterPage hands to the page it opens. */
export interface SignedUpState {
  verificationSentTo: string;
}

export function signedUpState(email: string): SignedUpState {
  return { verificationSentTo: email };
}

function sentTo(state: unknown): string | null {
  const to = (state as Partial<SignedUpState> | null)?.verificationSentTo;
  return typeof to === 'string' && to !== '' ? to : null;
}

/** The routes' wrapper: the notice above whatever page the new account opens on. */
export function SignUpNotice() {
  const location = useLocation();
  const to = sentTo(location.state);
  return (
    <>
      {to && (
        <p className="alert alert-ok" role="status" data-testid="verification-sent">
          <span>
            Welcome! Your account is ready. We sent a verification link to <strong>{to}</strong>: open it to confirm your address. No email?{' '}
            <Link to="/settings">Send it again from Settings</Link>.
          </span>
        </p>
      )}
      <Outlet />
    </>
  );
}
