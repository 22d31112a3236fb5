// The log transport's local mailbox outside production: each message in full,
// appended to an mbox file (one message after another, each after a `From `
// line), which a mail client opens and a text editor reads. Only its owner may
// read it: its links are live credentials.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { OutgoingMail } from './types.js';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The date of mbox's `From ` line (asctime, UTC): `Sat Nov 28 18:20:40 2026`. */
function asctime(at: Date): string {
  const day = String(at.getUTCDate()).padStart(2, ' ');
  const time = at.toISOString().slice(11, 19);
  return `${DAYS[at.getUTCDay()]} ${MONTHS[at.getUTCMonth()]} ${day} ${time} ${at.getUTCFullYear()}`;
}

/** One message as an mbox entry: its plain-text part, with a body line that starts with `From ` quoted (mboxrd). */
export function mboxEntry(mail: OutgoingMail, from: string, at: Date): string {
  const headers = [`From: ${from}`, `To: ${mail.to}`, `Subject: ${mail.subject}`, `Date: ${at.toUTCString()}`];
  for (const [name, value] of Object.entries(mail.headers)) headers.push(`${name}: ${value}`);
  const body = mail.text.replace(/^(>*From )/gm, '>$1').replace(/\n*$/, '\n');
  return `From MAILER-DAEMON ${asctime(at)}\n${headers.join('\n')}\n\n${body}\n`;
}

export async function appendToMailbox(file: string, entry: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, entry, { mode: 0o600 });
}
