// Mails other parts of the service queue inside their own transaction: the
// verification of a new account, and "your password was changed".
import type { Db } from '../db/database.js';
import { enqueueMail } from '../repositories/notifications.js';
import { addUserNotice } from '../repositories/user-notices.js';

/** The verification mail of a new account (or one asked for again); its link is minted when it is sent. */
export async function queueVerification(trx: Db, userId: number, email: string, now: number): Promise<void> {
  await enqueueMail(trx, { userId, to: email, kind: 'email_verify', text: 'verify' }, now);
}

/** "Your password was changed": a stored notice in the app and a mail, in the change's transaction. */
export async function passwordChanged(trx: Db, userId: number, email: string, now: number): Promise<void> {
  await addUserNotice(trx, { userId, kind: 'account_password_changed', text: 'Your password was changed.', link: 'settings' }, now);
  await enqueueMail(trx, { userId, to: email, kind: 'password_changed', text: 'password changed' }, now);
}
