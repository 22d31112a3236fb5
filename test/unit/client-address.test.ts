import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { clientAddressKey } from '../../src/lib/client-address.js';

test('an IPv4 address is its own key', () => {
  assert.equal(clientAddressKey('10.1.2.3', 64), '10.1.2.3');
  assert.notEqual(clientAddressKey('10.1.2.3', 64), clientAddressKey('10.1.2.4', 64));
});

test('an IPv4-mapped IPv6 address counts as the IPv4 address, however written', () => {
  assert.equal(clientAddressKey('::ffff:1.2.3.4', 64), '1.2.3.4');
  assert.equal(clientAddressKey('::FFFF:1.2.3.4', 64), '1.2.3.4');
  assert.equal(clientAddressKey('::ffff:0102:0304', 64), '1.2.3.4');
  assert.equal(clientAddressKey('0:0:0:0:0:ffff:1.2.3.4', 128), '1.2.3.4');
});

test('IPv6 addresses of one /64 share a key; another /64 has another', () => {
  const a = clientAddressKey('2001:db8:1:2::1', 64);
  assert.equal(a, '2001:db8:1:2::/64');
  assert.equal(clientAddressKey('2001:db8:1:2:ffff:ffff:ffff:ffff', 64), a);
  assert.equal(clientAddressKey('2001:0DB8:0001:0002:0:0:0:abcd', 64), a);
  assert.equal(clientAddressKey('fe80::1%eth0', 64), 'fe80::/64');
  assert.notEqual(clientAddressKey('2001:db8:1:3::1', 64), a);
});

test('the prefix length is a setting: /48, /56, and /128 (each address alone, spelled one way)', () => {
  assert.equal(clientAddressKey('2001:db8:1:2::1', 48), '2001:db8:1::/48');
  assert.equal(clientAddressKey('2001:db8:1:2ff::1', 56), '2001:db8:1:200::/56');
  assert.equal(clientAddressKey('2001:db8:1:2::1', 128), '2001:db8:1:2::1/128');
  assert.equal(clientAddressKey('2001:0db8:0001:0002:0000:0000:0000:0001', 128), '2001:db8:1:2::1/128');
  assert.notEqual(clientAddressKey('2001:db8:1:2::2', 128), clientAddressKey('2001:db8:1:2::1', 128));
  assert.equal(clientAddressKey('::1', 64), '::/64');
  assert.equal(clientAddressKey('::1', 128), '::1/128');
});

test('what is not an IP address (a test name, a socket path) is kept as it is', () => {
  assert.equal(clientAddressKey('', 64), '');
  assert.equal(clientAddressKey('not-an-address', 64), 'not-an-address');
});

test('IPV6_PREFIX_LENGTH: 64 by default, 16 to 128', () => {
  assert.equal(loadConfig({}).ipv6PrefixLength, 64);
  assert.equal(loadConfig({ IPV6_PREFIX_LENGTH: '56' }).ipv6PrefixLength, 56);
  assert.throws(() => loadConfig({ IPV6_PREFIX_LENGTH: '8' }), /IPV6_PREFIX_LENGTH must be between/);
  assert.throws(() => loadConfig({ IPV6_PREFIX_LENGTH: '129' }), /IPV6_PREFIX_LENGTH must be between/);
  assert.throws(() => loadConfig({ IPV6_PREFIX_LENGTH: '/64' }), /IPV6_PREFIX_LENGTH must be an integer/);
});
