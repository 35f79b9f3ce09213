import Fastify from 'fastify';
import Redis from 'ioredis';
import { evaluate } from './evaluate.js';

const redis = new Redis(process.env.REDIS_URL);
const sub = new Redis(process.env.REDIS_URL);
const app = Fastify({ logger: true });
const clients = new Set();

const getFlag = async (key) => JSON.parse((await redis.hget('flags', key)) ?? 'null');

app.get('/flags', async () => Object.values(await redis.hgetall('flags')).map((f) => JSON.parse(f)));

app.put('/flags/:key', async (req) => {
  const flag = { ...req.body, key: req.params.key, updatedAt: new Date().toISOString() };
  await redis.hset('flags', flag.key, JSON.stringify(flag));
  await redis.lpush(`audit:${flag.key}`, JSON.stringify({ by: req.headers['x-user'] ?? 'unknown', flag }));
  await redis.publish('flag-updates', JSON.stringify(flag));
  return flag;
});

app.get('/flags/:key/history', async (req) => (await redis.lrange(`audit:${req.params.key}`, 0, 49)).map((e) => JSON.parse(e)));

app.post('/evaluate/:key', async (req, reply) => {
  const flag = await getFlag(req.params.key);
  if (!flag) return reply.code(404).send({ error: 'unknown_flag' });
  return evaluate(flag, req.body);
});

// SDKs keep flags in memory and listen here for changes
app.get('/stream', (req, reply) => {
  reply.raw.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  clients.add(reply.raw);
  req.raw.on('close', () => clients.delete(reply.raw));
});

sub.subscribe('flag-updates');
sub.on('message', (_channel, payload) => {
  for (const res of clients) res.write(`event: flag\ndata: ${payload}\n\n`);
});

app.listen({ port: Number(process.env.PORT ?? 3000), host: '0.0.0.0' });
