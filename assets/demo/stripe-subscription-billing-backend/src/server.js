import Fastify from 'fastify';
import pg from 'pg';
import Stripe from 'stripe';

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY);
const db = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const app = Fastify({ logger: true });
const PLANS = { basic: process.env.PRICE_BASIC, pro: process.env.PRICE_PRO };

// raw body for signature verification
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => done(null, body));

app.post('/checkout', async (req, reply) => {
  const { plan, customerEmail } = JSON.parse(req.body.toString());
  if (!PLANS[plan]) return reply.code(400).send({ error: 'unknown_plan' });
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer_email: customerEmail,
    line_items: [{ price: PLANS[plan], quantity: 1 }],
    success_url: `${process.env.PUBLIC_URL}/billing/success`,
    cancel_url: `${process.env.PUBLIC_URL}/billing`,
  });
  return { url: session.url };
});

app.post('/subscriptions/:customer/change', async (req) => {
  const { plan } = JSON.parse(req.body.toString());
  const [sub] = (await stripe.subscriptions.list({ customer: req.params.customer, limit: 1 })).data;
  // proration: Stripe credits the unused time of the old price on the next invoice
  return stripe.subscriptions.update(sub.id, {
    items: [{ id: sub.items.data[0].id, price: PLANS[plan] }],
    proration_behavior: 'create_prorations',
  });
});

async function applyEvent(client, event) {
  const sub = event.data.object;
  switch (event.type) {
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      await client.query(
        `insert into subscriptions (customer_id, price_id, status, current_period_end)
         values ($1, $2, $3, to_timestamp($4))
         on conflict (customer_id) do update set price_id = $2, status = $3, current_period_end = to_timestamp($4)`,
        [sub.customer, sub.items.data[0].price.id, sub.status, sub.current_period_end],
      );
      break;
    case 'invoice.payment_succeeded':
      await stripe.invoices.sendInvoice(sub.id).catch(() => {}); // e-mail a copy; already sent is fine
      break;
  }
}

app.post('/webhooks/stripe', async (req, reply) => {
  let event;
  try {
    event = stripe.webhooks.constructEvent(req.body, req.headers['stripe-signature'], process.env.STRIPE_WEBHOOK_SECRET);
  } catch {
    return reply.code(400).send({ error: 'bad_signature' });
  }
  const client = await db.connect();
  try {
    await client.query('begin');
    const fresh = await client.query('insert into processed_events (event_id) values ($1) on conflict do nothing', [event.id]);
    if (fresh.rowCount === 1) await applyEvent(client, event); // a redelivered event changes nothing
    await client.query('commit');
  } catch (err) {
    await client.query('rollback');
    throw err;
  } finally {
    client.release();
  }
  return { received: true };
});

app.listen({ port: Number(process.env.PORT ?? 3000), host: '0.0.0.0' });
