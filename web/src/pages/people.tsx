// Find people, from the navigation (not only inside Feed): the username
// search, and the ranked board's leaders to follow.
import { SuggestedTraders, TraderSearch } from '../components/trader-search';

export function PeoplePage() {
  return (
    <>
      <TraderSearch headingLevel={1} />
      <SuggestedTraders headingLevel={2} />
    </>
  );
}
