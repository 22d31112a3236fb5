// The thesis rules (src/domain/thesis.ts): what may be written, the salted
// hash, who is served the text, whose reports count.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  newThesisSalt,
  reportCounts,
  THESIS_MAX_CHARS,
  thesisHash,
  thesisLength,
  thesisProblem,
  thesisServedTo,
  thesisState,
} from '../../src/domain/thesis.js';
import { thesisPreimage } from '../../src/domain/record-encoding.js';

test('plain text up to 280 characters, counted as a reader counts them', () => {
  assert.equal(thesisProblem('Rates fall, growth names re-rate.'), null);
  assert.equal(thesisProblem('x'.repeat(THESIS_MAX_CHARS)), null);
  assert.match(thesisProblem('x'.repeat(THESIS_MAX_CHARS + 1)) ?? '', /at most 280 characters/);
  // 280 emoji are 560 UTF-16 units but 280 characters.
  assert.equal(thesisLength('🚀'.repeat(280)), 280);
  assert.equal(thesisProblem('🚀'.repeat(280)), null);
  assert.match(thesisProblem('🚀'.repeat(281)) ?? '', /at most 280/);
  assert.equal(thesisProblem('<b>&amp; "quoted" \'text\'</b> ünïcödé 株'), null, 'markup is plain text: escaped where shown, never refused');
});

test('blank, control characters and every bidi control are refused, naming the character', () => {
  assert.match(thesisProblem('   ') ?? '', /blank/);
  for (const c of ['\u0000', '\u0007', '\n', '\r', '\t', '\u001b', '\u007f', '\u0085', '\u009f']) {
    assert.match(thesisProblem(`up${c}only`) ?? '', /control and text-direction characters/, JSON.stringify(c));
  }
  const bidi = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
  for (const c of bidi) {
    const hex = c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    assert.match(thesisProblem(`buy ${c}lleS`) ?? '', new RegExp(`U\\+${hex}`), `U+${hex}`);
  }
  // Joiners used by emoji sequences are not direction controls.
  assert.equal(thesisProblem('👩\u200d💻 long'), null);
});

test('the hash is SHA-256 of salt, newline and text; salts are fresh 32 hex characters', () => {
  const salt = newThesisSalt();
  assert.match(salt, /^[0-9a-f]{32}$/);
  assert.notEqual(newThesisSalt(), salt);
  const text = 'Cheap at 9x earnings';
  assert.equal(thesisPreimage(salt, text), `${salt}\n${text}`);
  assert.equal(thesisHash(salt, text), createHash('sha256').update(`${salt}\n${text}`, 'utf8').digest('hex'));
  assert.notEqual(thesisHash(newThesisSalt(), text), thesisHash(salt, text), 'another salt, another hash: guessing short texts needs the salt');
});

test('who is served the text: hidden to no one, reported to its owner only', () => {
  const owner = 7;
  const shown = { user_id: owner, hidden_at: null, counted_reports: 2 };
  assert.equal(thesisState(shown, 3), 'shown');
  assert.equal(thesisServedTo(shown, null, 3), true);
  assert.equal(thesisServedTo(shown, 8, 3), true);
  const reported = { ...shown, counted_reports: 3 };
  assert.equal(thesisState(reported, 3), 'reported');
  assert.equal(thesisServedTo(reported, null, 3), false);
  assert.equal(thesisServedTo(reported, 8, 3), false);
  assert.equal(thesisServedTo(reported, owner, 3), true);
  const hidden = { ...shown, hidden_at: 1 };
  assert.equal(thesisState(hidden, 3), 'hidden');
  assert.equal(thesisServedTo(hidden, owner, 3), false);
  assert.equal(thesisState({ ...reported, hidden_at: 1 }, 3), 'hidden', "the owner's choice wins over reports");
});

test('a report counts only from a verified account with a ranked bet', () => {
  assert.equal(reportCounts({ emailVerified: false, rankedBets: 0 }), false);
  assert.equal(reportCounts({ emailVerified: true, rankedBets: 0 }), false);
  assert.equal(reportCounts({ emailVerified: false, rankedBets: 5 }), false);
  assert.equal(reportCounts({ emailVerified: true, rankedBets: 1 }), true);
});
