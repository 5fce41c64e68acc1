import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the Stripe SDK made, as the stand-in server received it. */
export interface StripeCall {
  method: string;
  path: string;
  /** Form fields exactly as sent, e.g. `items[0][price]`. */
  form: Record<string, string>;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
}

interface FakeSubscription {
  id: string;
  customer: string;
  itemId: string;
  price: string;
  cancelAtPeriodEnd: boolean;
  start: number;
  end: number;
  metadata: Record<string, string>;
  /** Stripe's status; unset is `active` (issue 31's tests move it). */
  status?: string;
  /** Unix seconds a trial ends, if it has one. */
  trialEnd?: number;
}

const DAY = 24 * 60 * 60;

/**
 * A stand-in for the few Stripe endpoints the adapter calls, on 127.0.0.1, so the
 * real `stripe` SDK can be pointed at it (host/port/protocol). It answers like
 * Stripe does (form-encoded requests, JSON objects, error envelopes with the same
 * HTTP statuses) and records every request for the tests to assert on. It is not
 * Stripe: it knows nothing of prices, invoices or proration, only enough state to
 * answer consistently.
 *
 * Special payment method ids: `pm_missing…` does not exist (404 resource_missing),
 * `pm_card_chargeDeclined` attaches but its charge is declined (402 card_error),
 * as with Stripe's own test ids.
 */
export class FakeStripe {
  readonly calls: StripeCall[] = [];
  /** Answer every request with a 500 api_error (Stripe having a bad day). */
  failing = false;
  private server?: Server;
  private seq = 0;
  private readonly customers = new Map<string, { defaultPaymentMethod: string | null }>();
  private readonly subscriptions = new Map<string, FakeSubscription>();
  /** Unix seconds the fake uses as "now" for new periods. */
  now = Math.floor(Date.UTC(2030, 0, 15) / 1000);
  /** Metering (issue 31): the meter events accepted, one per identifier (a repeat is not counted again, as with Stripe). */
  readonly meterEvents: { event_name: string; identifier: string; payload: { stripe_customer_id: string; value: string }; timestamp: number }[] = [];

  async start(): Promise<{ host: string; port: number }> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return { host: '127.0.0.1', port: this.port };
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The env that points the app's Stripe adapter here. */
  env(port: number): Record<string, string> {
    return {
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_statichostFake123',
      STRIPE_PRICE_PRO_MONTH: 'price_proMonth',
      STRIPE_PRICE_PRO_YEAR: 'price_proYear',
      STRIPE_PRICE_TEAM_MONTH: 'price_teamMonth',
      STRIPE_PRICE_TEAM_YEAR: 'price_teamYear',
      STRIPE_API_HOST: '127.0.0.1',
      STRIPE_API_PORT: String(port),
      STRIPE_API_PROTOCOL: 'http',
    };
  }

  /** Calls made since `mark` (a previous `calls.length`). */
  since(mark: number): StripeCall[] {
    return this.calls.slice(mark);
  }

