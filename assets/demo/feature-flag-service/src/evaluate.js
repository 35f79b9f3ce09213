import { createHash } from 'node:crypto';

/** Stable bucket 0-99 for a user and flag, so a rollout percentage keeps the same users in. */
export function bucket(flagKey, userId) {
  return createHash('sha1').update(`${flagKey}:${userId}`).digest().readUInt32BE(0) % 100;
}

function matches(rule, user) {
  const value = user.attributes?.[rule.attribute];
  switch (rule.op) {
    case 'in': return rule.values.includes(value);
    case 'not_in': return !rule.values.includes(value);
    case 'ends_with': return typeof value === 'string' && rule.values.some((v) => value.endsWith(v));
    default: return false;
  }
}

/** Evaluates a flag for a user: disabled → off; first matching rule wins; else the rollout. */
export function evaluate(flag, user) {
  if (!flag.enabled) return { on: false, reason: 'disabled' };
  for (const rule of flag.rules ?? []) if (matches(rule, user)) return { on: rule.serve, reason: `rule:${rule.attribute}` };
  return { on: bucket(flag.key, user.id) < (flag.rolloutPercent ?? 0), reason: 'rollout' };
}
