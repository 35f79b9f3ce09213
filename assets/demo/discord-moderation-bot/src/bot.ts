import { readFileSync } from 'node:fs';
import { Client, GatewayIntentBits, Partials, type Message, type TextChannel } from 'discord.js';

const config = JSON.parse(readFileSync('config.json', 'utf8')) as {
  logChannelId: string;
  roleMessageId: string;
  reactionRoles: Record<string, string>;
  floodLimit: number;
  floodWindowMs: number;
  blockedDomains: string[];
};

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.GuildMessageReactions],
  partials: [Partials.Message, Partials.Reaction],
});
const recent = new Map<string, number[]>();

async function log(text: string) {
  const channel = (await client.channels.fetch(config.logChannelId)) as TextChannel | null;
  await channel?.send(`🛡️ ${text}`);
}

export function spamLink(content: string, blocked: string[]): string | undefined {
  for (const m of content.matchAll(/https?:\/\/([^/\s]+)/gi)) {
    const host = m[1]!.toLowerCase();
    if (blocked.some((d) => host === d || host.endsWith(`.${d}`))) return host;
  }
  return undefined;
}

export function isFlood(times: number[], now: number, limit: number, windowMs: number): boolean {
  return times.filter((t) => now - t < windowMs).length > limit;
}

client.on('messageCreate', async (msg: Message) => {
  if (msg.author.bot || !msg.guild) return;
  const host = spamLink(msg.content, config.blockedDomains);
  if (host) {
    await msg.delete();
    await log(`deleted a link to ${host} from ${msg.author.tag} in <#${msg.channelId}>`);
    return;
  }
  const now = Date.now();
  const times = [...(recent.get(msg.author.id) ?? []), now].slice(-20);
  recent.set(msg.author.id, times);
  if (isFlood(times, now, config.floodLimit, config.floodWindowMs)) {
    await msg.member?.timeout(5 * 60_000, 'message flood');
    recent.delete(msg.author.id);
    await log(`timed out ${msg.author.tag} for 5 minutes (message flood)`);
  }
});

client.on('messageReactionAdd', async (reaction, user) => {
  if (reaction.message.id !== config.roleMessageId || user.bot) return;
  const roleName = config.reactionRoles[reaction.emoji.name ?? ''];
  const guild = reaction.message.guild;
  const role = guild?.roles.cache.find((r) => r.name === roleName);
  if (!role || !guild) return;
  await (await guild.members.fetch(user.id)).roles.add(role);
  await log(`gave ${role.name} to ${user.tag}`);
});

client.login(process.env.DISCORD_TOKEN);
