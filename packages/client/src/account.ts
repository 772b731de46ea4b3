import { unwrap, type Api } from './core.js';
import { Paginated, tokenQuery } from './pages.js';
import type {
  AnswerOf,
  ApiKey,
  ApiKeyCreated,
  ApiKeyInput,
  ApiKeyPage,
  ApiKeyRolled,
  DeliveryPage,
  DuplicateCandidate,
  DuplicatePage,
  Merged,
  MergeInput,
  Space,
  SpaceInput,
  SpacePage,
  Webhook,
  WebhookCreated,
  WebhookDelivery,
  WebhookInput,
  WebhookPage,
  WebhookSecret,
  WebhookUpdate,
} from './types.js';

/** A list the server answers in one piece, walked like the paged ones. */
function onePage<Item, Page>(read: () => Promise<Page>, itemsOf: (page: Page) => readonly Item[]) {
  return new Paginated<Item, Page>(read, itemsOf);
}

/** `client.spaces`: the account's memory spaces (one graph each). */
export class Spaces {
  constructor(private readonly api: Api) {}

  list(options: { query?: string; limit?: number } = {}): Paginated<Space, SpacePage> {
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/spaces', { params: { query: { ...options, ...tokenQuery(token) } } }),
        ),
      (page) => page.spaces,
    );
  }

  create(space: SpaceInput): Promise<Space> {
    return unwrap(this.api.POST('/api/spaces', { body: space }));
  }

  /** One space by its slug. */
  get(slug: string): Promise<Space> {
    return unwrap(this.api.GET('/api/spaces/{space}', { params: { path: { space: slug } } }));
  }

  rename(slug: string, name: string): Promise<Space> {
    return unwrap(
      this.api.PATCH('/api/spaces/{space}', { params: { path: { space: slug } }, body: { name } }),
    );
  }

  /** Deletes the space and its whole graph. */
  delete(slug: string): Promise<AnswerOf<'/api/spaces/{space}', 'delete'>> {
    return unwrap(this.api.DELETE('/api/spaces/{space}', { params: { path: { space: slug } } }));
  }
}

/**
 * `client.keys`: the account's API keys. These calls take a session token
 * (`POST /auth/login`'s `token`) as `apiKey`: an API key is refused with 401.
 */
export class Keys {
  constructor(private readonly api: Api) {}

  list(): Paginated<ApiKey, ApiKeyPage> {
    return onePage(
      () => unwrap(this.api.GET('/api/keys')),
      (page) => page.apiKeys,
    );
  }

  /** A new key; its secret (`apiKey`) is in this answer only. */
  create(key: ApiKeyInput): Promise<ApiKeyCreated> {
    return unwrap(this.api.POST('/api/keys', { body: key }));
  }

  /** Replaces a key with a new one; the old one keeps working for a grace period. */
  roll(id: string): Promise<ApiKeyRolled> {
    return unwrap(this.api.POST('/api/keys/{id}/roll', { params: { path: { id } } }));
  }

  delete(id: string): Promise<AnswerOf<'/api/keys/{id}', 'delete'>> {
    return unwrap(this.api.DELETE('/api/keys/{id}', { params: { path: { id } } }));
  }
}

/** `client.webhooks`: endpoints that receive the graph's events (paid plans; docs/webhooks.md). */
export class Webhooks {
  constructor(private readonly api: Api) {}

  list(): Paginated<Webhook, WebhookPage> {
    return onePage(
      () => unwrap(this.api.GET('/api/webhooks')),
      (page) => page.webhooks,
    );
  }

  /** A new endpoint; its signing `secret` is in this answer only (see `verifyWebhook`). */
  create(webhook: WebhookInput): Promise<WebhookCreated> {
    return unwrap(this.api.POST('/api/webhooks', { body: webhook }));
  }

  get(id: string): Promise<Webhook> {
    return unwrap(this.api.GET('/api/webhooks/{id}', { params: { path: { id } } }));
  }

  update(id: string, changes: WebhookUpdate): Promise<Webhook> {
    return unwrap(
      this.api.PATCH('/api/webhooks/{id}', { params: { path: { id } }, body: changes }),
    );
  }

  async delete(id: string): Promise<void> {
    await unwrap(this.api.DELETE('/api/webhooks/{id}', { params: { path: { id } } }));
  }

  /** Sends a `ping` event now; answers the delivery. */
  test(id: string): Promise<WebhookDelivery> {
    return unwrap(this.api.POST('/api/webhooks/{id}/test', { params: { path: { id } } }));
  }

  /** A new secret; the previous one also signs until `previousSecretExpiresAt`. */
  rotateSecret(id: string): Promise<WebhookSecret> {
    return unwrap(this.api.POST('/api/webhooks/{id}/rotate-secret', { params: { path: { id } } }));
  }

  /** The endpoint's deliveries, newest first. */
  deliveries(
    id: string,
    options: { limit?: number } = {},
  ): Paginated<WebhookDelivery, DeliveryPage> {
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/webhooks/{id}/deliveries', {
            params: { path: { id }, query: { ...options, ...tokenQuery(token) } },
          }),
        ),
      (page) => page.deliveries,
    );
  }

  redeliver(id: string, deliveryId: string): Promise<WebhookDelivery> {
    return unwrap(
      this.api.POST('/api/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
        params: { path: { id, deliveryId } },
      }),
    );
  }
}

/** `client.duplicates`: entities that look like the same thing, and merging them. */
export class Duplicates {
  constructor(private readonly api: Api) {}

  /** Likely duplicate pairs, best first (only those of `entityId` when given). */
  list(
    options: { entityId?: string; limit?: number } = {},
  ): Paginated<DuplicateCandidate, DuplicatePage> {
    return new Paginated(
      (token) =>
        unwrap(
          this.api.GET('/api/duplicates', {
            params: { query: { ...options, ...tokenQuery(token) } },
          }),
        ),
      (page) => page.candidates,
    );
  }

  /** Marks the entities as not the same: their pairs leave the list. */
  async dismiss(entityIds: string[]): Promise<void> {
    await unwrap(this.api.POST('/api/duplicates/dismiss', { body: { entityIds } }));
  }

  async undismiss(entityIds: string[]): Promise<void> {
    await unwrap(this.api.POST('/api/duplicates/undismiss', { body: { entityIds } }));
  }

  /** Merges `sourceIds` into `targetId` (observations, relations, names as aliases). */
  merge(merge: MergeInput): Promise<Merged> {
    return unwrap(this.api.POST('/api/entities/merge', { body: merge }));
  }
}
