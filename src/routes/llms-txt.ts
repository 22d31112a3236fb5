/** A concise plain-text guide for automated clients (https://llmstxt.org). */
export function llmsTxt(base: string, webUrl: string): string {
  return `# Paper-trading bets API

> A social paper-trading service: users bet LONG or SHORT on tickers at prices the server sets,
> close or cancel their bets, climb a public leaderboard and follow each other. No real money moves.

- OpenAPI 3.1 description: ${base}/openapi.json
- Human API reference: ${base}/docs
- API catalog: ${base}/.well-known/api-catalog
- Web application: ${webUrl}

## Authentication

1. POST ${base}/register with {"username", "email", "password"} (password at least 15 characters). It sets no cookie.
2. POST ${base}/login with {"email", "password"}. The answer sets the HttpOnly cookie \`auth_token\` (and \`signed_in=1\`, a marker for the web app: no secret, never read by the server).
3. Send that cookie with every later request. POST ${base}/logout ends the session.
There is no OAuth, no bearer token and no API key. Endpoints marked with the cookieAuth security
scheme answer 401 without a valid session.

## Main operations

- GET /price/{ticker}: current price. POST /bet/open {"ticker", "direction": "LONG"|"SHORT", "target_date"?}.
- GET /instruments?q&limit&offset&sort: tradable instruments by symbol or name, with market hours and daily change
  (sort=consensus: by skill-weighted long share); GET /instruments/{symbol}?range: one with its chart.
  These and GET /price/{ticker}/history need no session; without one they answer the quotes the service already holds (quote null for others).
- GET /instruments/{symbol}/consensus (no session): holders now, raw (every account counts one) and weighted by each
  holder's ranked skill (GET /rankings' default window; weight max(skill, 0), so fresh accounts weigh nothing), shown
  from a minimum of weighted holders; and the record of its call stored at each close (hit rate, average next-day move,
  count). Answers are shared for up to cached_seconds (30).
- GET /users/search?q (session) finds traders; GET /user/{user_id}/stats gives score (total_gain), ranked_trades and followers.
- POST /bet/close {"bet_id"}; DELETE /bet/{bet_id} cancels within 5 minutes of opening.
- GET /portfolio, GET /history?limit&offset, GET /leaderboard, GET /feed, POST /follow.
- GET /leaderboard/ranked?period&min_trades&limit&offset: the ranked board, same rows and parameters as GET /leaderboard,
  summing ranked gains only: a bet still open when its 5-minute cancel window ended counts from its price at that instant
  to its exit; a bet closed or cancelled inside the window never counts. GET /rankings uses ranked bets too.
- POST /bet/{bet_id}/tail or /fade: open the same or the opposite bet as another trader's open bet (opens a bet).
- POST /alerts {"ticker", "kind": "above"|"below"|"move", "value"} (201, the alert with its id): a notice once, at the
  first published quote at or beyond the price (above/below), or whose change since the previous close (the
  directory's change_percent) reaches value % either way (move); the quote in force when set counts. GET /alerts
  lists the caller's, active and fired (fired_at, fired_price); DELETE /alerts/{alert_id} removes one. Active alerts
  are capped per user (403 LIMIT_REACHED).
- Theses: POST /bet/open takes an optional "thesis" (at most 280 characters of plain text; control and text-direction
  characters answer 400), given at opening only and never editable. Bet views carry thesis, thesis_salt and thesis_state
  (shown, hidden, reported). POST /bet/{bet_id}/thesis/hide (the owner) stops serving its text; the record keeps its salted
  hash. POST /bet/{bet_id}/thesis/report (once per user; counts only from verified accounts with a ranked bet).
  Write a thesis only with the user's own words, on their explicit instruction; report only on their explicit instruction.
- Exits: POST /bet/open also takes "stop_loss" (-99 to -0.01) and "take_profit" (0.01 to 10000), percent of gain from
  entry; PUT /bet/{bet_id}/exits {"stop_loss"?, "take_profit"?} sets or changes them on an open bet of the caller's
  (null removes one), GET /bet/{bet_id}/exits shows them with the price each corresponds to. The bet closes at the first
  published quote at or beyond a level (not at the level: a gap fills at the quote); close_reason stop_loss/take_profit.
- GET /chat/status, POST /chat/link-code, POST /chat/unlink: the messaging link; GET /notifications?limit&offset lists notices.
- Web Push (a browser's notices): GET /push/key gives the VAPID public key (no session); POST /push/subscriptions takes
  PushSubscription.toJSON() plus "kinds" (bet_opened, bet_cancelled, bet_settled, league_notice); only endpoints on the
  browsers' push services are accepted. GET /push/subscriptions lists the caller's devices; DELETE /push/subscriptions/{id}.
- Errors are JSON: {"error": "..."}; limits answer 403 {"error": "LIMIT_REACHED", "message", "limit"}.

## Scoring

- One quote per instant: every answer that shows a price shows the quote a bet opened or closed then would get.
- A bet's committed price is the first quote published at or after the end of its 5-minute cancel window; its
  ranked gain runs from there to its exit. Every board but GET /leaderboard (SPEC's, every close counts) ranks
  ranked gains only. GET /bet/{bet_id} shows committed_price, ranked_gain and why a bet is not ranked.
- A bet with a target_date settles at the first quote at or after its settlement instant, dated that instant;
  closing or cancelling it after that instant settles it first and answers 400.
- A league keeps the scoring it started with (scoring_version 1: raw gains; 2: ranked gains).

## Rules for automated clients

- Perform account creation, login, opening or closing bets (tail and fade included), following, billing
  messaging-link, price-alert and push-subscription actions only on explicit instruction of the human user.
- Never ask for the cookie value.
- Never call the payment provider's or the messaging service's notification endpoints.
- Do not handle payment card data.
`;
}
