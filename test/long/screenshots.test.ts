// The screenshot walk of every page in the dark scheme at a phone and a
// desktop (the light walk runs with npm test, in test/browser/web-app.test.ts):
// the same seeded pages, the same checks (no sideways scroll, nothing wrong in
// the page). Screenshots land in test-results/screenshots/.
import { after, before, describe, test } from 'node:test';
import { BrowserSuite, skipReason } from '../browser/harness.js';
import { seedPages, walk } from '../browser/pages.js';

if (skipReason) console.log(skipReason);

describe('screenshots of every page, dark', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  before(() => suite.start());
  after(() => suite.stop());

  test('every page at a 375 px phone and at a desktop, dark', async () => {
    const seeded = await seedPages(suite);
    for (const viewport of ['phone', 'desktop'] as const) {
      await suite.withPage(
        async (page, context) => {
          await walk(page, seeded.visitor, viewport, 'dark');
          await seeded.user.signIn(context);
          await walk(page, seeded.member, viewport, 'dark');
        },
        { viewport, colorScheme: 'dark' },
      );
    }
  });
});
