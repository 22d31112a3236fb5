// The log mail transport: outside production each message goes in full to a
// local mbox file and the log names only its recipient and subject; in
// production it is kept nowhere. A mailbox that cannot be written is a
// delivery to try again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { LogMailSender } from '../../src/providers/mail/log.js';
import { mboxEntry } from '../../src/providers/mail/mailbox.js';
import type { OutgoingMail } from '../../src/providers/mail/types.js';

const MAIL: OutgoingMail = {
  to: 'someone@example.test',
  subject: 'Reset your password · Paper Bets',
  text: 'Hello\nFrom here, reset: https://web.example/app/reset-password?token=SeCrEtToKeN\n>From quoted\n',
  html: '<p>Hello</p>',
  headers: { 'List-Unsubscribe': '<https://api.example/email/unsubscribe?token=1.UnSuB>' },
};

function recordingLog(): { log: FastifyBaseLogger; entries: Array<{ obj: unknown; msg: string }> } {
  const entries: Array<{ obj: unknown; msg: string }> = [];
  const log = { info: (obj: unknown, msg: string) => entries.push({ obj, msg }) } as unknown as FastifyBaseLogger;
  return { log, entries };
}

test('an mbox entry: the From line, the headers, the text part with body lines starting with From quoted', () => {
  const entry = mboxEntry(MAIL, 'Paper Bets <no-reply@example.test>', new Date('2026-11-08T07:05:09Z'));
  assert.equal(
    entry,
    [
      'From MAILER-DAEMON Sun Nov  8 07:05:09 2026',
      'From: Paper Bets <no-reply@example.test>',
      'To: someone@example.test',
      'Subject: Reset your password · Paper Bets',
      'Date: Sun, 08 Nov 2026 07:05:09 GMT',
      'List-Unsubscribe: <https://api.example/email/unsubscribe?token=1.UnSuB>',
      '',
      'Hello',
      '>From here, reset: https://web.example/app/reset-password?token=SeCrEtToKeN',
      '>>From quoted',
      '',
      '',
    ].join('\n'),
  );
});

test('outside production the message is appended to the mailbox, readable by its owner only; the log names recipient and subject', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbox-'));
  try {
    const file = path.join(dir, 'data', 'mailbox.mbox');
    const { log, entries } = recordingLog();
    const sender = new LogMailSender(log, { file, from: 'no-reply@example.test' });
    assert.deepEqual(await sender.send(MAIL), { ok: true });
    assert.deepEqual(await sender.send({ ...MAIL, to: 'other@example.test' }), { ok: true });
    const box = fs.readFileSync(file, 'utf8');
    assert.equal(box.match(/^From MAILER-DAEMON /gm)?.length, 2);
    assert.match(box, /token=SeCrEtToKeN/);
    assert.equal(fs.statSync(file).mode & 0o077, 0);
    assert.deepEqual(
      entries.map((e) => e.obj),
      [{ mail: { to: MAIL.to, subject: MAIL.subject } }, { mail: { to: 'other@example.test', subject: MAIL.subject } }],
    );
    assert.ok(
      entries.every((e) => e.msg.includes(file)),
      'the log says where the message is',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('in production (no mailbox) the message is kept nowhere and the log says it was not delivered', async () => {
  const { log, entries } = recordingLog();
  assert.deepEqual(await new LogMailSender(log, null).send(MAIL), { ok: true });
  assert.deepEqual(entries, [
    { obj: { mail: { to: MAIL.to, subject: MAIL.subject } }, msg: 'email not delivered (log transport, MAIL_TRANSPORT=log)' },
  ]);
});

test('a mailbox that cannot be written is a delivery to try again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailbox-'));
  try {
    const blocker = path.join(dir, 'not-a-folder');
    fs.writeFileSync(blocker, '');
    const { log, entries } = recordingLog();
    const outcome = await new LogMailSender(log, { file: path.join(blocker, 'mailbox.mbox'), from: 'a@b.c' }).send(MAIL);
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.reason, 'retry');
    assert.equal(entries.length, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