  private id(prefix: string): string {
    return `${prefix}_fake${++this.seq}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const path = (req.url ?? '').split('?')[0];
      if (this.hostedPage(req.method ?? '', path, res)) return;
      this.calls.push({
        method: req.method ?? '',
        path,
        form,
        authorization: req.headers.authorization,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        stripeVersion: req.headers['stripe-version'] as string | undefined,
      });
      const [status, body] = this.failing
        ? error(500, 'api_error', 'Something went wrong on Stripe’s end.')
        : this.route(req.method ?? '', path, form, req.headers['idempotency-key'] as string | undefined);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': `req_${this.seq}` });
      res.end(JSON.stringify(body));
    });
  }

  private route(method: string, path: string, form: Record<string, string>, idempotencyKey: string | undefined): [number, unknown] {
    const hosted = this.hostedRoute(method, path, form, idempotencyKey);
    if (hosted) return hosted;
    const read = this.lifecycleRoute(method, path);
    if (read) return read;
    if (method !== 'POST') return error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path})`);
    let m: RegExpExecArray | null;
    if (path === '/v1/customers') {
      const id = this.id('cus');
      this.customers.set(id, { defaultPaymentMethod: null });
      return [200, { id, object: 'customer', name: form.name, email: form.email, metadata: metadataOf(form) }];
    }
    if ((m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const customer = this.customers.get(m[1]);
      if (!customer) return missing('customer', m[1]);
      if ('invoice_settings[default_payment_method]' in form) customer.defaultPaymentMethod = form['invoice_settings[default_payment_method]'];
      return [200, { id: m[1], object: 'customer', invoice_settings: { default_payment_method: customer.defaultPaymentMethod } }];
    }
    if ((m = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(path))) {
      if (m[1].startsWith('pm_missing')) return missing('payment_method', m[1]);
      if (!this.customers.has(form.customer)) return missing('customer', form.customer);
      return [200, paymentMethod(m[1], form.customer)];
    }
    if ((m = /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(path))) {
      return [200, paymentMethod(m[1], null)];
    }
    if (path === '/v1/subscriptions') {
      const customer = this.customers.get(form.customer);
      if (!customer) return missing('customer', form.customer);
      if (customer.defaultPaymentMethod === 'pm_card_chargeDeclined') {
        return [402, { error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } }];
      }
      const sub: FakeSubscription = {
        id: this.id('sub'),
        customer: form.customer,
        itemId: this.id('si'),
        price: form['items[0][price]'],
        cancelAtPeriodEnd: false,
        start: this.now,
        end: this.now + (form['items[0][price]'].endsWith('Year') ? 365 : 31) * DAY,
        metadata: metadataOf(form),
      };
      this.subscriptions.set(sub.id, sub);
      return [200, subscription(sub)];
    }
    if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = this.subscriptions.get(m[1]);
      if (!sub) return missing('subscription', m[1]);
      if ('cancel_at_period_end' in form) sub.cancelAtPeriodEnd = form.cancel_at_period_end === 'true';
      if (form['items[0][price]']) {
        const yearly = form['items[0][price]'].endsWith('Year');
        if (yearly !== sub.price.endsWith('Year')) {
          sub.start = this.now;
          sub.end = this.now + (yearly ? 365 : 31) * DAY;
        }
        sub.price = form['items[0][price]'];
      }
      return [200, subscription(sub)];
    }
    // --- Metering (issue 31): Billing Meter events. Like Stripe, an identifier seen before is not counted again. ---
    if (path === '/v1/billing/meter_events') {
      const event = {
        event_name: form.event_name,
        identifier: form.identifier,
        payload: { stripe_customer_id: form['payload[stripe_customer_id]'], value: form['payload[value]'] },
        timestamp: Number(form.timestamp),
      };
      if (!this.meterEvents.some((e) => e.identifier === event.identifier)) this.meterEvents.push(event);
      return [200, { object: 'billing.meter_event', created: this.now, livemode: false, ...event }];
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (POST: ${path})`);
  }

  // --- Checkout and the customer portal (issue 31, area checkout) ---

  /** The port the stand-in listens on: its hosted pages' URLs are on itself. */
  private port = 0;
  /** Checkout Sessions made, by id, with the form they were made from and where they stand (`payCheckout` pays one). */
  readonly checkoutSessions = new Map<string, { form: Record<string, string>; url: string; status: 'open' | 'complete' | 'expired'; subscription?: string }>();
  /** As Stripe does: a POST /v1/checkout/sessions repeated with its idempotency key answers the session it made. */
  private readonly checkoutByKey = new Map<string, string>();

  /** The payer finished a Checkout on the hosted page: it can no longer be expired, and names the subscription it started. */
  payCheckout(id: string, subscription?: string): void {
    const session = this.checkoutSessions.get(id)!;
    session.status = 'complete';
    session.subscription = subscription;
  }

  private checkoutObject(id: string) {
    const { form, url, status, subscription } = this.checkoutSessions.get(id)!;
    return {
      id,
      object: 'checkout.session',
      mode: form.mode,
      customer: form.customer,
      client_reference_id: form.client_reference_id ?? null,
      metadata: metadataOf(form),
      status,
      payment_status: status === 'complete' ? 'paid' : 'unpaid',
      subscription: subscription ?? null,
      success_url: form.success_url,
      cancel_url: form.cancel_url,
      url: status === 'open' ? url : null,
    };
  }
  /** Portal sessions made, by id. */
  readonly portalSessions = new Map<string, { form: Record<string, string>; url: string }>();

  /** POST /v1/checkout/sessions and /v1/billing_portal/sessions: a session whose URL is a page of this stand-in. */
  private hostedRoute(method: string, path: string, form: Record<string, string>, idempotencyKey: string | undefined): [number, unknown] | null {
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const replayed = idempotencyKey === undefined ? undefined : this.checkoutByKey.get(idempotencyKey);
      if (replayed) return [200, { ...this.checkoutObject(replayed), url: this.checkoutSessions.get(replayed)!.url }];
      if (!this.customers.has(form.customer)) return missing('customer', form.customer);
      const id = this.id('cs_test');
      const url = `http://127.0.0.1:${this.port}/checkout/${id}`;
      this.checkoutSessions.set(id, { form, url, status: 'open' });
      if (idempotencyKey !== undefined) this.checkoutByKey.set(idempotencyKey, id);
      return [200, this.checkoutObject(id)];
    }
    let m: RegExpExecArray | null;
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) {
      return this.checkoutSessions.has(m[1]) ? [200, this.checkoutObject(m[1])] : missing('checkout.session', m[1]);
    }
    if (method === 'POST' && (m = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(path))) {
      const session = this.checkoutSessions.get(m[1]);
      if (!session) return missing('checkout.session', m[1]);
      // Stripe's refusal for a session that is not open.
      if (session.status !== 'open')
        return error(
          400,
          'invalid_request_error',
          `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
        );
      session.status = 'expired';
      return [200, this.checkoutObject(m[1])];
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!this.customers.has(form.customer)) return missing('customer', form.customer);
      const id = this.id('bps');
      const url = `http://127.0.0.1:${this.port}/portal/${id}`;
      this.portalSessions.set(id, { form, url });
      return [200, { id, object: 'billing_portal.session', customer: form.customer, return_url: form.return_url, url }];
    }
    return null;
  }

  // ---- Issue 31, the subscription lifecycle: reads the webhook handler makes, and the tests' controls. ----

  private readonly charges = new Map<string, { customer: string }>();

  /** GET /v1/subscriptions/:id (the handler re-reads a subscription for every event about it) and GET /v1/charges/:id (a dispute's customer). */
  private lifecycleRoute(method: string, path: string): [number, unknown] | null {
    if (method !== 'GET') return null;
    let m: RegExpExecArray | null;
    if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = this.subscriptions.get(m[1]);
      return sub ? [200, subscription(sub)] : missing('subscription', m[1]);
    }
    if ((m = /^\/v1\/charges\/([^/]+)$/.exec(path))) {
      const charge = this.charges.get(m[1]);
      return charge ? [200, { id: m[1], object: 'charge', customer: charge.customer }] : missing('charge', m[1]);
    }
    return null;
  }

  /** GET /checkout/:id and /portal/:id: a small page standing in for Stripe's, linking back as Stripe's would. */
  private hostedPage(method: string, path: string, res: ServerResponse): boolean {
    const m = /^\/(checkout|portal)\/([^/]+)$/.exec(path);
    if (method !== 'GET' || !m) return false;
    const session = (m[1] === 'checkout' ? this.checkoutSessions : this.portalSessions).get(m[2]);
    if (!session) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('No such session');
      return true;
    }
    const back = m[1] === 'checkout' ? session.form.cancel_url : session.form.return_url;
    const title = m[1] === 'checkout' ? `Stand-in Checkout ${m[2]}` : `Stand-in billing portal ${m[2]}`;
    const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><title>${escape(title)}</title><h1>${escape(title)}</h1><a href="${escape(back ?? '')}">Back</a></html>`);
    return true;
  }

  /** A customer made outside the adapter (as a Checkout Session makes one). */
  addCustomer(): string {
    const id = this.id('cus');
    this.customers.set(id, { defaultPaymentMethod: null });
    return id;
  }

  /** A subscription made outside the adapter (as a completed Checkout makes one), running from `now` for a month. */
  addSubscription(input: { customer: string; price: string; metadata?: Record<string, string> }): string {
    const sub: FakeSubscription = {
      id: this.id('sub'),
      customer: input.customer,
      itemId: this.id('si'),
      price: input.price,
      cancelAtPeriodEnd: false,
      start: this.now,
      end: this.now + 31 * DAY,
      metadata: input.metadata ?? {},
    };
    this.subscriptions.set(sub.id, sub);
    return sub.id;
  }

  /** Moves a subscription as Stripe would (a renewal failing, a cancellation): the next read returns it so. */
  updateSubscription(id: string, changes: Partial<Pick<FakeSubscription, 'status' | 'cancelAtPeriodEnd' | 'start' | 'end' | 'price' | 'trialEnd'>>): void {
    Object.assign(this.subscriptions.get(id)!, changes);
  }

  /** The subscription as Stripe's API returns it, e.g. for an event's `data.object`. */
  subscriptionObject(id: string): Record<string, unknown> {
    return subscription(this.subscriptions.get(id)!);
  }

  /** A charge to `customer`, e.g. one to dispute. */
  addCharge(customer: string): string {
    const id = this.id('ch');
    this.charges.set(id, { customer });
    return id;
  }
}

function error(status: number, type: string, message: string, extra: Record<string, unknown> = {}): [number, unknown] {
  return [status, { error: { type, message, ...extra } }];
}

function missing(kind: string, id: string): [number, unknown] {
  return error(404, 'invalid_request_error', `No such ${kind}: '${id}'`, {
    code: 'resource_missing',
    param: kind === 'payment_method' ? 'payment_method' : 'id',
  });
}

function metadataOf(form: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(form).flatMap(([k, v]) => (/^metadata\[(.+)\]$/.exec(k) ? [[/^metadata\[(.+)\]$/.exec(k)![1], v]] : [])));
}

function paymentMethod(id: string, customer: string | null) {
  return { id, object: 'payment_method', type: 'card', customer, card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 } };
}

function subscription(sub: FakeSubscription) {
  return {
    id: sub.id,
    object: 'subscription',
    customer: sub.customer,
    status: sub.status ?? 'active',
    trial_end: sub.trialEnd ?? null,
    cancel_at_period_end: sub.cancelAtPeriodEnd,
    metadata: sub.metadata,
    items: {
      object: 'list',
      data: [
        {
          id: sub.itemId,
          object: 'subscription_item',
          price: { id: sub.price, object: 'price' },
          current_period_start: sub.start,
          current_period_end: sub.end,
        },
      ],
    },
  };
}
