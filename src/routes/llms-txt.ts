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
2. POST ${base}/login with {"email", "password"}. The answer sets the HttpOnly cookie \`auth_token\`.
3. Send that cookie with every later request. POST ${base}/logout ends the session.
There is no OAuth, no bearer token and no API key. Endpoints marked with the cookieAuth security
scheme answer 401 without a valid session.

## Main operations

- GET /price/{ticker}: current price. POST /bet/open {"ticker", "direction": "LONG"|"SHORT", "target_date"?}.
- GET /instruments?q&limit&offset: tradable instruments by symbol or name, with market hours and daily change; GET /instruments/{symbol}?range: one with its chart.
- POST /bet/close {"bet_id"}; DELETE /bet/{bet_id} cancels within 5 minutes of opening.
- GET /portfolio, GET /history?limit&offset, GET /leaderboard, GET /feed, POST /follow.
- GET /leaderboard/ranked?period&min_trades&limit&offset: the ranked board, same rows and parameters as GET /leaderboard,
  summing ranked gains only: a bet still open when its 5-minute cancel window ended counts from its price at that instant
  to its exit; a bet closed or cancelled inside the window never counts. GET /rankings uses ranked bets too.
- POST /bet/{bet_id}/tail or /fade: open the same or the opposite bet as another trader's open bet (opens a bet).
- Exits: POST /bet/open also takes "stop_loss" (-99 to -0.01) and "take_profit" (0.01 to 10000), percent of gain from
  entry; PUT /bet/{bet_id}/exits {"stop_loss"?, "take_profit"?} sets or changes them on an open bet of the caller's
  (null removes one), GET /bet/{bet_id}/exits shows them with the price each corresponds to. The bet closes at the first
  published quote at or beyond a level (not at the level: a gap fills at the quote); close_reason stop_loss/take_profit.
- GET /chat/status, POST /chat/link-code, POST /chat/unlink: the messaging link; GET /notifications?limit&offset lists notices.
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
  and messaging-link actions only on explicit instruction of the human user.
- Never ask for the cookie value.
- Never call the payment provider's or the messaging service's notification endpoints.
- Do not handle payment card data.
`;
}
