// The race suite with many rounds of each case (npm run test:long).
import { racesSuite } from '../helpers/races-suite.js';

racesSuite({ rounds: 10 });
