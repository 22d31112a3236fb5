// Email in Chromium against the real server, which sends through a real SMTP
// server started here (smtp-server): the verification link, "Forgot
// password?" to a new password, notice settings, and unsubscribing from a
// message without a session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestSmtpServer } from '../helpers/smtp.js';
import { BrowserSuite, PASSWORD, screenshot, skipReason } from './harness.js';

if (skipReason) console.log(skipReason);

const NEW_PASSWORD = 'a brand new passphrase for tests';

describe('email in Chromium', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  const smtp = new TestSmtpServer();
  before(async () => {
    await smtp.start();
    await suite.start({ SMTP_URL: smtp.url, MAIL_FROM: 'Paper Bets <no-reply@example.test>' });
  });
  after(async () => {
    await suite.stop();
    await smtp.stop();
  });

  const linkTo = (text: string, page: string) => {
    const link = [...text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]).find((l) => l.includes(`/app/${page}?token=`));
    assert.ok(link, `no ${page} link in:\n${text}`);
    return link;
  };

  test('the verification link verifies the address; Settings then offers notices by email; a message unsubscribes without a session', async () => {
    const user = await suite.user('mailer');
    const mail = await smtp.waitFor(user.email, (m) => /Confirm your email address/.test(m.subject));
    await suite.withPage(async (page, context) => {
      await page.goto(linkTo(mail.text, 'verify-email'));
      await page.getByTestId('email-link-done').waitFor();
      assert.match(await page.getByTestId('email-link-done').innerText(), new RegExp(`verified: ${user.email}`, 'i'));
      await screenshot(page, 'verify-email-desktop-light');

      await user.signIn(context);
      await page.goto('/app/settings');
      await page.getByTestId('email-verified').waitFor();
      await page.getByRole('heading', { name: 'Notices by email' }).waitFor();
      await page.getByLabel('Each notice').check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByTestId('notice-settings-saved').waitFor();
      await screenshot(page, 'settings-email-desktop-light');
    });
    const settings = (await user.call('GET', '/me/notice-settings')).json as { email_notices: string };
    assert.equal(settings.email_notices, 'each');

    // A followed trader's opening arrives by email, with its unsubscribe link.
    const trader = await suite.user('opener');
    assert.equal((await user.call('POST', '/follow', { followed_id: trader.id, action: 'follow' })).status, 200);
    assert.equal((await trader.call('POST', '/bet/open', { ticker: 'AAPL', direction: 'LONG' })).status, 200);
    const notice = await smtp.waitFor(user.email, (m) => m.subject.includes(`${trader.username} opened LONG AAPL`));
    const unsubscribe = notice.header('list-unsubscribe').slice(1, -1);
    await suite.withPage(async (page) => {
      await page.goto(unsubscribe);
      await page.getByRole('button', { name: 'Unsubscribe' }).click();
      await page.getByRole('heading', { name: 'Unsubscribed' }).waitFor();
    });
    assert.equal(((await user.call('GET', '/me/notice-settings')).json as { email_notices: string }).email_notices, 'off');
  });

  test('"Forgot password?" on the login page sends a link; the reset page sets the new password, which then logs in', async () => {
    const user = await suite.user('forgetful');
    await suite.withPage(
      async (page) => {
        await page.goto('/app/login');
        await page.getByRole('link', { name: 'Forgot password?' }).click();
        await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
        await page.getByLabel('Email').fill(user.email);
        await page.getByRole('button', { name: 'Send the link' }).click();
        await page.getByTestId('forgot-sent').waitFor();
        const mail = await smtp.waitFor(user.email, (m) => /Reset your password/.test(m.subject));
        await page.goto(linkTo(mail.text, 'reset-password'));
        await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
        await page.getByLabel('New password again').fill(NEW_PASSWORD);
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.getByTestId('password-reset').waitFor();
        await screenshot(page, 'reset-password-desktop-light');
        // The same link does not work twice.
        await page.goto(linkTo(mail.text, 'reset-password'));
        await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        await page.getByLabel('New password', { exact: true }).fill(`${NEW_PASSWORD}!`);
        await page.getByLabel('New password again').fill(`${NEW_PASSWORD}!`);
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.getByText('This link is unknown, already used or expired').waitFor();
      },
      { expect: ['400 POST /password/reset'] },
    );
    await suite.withPage(async (page) => {
      await suite.logIn(page, user.email, NEW_PASSWORD);
    });
    // The old password no longer logs in, and the old session is gone.
    const old = await fetch(`${suite.server.baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    });
    assert.equal(old.status, 401);
    assert.equal((await user.call('GET', '/me')).status, 401);
    await smtp.waitFor(user.email, (m) => /Your password was changed/.test(m.subject));
  });
});
