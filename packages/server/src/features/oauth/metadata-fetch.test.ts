import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../lib/outbound-address.js';
import { metadataFetch } from './metadata-fetch.js';

describe('metadataFetch', () => {
  const guarded = metadataFetch({ allowPrivateNetwork: false });

  it('knows the addresses a client may not make the server reach', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fc00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-address',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it('refuses http, private literals and names that resolve to private addresses', async () => {
    await expect(guarded('http://example.com/client.json')).rejects.toThrow(/https/);
    await expect(guarded('https://127.0.0.1:1/client.json')).rejects.toThrow(/private/);
    await expect(guarded('https://[::1]:1/client.json')).rejects.toThrow(/private/);
    await expect(guarded('https://localhost:1/client.json')).rejects.toThrow(/private/);
  });
});
