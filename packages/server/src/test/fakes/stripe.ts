import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A local stand-in for the part of Stripe's HTTP API that billing uses, for
 * tests only (the real SDK is pointed at it with host/port/protocol). It
 * keeps customers, setup intents, checkout sessions, subscriptions, cards and
 * invoices in memory, records every request, honours idempotency keys, and
 * signs the events it builds with the SDK's own test-header helper. For
 * end-to-end tests it also serves a bare checkout page whose Pay button
 * completes the session, sends the webhooks and returns to success_url.
 */

type StripeObject = Record<string, unknown> & { id: string };

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
}

export interface FakeCard {
  brand?: string;
  last4?: string;
  expMonth?: number;
  expYear?: number;
}

export interface SignedDelivery {
  payload: string;
  signature: string;
}

export interface StripeFakeOptions {
  /** The webhook secret events are signed with. */
  webhookSecret: string;
  /** Where the checkout page's Pay button delivers events (the server's webhook). */
  webhookUrl?: string;
}

const DAY = 86_400;

/** `items[0][price]=x&metadata[a]=b` → { items: [{ price: 'x' }], metadata: { a: 'b' } }. */
export function parseStripeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node: Record<string, unknown> = root;
    path.forEach((part, index) => {
      if (index === path.length - 1) {
        node[part] = value;
      } else {
        node[part] ??= {};
        node = node[part] as Record<string, unknown>;
      }
    });
  }
  return arraysOf(root) as Record<string, unknown>;
}

function arraysOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).map(
    ([key, child]) => [key, arraysOf(child)] as const,
  );
  if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key))) {
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, child]) => child);
  }
  return Object.fromEntries(entries);
}

class StripeError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly code?: string,
  ) {
    super(message);
  }
}

export class StripeFake {
  readonly requests: RecordedRequest[] = [];
  readonly customers = new Map<string, StripeObject>();
  readonly setupIntents = new Map<string, StripeObject>();
  readonly sessions = new Map<string, StripeObject>();
  readonly subscriptions = new Map<string, StripeObject>();
  readonly paymentMethods = new Map<string, StripeObject>();
  readonly invoices = new Map<string, StripeObject>();
  /** Events built (and, from the checkout page, delivered), oldest first. */
  readonly events: StripeObject[] = [];
  /** Answers to requests with an idempotency key, replayed for a repeat. */
  private readonly idempotent = new Map<string, { status: number; body: unknown }>();
  /** The next requests to this path (e.g. 'POST /v1/subscriptions/sub_1') fail with this. */
  private readonly failures = new Map<string, { error: StripeError; times: number }>();
  /** The next answer to this path is held back (see `holdNext`). */
  private readonly holds = new Map<string, { reached: () => void; released: Promise<void> }>();
  private counter = 0;
  /** The fake's clock (epoch seconds); tests move it. */
  clock = Math.floor(Date.now() / 1000);
  private server: Server | undefined;
  baseUrl = '';

  constructor(readonly options: StripeFakeOptions) {}

