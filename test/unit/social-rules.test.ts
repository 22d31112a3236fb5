import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chunk, fanOutAfterFollow, fanOutAfterUnfollow, newestEventFirst } from '../../src/domain/feed.js';
import { isPossibleId } from '../../src/domain/ids.js';
import { escapeLike, searchKey, searchPatterns } from '../../src/domain/search.js';

describe('user search rules', () => {
  test('LIKE wildcards and the escape character match literally', () => {
    assert.equal(escapeLike('a%b_c\\d'), 'a\\%b\\_c\\\\d');
    assert.equal(escapeLike('plain'), 'plain');
    assert.equal(escapeLike('%%'), '\\%\\%');
  });

  test('queries are trimmed and lower-cased; blank means no query', () => {
    assert.equal(searchKey(undefined), null);
    assert.equal(searchKey(''), null);
    assert.equal(searchKey('   '), null);
    assert.equal(searchKey(' AlIce '), 'alice');
  });

  test('patterns: exact is unescaped (compared with =), prefix and substring are escaped LIKE patterns', () => {
    assert.deepEqual(searchPatterns('a_b'), { exact: 'a_b', prefix: 'a\\_b%', substring: '%a\\_b%' });
  });
});

describe('feed and id rules', () => {
  test('feed order: latest event first, then the newer bet', () => {
    const rows = [
      { id: 1, last_event_at: 10 },
      { id: 3, last_event_at: 5 },
      { id: 2, last_event_at: 10 },
    ];
    assert.deepEqual(
      [...rows].sort(newestEventFirst).map((r) => r.id),
      [2, 1, 3],
    );
  });

  test('chunk splits into groups of at most n, in order', () => {
    assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
    assert.deepEqual(chunk([], 3), []);
  });

  test('fan-out: a follow copies until the threshold, which makes the trader heavily followed; nothing for one already so', () => {
    assert.equal(fanOutAfterFollow(false, 1, 1000), 'copy');
    assert.equal(fanOutAfterFollow(false, 999, 1000), 'copy');
    assert.equal(fanOutAfterFollow(false, 1000, 1000), 'becomeHeavy');
    assert.equal(fanOutAfterFollow(true, 1000, 1000), 'none');
    assert.equal(fanOutAfterFollow(true, 3, 1000), 'none', 'stays heavily followed until an unfollow says otherwise');
  });

  test('fan-out: an unfollow returns a heavily followed trader only below half the threshold', () => {
    assert.equal(fanOutAfterUnfollow(true, 999, 1000), 'none');
    assert.equal(fanOutAfterUnfollow(true, 500, 1000), 'none');
    assert.equal(fanOutAfterUnfollow(true, 499, 1000), 'becomeLight');
    assert.equal(fanOutAfterUnfollow(false, 0, 1000), 'none');
    assert.equal(fanOutAfterUnfollow(true, 1, 3), 'becomeLight');
    assert.equal(fanOutAfterUnfollow(true, 2, 3), 'none');
  });

  test('possible ids are positive safe integers', () => {
    assert.equal(isPossibleId(1), true);
    assert.equal(isPossibleId(Number.MAX_SAFE_INTEGER), true);
    for (const n of [0, -1, 1.5, 1e20, Number.NaN]) assert.equal(isPossibleId(n), false, String(n));
  });
});
