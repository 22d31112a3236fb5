// The sign-up form's words (issue 24, item 6): its own checks mark every
// empty or malformed field at once; the API's two 409 texts land on their fields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MESSAGES, registerErrorField, signUpProblems } from '../../web/src/lib/sign-up.js';
import { EMAIL_TAKEN, USERNAME_TAKEN } from '../../src/services/accounts.js';

test('an empty submit marks every empty field', () => {
  assert.deepEqual(signUpProblems({ username: '', email: '', password: '' }), {
    username: MESSAGES.usernameEmpty,
    email: MESSAGES.emailEmpty,
    password: MESSAGES.passwordEmpty,
  });
  assert.deepEqual(signUpProblems({ username: 'ok_name', email: '', password: 'a long enough passphrase' }), { email: MESSAGES.emailEmpty });
});

test('format problems in words', () => {
  assert.equal(MESSAGES.usernameFormat, 'Usernames use letters, digits and _ only.');
  for (const bad of ['two words', 'dash-name', 'émile', 'semi;colon'])
    assert.equal(signUpProblems({ username: bad, email: 'a@b.co', password: 'x'.repeat(15) }).username, MESSAGES.usernameFormat, bad);
  assert.equal(signUpProblems({ username: 'ab', email: 'a@b.co', password: 'x'.repeat(15) }).username, MESSAGES.usernameLength);
  assert.equal(signUpProblems({ username: 'abc', email: 'not-an-address', password: 'x'.repeat(15) }).email, MESSAGES.emailFormat);
  assert.equal(signUpProblems({ username: 'abc', email: 'a@b.co', password: 'x'.repeat(14) }).password, MESSAGES.passwordShort);
  assert.deepEqual(signUpProblems({ username: 'a_B_3', email: ' a@b.co ', password: 'x'.repeat(15) }), {});
});

test("the API's 409 texts, exactly as the service writes them, land on their fields", () => {
  assert.deepEqual(registerErrorField(409, USERNAME_TAKEN), { username: 'That username is taken.' });
  assert.deepEqual(registerErrorField(409, EMAIL_TAKEN), { email: 'That email already has an account.' });
  assert.equal(registerErrorField(409, 'something else'), null);
  assert.equal(registerErrorField(400, USERNAME_TAKEN), null);
});
