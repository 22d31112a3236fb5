// A password reset signs the account out everywhere: every session row goes.
import type { Db } from '../db/database.js';

export async function deleteAllSessionsOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}
