// Population sizes. `full` is the realistic scale; `small` gives the
// demo a lively few hundred users; `tiny` keeps the smoke run in seconds.
// Every preset has the same special users (see roles.ts), so the load driver
// measures the same requests at any size.

export type SizeName = 'full' | 'small' | 'tiny';

export interface Preset {
  name: SizeName;
  users: number;
  /** CLOSED and CANCELLED bets, the special users' included. */
  finishedBets: number;
  openBets: number;
  /** How many ordinary users follow others, and how many each. */
  followers: number;
  followsEach: number;
  /** Followers (each with a linked chat) of the fan-out's two traders, roles fanOutMid and fanOutLarge. */
  fanOut: readonly [mid: number, large: number];
  /** The history role's finished bets: pages at offsets 5,000 and (with the full data) 10,000. */
  historyBets: number;
}

export const PRESETS: Record<SizeName, Preset> = {
  full: {
    name: 'full',
    users: 100_000,
    finishedBets: 1_000_000,
    openBets: 50_000,
    followers: 10_000,
    followsEach: 50,
    fanOut: [1_000, 10_000],
    historyBets: 10_200,
  },
  small: { name: 'small', users: 300, finishedBets: 15_000, openBets: 500, followers: 120, followsEach: 20, fanOut: [50, 150], historyBets: 5_200 },
  // 150 users: enough ordinary users outside the followers for the 64 traders of the spread writes.
  tiny: { name: 'tiny', users: 150, finishedBets: 6_500, openBets: 60, followers: 20, followsEach: 10, fanOut: [10, 40], historyBets: 5_200 },
};

export function presetNamed(name: string): Preset {
  if (name in PRESETS) return PRESETS[name as SizeName];
  throw new Error(`unknown size "${name}": use full, small or tiny`);
}

/** Bumped whenever the generated data changes shape, so cached databases are rebuilt. */
export const DATASET_VERSION = 9;
