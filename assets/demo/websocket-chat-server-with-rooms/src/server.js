import Redis from 'ioredis';
import { WebSocketServer } from 'ws';

const redis = new Redis(process.env.REDIS_URL);
const sub = new Redis(process.env.REDIS_URL);
const HISTORY = 50;
const rooms = new Map(); // room -> Set of sockets on this instance

function join(ws, room, user) {
  if (!rooms.has(room)) rooms.set(room, new Set());
  rooms.get(room).add(ws);
  ws.room = room;
  ws.user = user;
}

function leave(ws) {
  const members = rooms.get(ws.room);
  if (!members) return;
  members.delete(ws);
  if (members.size === 0) rooms.delete(ws.room);
}

async function history(room) {
  const entries = await redis.xrevrange(`chat:${room}`, '+', '-', 'COUNT', HISTORY);
  return entries.reverse().map(([, fields]) => JSON.parse(fields[1]));
}

async function publish(room, event) {
  if (event.type === 'message') await redis.xadd(`chat:${room}`, 'MAXLEN', '~', 1000, '*', 'event', JSON.stringify(event));
  await redis.publish(`room:${room}`, JSON.stringify(event));
}

// every instance relays what any instance published to its own sockets in that room
sub.psubscribe('room:*');
sub.on('pmessage', (_pattern, channel, payload) => {
  for (const ws of rooms.get(channel.slice(5)) ?? []) ws.send(payload);
});

const wss = new WebSocketServer({ port: Number(process.env.PORT ?? 8080) });
wss.on('connection', (ws, req) => {
  const url = new URL(req.url, 'http://localhost');
  const room = url.searchParams.get('room') ?? 'lobby';
  const user = url.searchParams.get('user') ?? `guest-${Math.floor(Math.random() * 1e4)}`;
  join(ws, room, user);
  redis.sadd(`presence:${room}`, user);
  history(room).then((h) => ws.send(JSON.stringify({ type: 'history', messages: h })));
  publish(room, { type: 'join', user, at: Date.now() });
  ws.on('message', (data) => {
    const text = String(data).slice(0, 2000);
    if (text.trim()) publish(room, { type: 'message', user, text, at: Date.now() });
  });
  ws.on('close', async () => {
    leave(ws);
    await redis.srem(`presence:${room}`, user);
    publish(room, { type: 'leave', user, at: Date.now() });
  });
});
