import { readFileSync } from 'node:fs';

const LEAKED = new Set(readFileSync(new URL('./leaked.txt', import.meta.url), 'utf8').split('\n').filter(Boolean));
const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1234567890'];
const MESSAGES = {
  en: { leaked: 'This password appears in leaked password lists.', short: 'Use at least 12 characters.',
        pattern: 'Avoid keyboard walks, sequences and repeated characters.', date: 'Avoid dates and years.',
        variety: 'Mix upper and lower case, digits and symbols.', ok: 'Strong password.' },
  de: { leaked: 'Dieses Passwort steht in Listen geleakter Passwörter.', short: 'Mindestens 12 Zeichen verwenden.',
        pattern: 'Tastaturmuster, Folgen und Wiederholungen vermeiden.', date: 'Daten und Jahreszahlen vermeiden.',
        variety: 'Groß- und Kleinbuchstaben, Ziffern und Symbole mischen.', ok: 'Starkes Passwort.' },
  fr: { leaked: 'Ce mot de passe figure dans des listes de fuites.', short: 'Utilisez au moins 12 caractères.',
        pattern: 'Évitez les suites de clavier, séquences et répétitions.', date: 'Évitez les dates et années.',
        variety: 'Mélangez majuscules, minuscules, chiffres et symboles.', ok: 'Mot de passe robuste.' },
};

function charsetSize(pw) {
  let size = 0;
  if (/[a-z]/.test(pw)) size += 26;
  if (/[A-Z]/.test(pw)) size += 26;
  if (/\d/.test(pw)) size += 10;
  if (/[^a-zA-Z0-9]/.test(pw)) size += 33;
  return size;
}

export function patterns(pw) {
  const lower = pw.toLowerCase();
  const found = [];
  for (const row of KEYBOARD_ROWS)
    for (let i = 0; i + 4 <= row.length; i++) if (lower.includes(row.slice(i, i + 4))) found.push('keyboard');
  if (/(.)\1{2,}/.test(pw)) found.push('repeat');
  for (let i = 0; i + 3 <= lower.length; i++) {
    const [a, b, c] = [...lower.slice(i, i + 3)].map((ch) => ch.charCodeAt(0));
    if (b - a === 1 && c - b === 1) found.push('sequence');
  }
  if (/(19|20)\d{2}/.test(pw)) found.push('date');
  return [...new Set(found)];
}

/** Score 0-4 with an entropy estimate (bits) and localised feedback. */
export function checkPassword(pw, { locale = 'en' } = {}) {
  const t = MESSAGES[locale] ?? MESSAGES.en;
  if (LEAKED.has(pw.toLowerCase())) return { score: 0, entropy: 0, feedback: [t.leaked] };
  const found = patterns(pw);
  // every pattern found halves the effective length it covers
  const entropy = Math.round(pw.length * Math.log2(charsetSize(pw) || 1) * (found.length ? 0.6 : 1));
  const feedback = [];
  if (pw.length < 12) feedback.push(t.short);
  if (found.some((f) => f !== 'date')) feedback.push(t.pattern);
  if (found.includes('date')) feedback.push(t.date);
  if (charsetSize(pw) < 62) feedback.push(t.variety);
  const score = entropy >= 80 ? 4 : entropy >= 60 ? 3 : entropy >= 40 ? 2 : entropy >= 28 ? 1 : 0;
  return { score, entropy, feedback: feedback.length ? feedback : [t.ok] };
}