  static async start(options: StripeFakeOptions): Promise<StripeFake> {
    const fake = new StripeFake(options);
    const server = createServer((request, response) => void fake.handle(request, response));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    fake.server = server;
    fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Requests seen, as 'METHOD /path' lines. */
  get calls(): string[] {
    return this.requests.map((request) => `${request.method} ${request.path}`);
  }

  /** Makes the next `times` requests to `method path` fail as Stripe would. */
  failNext(
    method: string,
    path: string,
    status: number,
    message: string,
    type?: string,
    times = 1,
  ) {
    this.failures.set(`${method} ${path}`, {
      error: new StripeError(status, message, type),
      times,
    });
  }

  /**
   * The next request to `method path` is answered with the state at the
   * moment it arrives, but only once `release()` is called: a read that is
   * slow to come back. `reached` resolves when that request has arrived.
   */
  holdNext(method: string, path: string): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holds.set(`${method} ${path}`, { reached, released });
    return { reached: arrived, release };
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}_fake${this.counter}${randomBytes(3).toString('hex')}`;
  }

  // ── the API ───────────────────────────────────────────────────────────────

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const method = request.method ?? 'GET';
    try {
      if (url.pathname.startsWith('/pay/')) {
        await this.checkoutPage(method, url, response);
        return;
      }
      const body = parseStripeForm(text);
      const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
      this.requests.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
        idempotencyKey,
      });
      if (!String(request.headers.authorization ?? '').startsWith('Bearer sk_')) {
        throw new StripeError(401, 'Invalid API Key provided', 'invalid_request_error');
      }
      const cacheKey = idempotencyKey ? `${method} ${url.pathname} ${idempotencyKey}` : undefined;
      const cached = cacheKey ? this.idempotent.get(cacheKey) : undefined;
      if (cached) return this.send(response, cached.status, cached.body);
      const failure = this.failures.get(`${method} ${url.pathname}`);
      if (failure) {
        failure.times -= 1;
        if (failure.times <= 0) this.failures.delete(`${method} ${url.pathname}`);
        throw failure.error;
      }
      const answer = this.route(method, url.pathname, body, url.searchParams);
      if (cacheKey) this.idempotent.set(cacheKey, { status: 200, body: answer });
      const hold = this.holds.get(`${method} ${url.pathname}`);
      if (hold) {
        // The state as it was when asked, sent late: a slow read.
        const frozen = structuredClone(answer);
        this.holds.delete(`${method} ${url.pathname}`);
        hold.reached();
        await hold.released;
        this.send(response, 200, frozen);
        return;
      }
      this.send(response, 200, answer);
    } catch (error) {
      if (error instanceof StripeError) {
        this.send(response, error.status, {
          error: { type: error.type, message: error.message, code: error.code },
        });
      } else {
        this.send(response, 500, { error: { type: 'api_error', message: String(error) } });
      }
    }
  }

  private send(response: ServerResponse, status: number, body: unknown) {
    response.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': 'req_fake' });
    response.end(JSON.stringify(body));
  }

  private find(map: Map<string, StripeObject>, id: string, what: string): StripeObject {
    const found = map.get(id);
    if (!found)
      throw new StripeError(
        404,
        `No such ${what}: '${id}'`,
        'invalid_request_error',
        'resource_missing',
      );
    return found;
  }

  private route(
    method: string,
    path: string,
    body: Record<string, unknown>,
    query: URLSearchParams,
  ): unknown {
    const parts = path.split('/').filter(Boolean);
    const [version, resource, id, action] = parts;
    if (version !== 'v1')
      throw new StripeError(404, `Unrecognized request URL (${method}: ${path})`);

    if (resource === 'customers') {
      if (method === 'POST' && !id) return this.createCustomer(body);
      const customer = this.find(this.customers, id!, 'customer');
      if (method === 'GET' && !action) return customer;
      if (method === 'POST' && !action) {
        const settings = body.invoice_settings as { default_payment_method?: string } | undefined;
        if (settings?.default_payment_method !== undefined) {
          const pm = settings.default_payment_method;
          if (pm && this.paymentMethods.get(pm)?.customer !== customer.id) {
            throw new StripeError(400, `The payment method ${pm} is not attached to this customer`);
          }
          customer.invoice_settings = { default_payment_method: pm || null };
        }
        return customer;
      }
    }
    if (resource === 'setup_intents' && method === 'POST' && !id) {
      const intent: StripeObject = {
        id: this.nextId('seti'),
        object: 'setup_intent',
        customer: body.customer ?? null,
        status: 'requires_payment_method',
        usage: body.usage ?? 'off_session',
        allowed_payment_method_types: body.allowed_payment_method_types ?? ['card'],
      };
      intent.client_secret = `${intent.id}_secret_${randomBytes(8).toString('hex')}`;
      this.setupIntents.set(intent.id, intent);
      return intent;
    }
    if (resource === 'checkout' && id === 'sessions' && method === 'POST') {
      return this.createSession(body);
    }
    if (resource === 'subscriptions' && !id && method === 'GET') {
      // Newest first, as Stripe lists; without status=all, ended ones are left out.
      const all = query.get('status') === 'all';
      const data = [...this.subscriptions.values()]
        .filter((sub) => sub.customer === query.get('customer'))
        .filter((sub) => all || sub.status !== 'canceled')
        .reverse()
        .sort((a, b) => (b.created as number) - (a.created as number));
      return { object: 'list', data, has_more: false, url: '/v1/subscriptions' };
    }
    if (resource === 'subscriptions' && id) {
      const subscription = this.find(this.subscriptions, id, 'subscription');
      if (method === 'GET') return subscription;
      if (method === 'DELETE') return this.endSubscription(subscription);
      if (method === 'POST') return this.updateSubscription(subscription, body);
    }
    if (resource === 'payment_methods') {
      if (method === 'GET' && !id) {
        const customer = query.get('customer');
        const data = [...this.paymentMethods.values()].filter(
          (pm) => pm.customer === customer && (!query.get('type') || pm.type === query.get('type')),
        );
        return { object: 'list', data, has_more: false, url: '/v1/payment_methods' };
      }
      if (method === 'POST' && id && action === 'detach') {
        const pm = this.find(this.paymentMethods, id, 'PaymentMethod');
        if (!pm.customer) throw new StripeError(400, 'The payment method is not attached');
        const customer = this.customers.get(pm.customer as string);
        const settings = customer?.invoice_settings as { default_payment_method?: string | null };
        if (settings?.default_payment_method === pm.id) settings.default_payment_method = null;
        pm.customer = null;
        return pm;
      }
    }
    throw new StripeError(404, `Unrecognized request URL (${method}: ${path})`);
  }

  private createCustomer(body: Record<string, unknown>): StripeObject {
    const customer: StripeObject = {
      id: this.nextId('cus'),
      object: 'customer',
      email: body.email ?? null,
      name: body.name ?? null,
      metadata: body.metadata ?? {},
      invoice_settings: { default_payment_method: null },
      created: this.clock,
    };
    this.customers.set(customer.id, customer);
    return customer;
  }

  private createSession(body: Record<string, unknown>): StripeObject {
    const lineItems = (body.line_items as { price: string; quantity: string }[] | undefined) ?? [];
    if (lineItems.length !== 1) throw new StripeError(400, 'line_items must hold one price');
    const id = this.nextId('cs_test');
    const session: StripeObject = {
      id,
      object: 'checkout.session',
      mode: body.mode,
      status: 'open',
      customer: body.customer ?? null,
      client_reference_id: body.client_reference_id ?? null,
      success_url: body.success_url,
      cancel_url: body.cancel_url,
      metadata: body.metadata ?? {},
      subscription: null,
      url: `${this.baseUrl}/pay/${id}`,
      line_items_price: lineItems[0]!.price,
      subscription_metadata:
        (body.subscription_data as { metadata?: unknown } | undefined)?.metadata ?? {},
    };
    this.sessions.set(id, session);
    return session;
  }

  private subscriptionItem(subscription: StripeObject) {
    return (subscription.items as { data: StripeObject[] }).data[0]!;
  }

  private updateSubscription(subscription: StripeObject, body: Record<string, unknown>) {
    if (subscription.status === 'canceled') {
      throw new StripeError(
        400,
        'A canceled subscription can only update its cancellation_details and metadata.',
      );
    }
    if (body.cancel_at_period_end !== undefined) {
      subscription.cancel_at_period_end = body.cancel_at_period_end === 'true';
    }
    const items = body.items as { id?: string; price?: string }[] | undefined;
    if (items?.[0]?.price) {
      const item = this.subscriptionItem(subscription);
      if (items[0].id && items[0].id !== item.id)
        throw new StripeError(400, 'No such subscription item');
      item.price = { id: items[0].price, object: 'price' };
      if (body.proration_behavior === 'always_invoice') {
        this.createInvoice(subscription, 'paid', 1000);
      }
    }
    return subscription;
  }

  private endSubscription(subscription: StripeObject) {
    subscription.status = 'canceled';
    subscription.canceled_at = this.clock;
    subscription.ended_at = this.clock;
    return subscription;
  }

  // ── helpers for tests ─────────────────────────────────────────────────────

  /** What a subscription paid for through checkout looks like (active, a month from now). */
  createSubscription(input: {
    customer: string;
    price: string;
    metadata?: Record<string, unknown>;
    status?: string;
    periodEnd?: number;
  }): StripeObject {
    const id = this.nextId('sub');
    const subscription: StripeObject = {
      id,
      object: 'subscription',
      customer: input.customer,
      status: input.status ?? 'active',
      cancel_at_period_end: false,
      metadata: input.metadata ?? {},
      created: this.clock,
      items: {
        object: 'list',
        data: [
          {
            id: this.nextId('si'),
            object: 'subscription_item',
            price: { id: input.price, object: 'price' },
            quantity: 1,
            current_period_start: this.clock,
            current_period_end: input.periodEnd ?? this.clock + 30 * DAY,
          },
        ],
      },
    };
    this.subscriptions.set(id, subscription);
    return subscription;
  }

  createInvoice(subscription: StripeObject, status: 'paid' | 'open', amount = 2000): StripeObject {
    const id = this.nextId('in');
    const invoice: StripeObject = {
      id,
      object: 'invoice',
      customer: subscription.customer,
      number: `FAKE-${String(this.invoices.size + 1).padStart(4, '0')}`,
      created: this.clock,
      currency: 'usd',
      status,
      amount_due: amount,
      amount_paid: status === 'paid' ? amount : 0,
      hosted_invoice_url: `${this.baseUrl}/invoices/${id}`,
      invoice_pdf: `${this.baseUrl}/invoices/${id}.pdf`,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: subscription.id, metadata: {} },
      },
    };
    this.invoices.set(id, invoice);
    return invoice;
  }

  /** A card attached to the customer, as after the browser confirmed a setup intent. */
  attachCard(customer: string, card: FakeCard = {}): StripeObject {
    const pm: StripeObject = {
      id: this.nextId('pm'),
      object: 'payment_method',
      type: 'card',
      customer,
      created: this.clock,
      card: {
        brand: card.brand ?? 'visa',
        last4: card.last4 ?? '4242',
        exp_month: card.expMonth ?? 12,
        exp_year: card.expYear ?? 2031,
      },
    };
    this.paymentMethods.set(pm.id, pm);
    return pm;
  }

  /**
   * Completes a checkout session as paying would: a customer if the session
   * had none, an active subscription with the session's price and metadata, a
   * paid invoice. Returns the events Stripe would send, oldest first.
   */
  completeCheckout(sessionId: string): StripeObject[] {
    const session = this.find(this.sessions, sessionId, 'checkout session');
    const customer =
      (session.customer as string | null) ?? this.createCustomer({ email: 'buyer@example.com' }).id;
    const subscription = this.createSubscription({
      customer,
      price: session.line_items_price as string,
      metadata: session.subscription_metadata as Record<string, unknown>,
    });
    this.attachCard(customer);
    const invoice = this.createInvoice(subscription, 'paid');
    Object.assign(session, { status: 'complete', customer, subscription: subscription.id });
    return [
      this.event('customer.subscription.created', structuredClone(subscription)),
      this.event('invoice.paid', structuredClone(invoice)),
      this.event('checkout.session.completed', structuredClone(session)),
    ];
  }

  /** An event as Stripe builds it; `created` defaults to the fake's clock. */
  event(
    type: string,
    object: StripeObject,
    extra: { created?: number; previousAttributes?: Record<string, unknown> } = {},
  ): StripeObject {
    const event: StripeObject = {
      id: this.nextId('evt'),
      object: 'event',
      api_version: '2026-10-28.endive',
      type,
      created: extra.created ?? this.clock,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: {
        object: structuredClone(object),
        ...(extra.previousAttributes ? { previous_attributes: extra.previousAttributes } : {}),
      },
    };
    this.events.push(event);
    return event;
  }

  /** The body and Stripe-Signature header of an event, signed by the SDK's test helper. */
  sign(event: StripeObject, secret = this.options.webhookSecret): SignedDelivery {
    const payload = JSON.stringify(event, null, 2);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
    return { payload, signature };
  }

  /** Sends events to the configured webhook URL, in order; returns the answers' statuses. */
  async deliver(events: StripeObject[]): Promise<number[]> {
    const url = this.options.webhookUrl;
    if (!url) throw new Error('No webhookUrl configured');
    const statuses: number[] = [];
    for (const event of events) {
      const { payload, signature } = this.sign(event);
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'Stripe-Signature': signature,
        },
        body: payload,
      });
      statuses.push(response.status);
    }
    return statuses;
  }

  // ── the hosted checkout page (end-to-end tests) ───────────────────────────

  private async checkoutPage(method: string, url: URL, response: ServerResponse) {
    const [, , sessionId, action] = url.pathname.split('/');
    const session = this.sessions.get(sessionId ?? '');
    if (!session) {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('No such checkout session');
      return;
    }
    if (method === 'POST' && action === 'pay') {
      await this.deliver(this.completeCheckout(session.id));
      response.writeHead(303, { Location: session.success_url as string });
      response.end();
      return;
    }
    const escape = (text: string) =>
      text.replace(
        /[&<>"]/g,
        (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!,
      );
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><title>Fake Checkout</title></head><body>
<h1>Fake Checkout</h1><p>Price <span id="price">${escape(String(session.line_items_price))}</span></p>
<form method="post" action="/pay/${escape(session.id)}/pay"><button type="submit">Pay</button></form>
<a href="${escape(String(session.cancel_url))}">Cancel</a></body></html>`);
  }
}
