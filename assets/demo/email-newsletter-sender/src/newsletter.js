import { createHmac, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';

const db = new Database(process.env.DB_PATH ?? 'newsletter.sqlite');
db.exec(`create table if not exists subscribers (
  email text primary key, token text not null, confirmed integer not null default 0,
  unsubscribed integer not null default 0, bounces integer not null default 0)`);

const transport = nodemailer.createTransport(process.env.SMTP_URL);
const SECRET = process.env.NEWSLETTER_SECRET ?? 'change-me';
const BASE = process.env.PUBLIC_URL ?? 'http://localhost:3000';

export const sign = (email) => createHmac('sha256', SECRET).update(email).digest('hex').slice(0, 32);
const render = (template, vars) => template.replace(/\{\{(\w+)\}\}/g, (_, k) => vars[k] ?? '');

/** Step one of double opt-in: store the address unconfirmed and mail a confirmation link. */
export async function subscribe(email) {
  const token = randomUUID();
  db.prepare('insert into subscribers (email, token) values (?, ?) on conflict(email) do update set token = excluded.token').run(email, token);
  await transport.sendMail({
    from: process.env.FROM_ADDRESS,
    to: email,
    subject: 'Please confirm your subscription',
    text: `Confirm: ${BASE}/confirm?token=${token}`,
  });
}

export function confirm(token) {
  return db.prepare('update subscribers set confirmed = 1 where token = ?').run(token).changes === 1;
}

export function unsubscribe(email, signature) {
  if (signature !== sign(email)) return false;
  return db.prepare('update subscribers set unsubscribed = 1 where email = ?').run(email).changes === 1;
}

/** Hard bounces unsubscribe at once; soft ones after three. */
export function recordBounce(email, hard) {
  db.prepare('update subscribers set bounces = bounces + 1, unsubscribed = case when ? or bounces + 1 >= 3 then 1 else unsubscribed end where email = ?').run(hard ? 1 : 0, email);
}

export async function sendIssue({ subject, html }) {
  const rows = db.prepare('select email from subscribers where confirmed = 1 and unsubscribed = 0').all();
  let sent = 0;
  for (const { email } of rows) {
    const unsubscribeUrl = `${BASE}/unsubscribe?email=${encodeURIComponent(email)}&sig=${sign(email)}`;
    try {
      await transport.sendMail({
        from: process.env.FROM_ADDRESS,
        to: email,
        subject,
        html: render(html, { email, unsubscribeUrl }),
        headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>` },
      });
      sent++;
    } catch (err) {
      recordBounce(email, err.responseCode >= 500);
    }
  }
  return { sent, total: rows.length };
}
