import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../../src/web/net/address-policy.js';
import { checkUrl } from '../../../src/web/net/safe-fetch.js';

const refused = (u: string, allow = new Set<string>()) => {
  try {
    checkUrl(new URL(u), allow);
    return false;
  } catch {
    return true;
  }
};

describe('read_url address policy', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://0.0.0.0/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://224.0.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://[ff02::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://app.localhost/',
    'http://metadata.google.internal/',
    'http://db.internal./',
    'http://user:pass@example.com/',
    'http://user@example.com/',
    'ftp://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
  ])('refuses %s', (u) => {
    expect(refused(u)).toBe(true);
  });

  it.each([
    'https://example.com/',
    'http://93.184.215.14/',
    'http://8.8.8.8/',
    'http://172.32.0.1/',
    'http://100.128.0.1/',
    'http://[2606:4700:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'https://internal.example.com/',
    'https://localhost.example.com/',
  ])('allows %s', (u) => {
    expect(refused(u)).toBe(false);
  });

  it('exempts AGENT_ALLOW_HOSTS entries by host or host:port', () => {
    expect(refused('http://127.0.0.1:8080/', new Set(['127.0.0.1:8080']))).toBe(false);
    expect(refused('http://127.0.0.1:9090/', new Set(['127.0.0.1:8080']))).toBe(true);
    expect(refused('http://wiki.internal/', new Set(['wiki.internal']))).toBe(false);
    expect(refused('http://user:pw@wiki.internal/', new Set(['wiki.internal']))).toBe(true);
  });

  it('classifies resolved addresses the same way', () => {
    expect(classifyAddress('10.0.0.5')).toMatch(/private/);
    expect(classifyAddress('::ffff:192.168.0.1')).toMatch(/IPv4-mapped 192\.168\.0\.1/);
    expect(classifyAddress('fe80::1%eth0')).toMatch(/link-local/);
    expect(classifyAddress('1.1.1.1')).toBeUndefined();
    expect(classifyAddress('2a00:1450:4001::200e')).toBeUndefined();
  });
});
