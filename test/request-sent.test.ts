import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { afterNextRequestSent } from '../src/request-sent.js';

describe('afterNextRequestSent', () => {
  it('runs once, after the next request has been sent, whatever follows', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`server got ${req.url}`);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let runs = 0;
    afterNextRequestSent(() => {
      runs++;
      seen.push('ran');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(0);
    const replies = await Promise.all([fetch(`${url}/a`), fetch(`${url}/b`)]);
    await Promise.all(replies.map((r) => r.text()));
    await fetch(`${url}/c`).then((r) => r.text());
    server.close();
    expect(runs).toBe(1);
    expect(seen.indexOf('ran')).toBeLessThan(seen.indexOf('server got /c'));
  });

  it('runs after the fallback time when no request is sent, and not again', async () => {
    let runs = 0;
    afterNextRequestSent(() => runs++, 30);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(runs).toBe(1);
  });
});
