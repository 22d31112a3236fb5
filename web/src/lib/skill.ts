// A rankings row explained in words (issue 36): how its skill comes from its
// mean alpha and the margin for few or uneven trades (src/domain/rankings.ts:
// skill = mean alpha − 1.645 × s / √n, s floored at 5 points). Pure, so Node
// tests load it.
import { formatPoints } from './format.js';

/** src/domain/rankings.ts: ALPHA_SD_FLOOR and SKILL_Z. */
const SD_FLOOR = 5;
const Z = 1.645;

export interface SkillRow {
  skill: number;
  mean_alpha: number;
  n: number;
}

/** The row's margin (mean alpha − skill) and the spread s it implies. */
export function skillParts(row: SkillRow): { margin: number; s: number } {
  const margin = row.mean_alpha - row.skill;
  return { margin, s: row.n > 0 ? (margin * Math.sqrt(row.n)) / Z : 0 };
}

/** Sentences explaining a row's skill: the subtraction with its numbers, then why it comes out as it does. */
export function skillExplanation(row: SkillRow): string[] {
  const { margin, s } = skillParts(row);
  const trades = row.n === 1 ? '1 trade' : `${row.n} trades`;
  const out = [
    `Skill ${formatPoints(row.skill)} = mean alpha ${formatPoints(row.mean_alpha)} − a margin of ${formatPoints(margin).replace(/^\+/, '')} for ${trades}.`,
    "A bet's alpha is its ranked gain minus what the same direction on the benchmark (SPY, or BTC-USD for crypto) made over the same time, in percentage points (pt).",
  ];
  // s at the floor (to rounding): the alphas vary less than 5 pt, or there is a single trade.
  const atFloor = Math.abs(s - SD_FLOOR) < 0.05;
  out.push(
    atFloor
      ? `The margin is 1.645 × 5 pt / √${row.n}: the spread of the alphas counts as at least 5 pt, so a few trades never look certain. It shrinks as trades add up.`
      : `The margin is 1.645 × ${formatPoints(s).replace(/^\+/, '')} / √${row.n}, from how much the alphas vary: uneven results and few trades lower the skill more.`,
  );
  if (Math.abs(row.mean_alpha) < 0.005 && row.skill < 0)
    out.push(
      'With a mean alpha of 0 pt (trades that did just what the market did, such as closes at 0 %), the margin alone makes the skill negative.',
    );
  else if (row.mean_alpha > 0 && row.skill < 0)
    out.push('The mean alpha is positive, but not yet by more than the margin: more trades would show whether it holds.');
  return out;
}
