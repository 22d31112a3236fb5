// How scoring works (issue 33): what counts on each board and why, in a few
// paragraphs. Every board links here.
import { Link } from 'react-router-dom';

export function ScoringPage() {
  return (
    <article className="scoring-page" aria-labelledby="scoring-heading">
      <h1 id="scoring-heading">How scoring works</h1>
      <p className="lead">
        A bet's own gain runs from its entry price to its exit price. The boards rank something stricter: the part of that gain nobody could have had
        for free.
      </p>

      <h2>The cancel window</h2>
      <p>
        For 5 minutes after opening, a bet can be cancelled at no cost. While it can still be cancelled, closing it is riskless: close it if it went
        up, cancel it if it went down, and only the winners would count. So a close inside that window, or a bet picked to keep by cancelling the
        others, proves nothing about the call.
      </p>

      <h2>The committed price and the ranked gain</h2>
      <p>
        When the window ends, the bet is committed: its <strong>committed price</strong> is the first quote the service publishes at or after that
        instant (the price a close at that instant would get). The bet's <strong>ranked gain</strong> runs from the committed price to the exit price,
        with the same formula as its gain. What happened inside the window, where the option was free, is left out.
      </p>
      <p>Not ranked, and counted on no ranked board:</p>
      <ul>
        <li>a bet closed, or settled at its target date, before its committed instant;</li>
        <li>a cancelled bet;</li>
        <li>a bet whose committed price could not be known (its own page says why).</li>
      </ul>

      <h2>The boards</h2>
      <ul>
        <li>
          <Link to="/leaderboard">The leaderboard</Link> and the front door's top 10 sum <strong>ranked gains</strong>.
        </li>
        <li>
          <Link to="/rankings">Rankings</Link> measure skill against the market from committed prices: each ranked bet's alpha is its ranked gain less
          what the benchmark made from the same instant.
        </li>
        <li>
          The raw board, <Link to="/leaderboard?board=raw">Raw gains: every close counts</Link>, is the API's <code>/leaderboard</code> as the
          specification defines it: the sum of the gains of every closed bet, entry to exit, closes inside the cancel window included. Cancelled bets
          count on no board.
        </li>
        <li>
          <Link to="/leagues">Leagues</Link> keep the scoring they started with: a league that began before ranked scoring sums raw gains to its end;
          a league that starts later uses ranked gains. Each league board says which.
        </li>
      </ul>

      <h2>What a profile shows</h2>
      <p>
        Every trader's profile shows, for anyone to see, how many of their closes came before the committed instant and what share of their closes
        that is, how many bets they cancelled, and how long they hold a bet. Scored figures there are ranked; raw ones are labelled raw.
      </p>
    </article>
  );
}
