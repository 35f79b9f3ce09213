import { randomInt } from 'node:crypto';

/** Spec 2.4: 6-32 characters, letters, digits, underscore, hyphen; starts and ends alphanumeric. */
export const USERNAME_RE = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{4,30})[A-Za-z0-9]$/;

const ADJECTIVES = [
  'brave',
  'calm',
  'clever',
  'swift',
  'quiet',
  'bright',
  'bold',
  'eager',
  'gentle',
  'happy',
  'keen',
  'lucky',
  'merry',
  'nimble',
  'proud',
  'rapid',
  'sharp',
  'steady',
  'sunny',
  'witty',
  'amber',
  'azure',
  'cosmic',
  'crisp',
  'golden',
  'silver',
  'misty',
  'noble',
  'royal',
  'vivid',
];
const ANIMALS = [
  'otter',
  'falcon',
  'badger',
  'heron',
  'lynx',
  'marten',
  'panda',
  'raven',
  'salmon',
  'tiger',
  'walrus',
  'wombat',
  'beaver',
  'bison',
  'condor',
  'dolphin',
  'ferret',
  'gecko',
  'ibis',
  'jackal',
  'koala',
  'lemur',
  'moose',
  'newt',
  'osprey',
  'puffin',
  'quail',
  'robin',
  'stoat',
  'viper',
];

/** A generated username like `brave-otter-042` (word-word-number); always valid by USERNAME_RE. */
export function generateUsername(): string {
  const a = ADJECTIVES[randomInt(ADJECTIVES.length)]!;
  const b = ANIMALS[randomInt(ANIMALS.length)]!;
  return `${a}-${b}-${String(randomInt(1000)).padStart(3, '0')}`;
}
