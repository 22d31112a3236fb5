// Overlapping requests against the real server (one round of each case; the
// long suite runs many): capacities hold, every bet ends once, webhooks apply
// once, registrations are unique. See helpers/races-suite.ts.
import { racesSuite } from '../helpers/races-suite.js';

racesSuite({ rounds: 1 });
