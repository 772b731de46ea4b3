import { spaceAccess } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import { mcpTargetOfResource } from '../../lib/protected-resource.js';
import { hasFullAccess } from '../../lib/space-access.js';
import { permissionsOfScopes } from './oauth.service.js';

describe('the resources tokens are issued for', () => {
  const resources = ['http://localhost:3000/mcp', 'http://127.0.0.1:3000/mcp'];

  it('are /mcp and /mcp/<slug> at each address', () => {
    expect(mcpTargetOfResource(resources, 'http://127.0.0.1:3000/mcp')).toEqual({ path: '/mcp' });
    expect(mcpTargetOfResource(resources, 'http://localhost:3000/mcp/alpha-2')).toEqual({
      path: '/mcp/alpha-2',
      space: 'alpha-2',
    });
    for (const resource of [
      'http://example.com:3000/mcp/alpha',
      'http://localhost:3000/mcp/',
      'http://localhost:3000/mcp/Alpha',
      'http://localhost:3000/mcp/alpha/x',
      'http://localhost:3000/mcp/alpha?x=1',
      'http://localhost:3000/mcpalpha',
      'http://localhost:3000/',
    ]) {
      expect(mcpTargetOfResource(resources, resource), resource).toBeUndefined();
    }
  });
});

describe("an OAuth token's scopes as space permissions", () => {
  it('maps memory:write to writing every space, memory:read to reading it', () => {
    expect(permissionsOfScopes(['memory:read', 'memory:write'])).toEqual(['spaces:*:write']);
    expect(permissionsOfScopes(['memory:write'])).toEqual(['spaces:*:write']);
    expect(permissionsOfScopes(['memory:read'])).toEqual(['spaces:*:read']);
  });

  it("narrows a token for a space's own address to that space", () => {
    expect(permissionsOfScopes(['memory:read', 'memory:write'], 'alpha')).toEqual([
      'space:alpha:write',
    ]);
    expect(permissionsOfScopes(['memory:read'], 'alpha')).toEqual(['space:alpha:read']);
    expect(spaceAccess(permissionsOfScopes(['memory:write'], 'alpha'), 'beta')).toBeNull();
    expect(spaceAccess(permissionsOfScopes([], 'alpha'), 'alpha')).toBeNull();
  });

  it('never gives full access, not even to a token without a memory scope', () => {
    for (const scopes of [[], ['memory:read'], ['memory:write'], ['openid']]) {
      const permissions = permissionsOfScopes(scopes);
      expect(hasFullAccess({ permissions })).toBe(false);
    }
    expect(spaceAccess(permissionsOfScopes([]), 'default')).toBeNull();
    expect(spaceAccess(permissionsOfScopes(['openid']), 'alpha')).toBeNull();
    expect(spaceAccess(permissionsOfScopes(['memory:read']), 'alpha')).toBe('read');
    expect(spaceAccess(permissionsOfScopes(['memory:write']), 'alpha')).toBe('write');
  });
});
