// Migrations in the order they apply. Append new ones at the end; never edit
// one that has shipped.
import type { Migration } from 'kysely';
import * as m0001 from './0001_accounts.js';
import * as m0002 from './0002_bets_follows.js';
import * as m0004 from './0004_payments.js';
import * as m0005 from './0005_user_search.js';
import * as m0006 from './0006_messaging.js';
import * as m0010 from './0010_bets_user_id_idx.js';
import * as m0011 from './0011_record.js';
import * as m0012 from './0012_rankings.js';
import * as m0013 from './0013_chat_updates.js';
import * as m0014 from './0014_deleted_identities.js';
import * as m0015 from './0015_idempotency_keys.js';
import * as m0016 from './0016_user_notices.js';
import * as m0017 from './0017_email.js';
import * as m0018 from './0018_leagues.js';
import * as m0019 from './0019_local_cancellations.js';
import * as m0020 from './0020_league_tallies.js';
import * as m0021 from './0021_outbox_recipients.js';
import * as m0022 from './0022_committed_prices.js';
import * as m0023 from './0023_ranked_aggregates.js';
import * as m0024 from './0024_league_scoring_version.js';
import * as m0026 from './0026_commitment_backfill.js';
import * as m0027 from './0027_exit_rules.js';
import * as m0028 from './0028_price_alerts.js';
import * as m0029 from './0029_theses.js';
import * as m0030 from './0030_consensus.js';
import * as m0031 from './0031_push.js';
import * as m0033 from './0033_history_positions.js';
import * as m0034 from './0034_timeline.js';
import * as m0035 from './0035_window_totals.js';
import * as m0036 from './0036_closed_bets_covering.js';
import * as m0037 from './0037_uncommitted_by_status.js';
import * as m0038 from './0038_timeline_by_event.js';
import * as m0039 from './0039_open_bets_by_owner.js';
import * as m0040 from './0040_finished_bet_views.js';
import * as m0041 from './0041_bets_index_diet.js';
import * as m0042 from './0042_outbox_pending_by_channel.js';

export const migrations: Record<string, Migration> = {
  '0001_accounts': m0001,
  '0002_bets_follows': m0002,
  '0004_payments': m0004,
  '0005_user_search': m0005,
  '0006_messaging': m0006,
  '0010_bets_user_id_idx': m0010,
  '0011_record': m0011,
  '0012_rankings': m0012,
  '0013_chat_updates': m0013,
  '0014_deleted_identities': m0014,
  '0015_idempotency_keys': m0015,
  '0016_user_notices': m0016,
  '0017_email': m0017,
  '0018_leagues': m0018,
  '0019_local_cancellations': m0019,
  '0020_league_tallies': m0020,
  '0021_outbox_recipients': m0021,
  '0022_committed_prices': m0022,
  '0023_ranked_aggregates': m0023,
  '0024_league_scoring_version': m0024,
  '0026_commitment_backfill': m0026,
  '0027_exit_rules': m0027,
  '0028_price_alerts': m0028,
  '0029_theses': m0029,
  '0030_consensus': m0030,
  '0031_push': m0031,
  '0033_history_positions': m0033,
  '0034_timeline': m0034,
  '0035_window_totals': m0035,
  '0036_closed_bets_covering': m0036,
  '0037_uncommitted_by_status': m0037,
  '0038_timeline_by_event': m0038,
  '0039_open_bets_by_owner': m0039,
  '0040_finished_bet_views': m0040,
  '0041_bets_index_diet': m0041,
  '0042_outbox_pending_by_channel': m0042,
};
