// In production every outside service is real or chosen as simulated by
// name: a forgotten SMTP_URL or Stripe key must stop the start, not leave
// reset links in the log and plans free for the asking (issue 34).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) };
const SIMULATED = { MAIL_TRANSPORT: 'log', PAYMENTS: 'local', CHAT_TRANSPORT: 'log', PRICE_PROVIDER: 'simulated' };
const REAL = {
  SMTP_URL: 'smtp://u:p@mail.example:587',
  STRIPE_SECRET_KEY: 'sk_live_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
  TELEGRAM_BOT_TOKEN: '123:abc',
  PRICE_PROVIDER: 'finnhub',
  FINNHUB_API_KEY: 'fh',
};

const refusal = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail('the configuration was accepted');
};

test('production with nothing chosen refuses to start and names every missing choice', () => {
  const message = refusal(PRODUCTION);
  for (const name of ['MAIL_TRANSPORT', 'PAYMENTS', 'CHAT_TRANSPORT', 'PRICE_PROVIDER']) assert.match(message, new RegExp(name), name);
  // What to set instead: the real service's variables, or the simulated choice.
  for (const hint of [
    'SMTP_URL',
    'MAIL_TRANSPORT=log',
    'STRIPE_SECRET_KEY',
    'PAYMENTS=local',
    'TELEGRAM_BOT_TOKEN',
    'CHAT_TRANSPORT=log',
    'PRICE_PROVIDER=simulated',
  ]) {
    assert.ok(message.includes(hint), `${hint} in: ${message}`);
  }
});

test('production names only the choices still missing', () => {
  for (const [name, value] of Object.entries(SIMULATED)) {
    const rest = Object.fromEntries(Object.entries(SIMULATED).filter(([n]) => n !== name));
    const message = refusal({ ...PRODUCTION, ...rest });
    assert.match(message, new RegExp(name), `${name} missing`);
    for (const other of Object.keys(rest)) assert.doesNotMatch(message, new RegExp(`${other} \\(`), `${other} was chosen (${value})`);
  }
  // Credentials of a real service are its choice.
  const mailOnly = refusal({ ...PRODUCTION, SMTP_URL: REAL.SMTP_URL });
  assert.doesNotMatch(mailOnly, /MAIL_TRANSPORT/);
  assert.match(mailOnly, /PAYMENTS/);
});

test('production starts with the simulated choices stated, or with every real service', () => {
  const simulated = loadConfig({ ...PRODUCTION, ...SIMULATED });
  assert.equal(simulated.mail.smtpUrl, null);
  assert.equal(simulated.stripe.secretKey, null);
  assert.equal(simulated.telegram.botToken, null);
  assert.equal(simulated.prices.provider, 'simulated');
  assert.equal(simulated.mailbox, null, 'no mailbox in production');

  const real = loadConfig({ ...PRODUCTION, ...REAL });
  assert.equal(real.mail.smtpUrl, REAL.SMTP_URL);
  assert.equal(real.stripe.secretKey, REAL.STRIPE_SECRET_KEY);
  assert.equal(real.telegram.botToken, REAL.TELEGRAM_BOT_TOKEN);
  assert.equal(real.prices.provider, 'finnhub');
  const named = loadConfig({ ...PRODUCTION, ...REAL, MAIL_TRANSPORT: 'smtp', PAYMENTS: 'stripe', CHAT_TRANSPORT: 'telegram' });
  assert.equal(named.mail.smtpUrl, REAL.SMTP_URL);
});

test('a choice that contradicts the credentials, or a real choice without them, is refused in every mode', () => {
  for (const env of [{}, PRODUCTION]) {
    assert.throws(() => loadConfig({ ...env, ...SIMULATED, SMTP_URL: REAL.SMTP_URL }), /MAIL_TRANSPORT=log.*SMTP_URL/);
    assert.throws(
      () => loadConfig({ ...env, ...SIMULATED, STRIPE_SECRET_KEY: 'sk', STRIPE_WEBHOOK_SECRET: 'wh' }),
      /PAYMENTS=local.*STRIPE_SECRET_KEY/,
    );
    assert.throws(() => loadConfig({ ...env, ...SIMULATED, TELEGRAM_BOT_TOKEN: '1:a' }), /CHAT_TRANSPORT=log.*TELEGRAM_BOT_TOKEN/);
    assert.throws(() => loadConfig({ ...env, MAIL_TRANSPORT: 'smtp' }), /MAIL_TRANSPORT=smtp needs SMTP_URL/);
    assert.throws(() => loadConfig({ ...env, PAYMENTS: 'stripe' }), /PAYMENTS=stripe needs STRIPE_SECRET_KEY/);
    assert.throws(() => loadConfig({ ...env, CHAT_TRANSPORT: 'telegram' }), /CHAT_TRANSPORT=telegram needs TELEGRAM_BOT_TOKEN/);
    assert.throws(() => loadConfig({ ...env, MAIL_TRANSPORT: 'pigeon' }), /MAIL_TRANSPORT must be "smtp" or "log", got "pigeon"/);
    assert.throws(() => loadConfig({ ...env, PAYMENTS: 'cash' }), /PAYMENTS must be "stripe" or "local"/);
    assert.throws(() => loadConfig({ ...env, CHAT_TRANSPORT: 'fax' }), /CHAT_TRANSPORT must be "telegram" or "log"/);
  }
});

test('outside production nothing needs choosing: the simulators are the defaults, and mail is kept in a local mailbox', () => {
  const development = loadConfig({});
  assert.equal(development.env, 'development');
  assert.equal(development.mail.smtpUrl, null);
  assert.equal(development.stripe.secretKey, null);
  assert.equal(development.telegram.botToken, null);
  assert.equal(development.prices.provider, 'simulated');
  assert.equal(development.mailbox, 'data/mailbox.mbox');
  assert.equal(loadConfig(SIMULATED).mailbox, 'data/mailbox.mbox');
  // Beside the SQLite database: a run on its own folder keeps its mail there too.
  assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/tmp/run-1/bets.db' }).mailbox, '/tmp/run-1/mailbox.mbox');
  assert.equal(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).mailbox, 'data/mailbox.mbox');
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).mailbox, 'data/mailbox.mbox');
  // Tests read what was sent from their own transport or mailbox, and leave no file behind.
  assert.equal(loadConfig({ NODE_ENV: 'test' }).mailbox, null);
});
