import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/**
 * The approval path for clients that cannot ask the human (no elicitation): a purchase above the
 * confirmation threshold becomes a pending approval whose one-time code is shown only to the
 * human (the approval page of the HTTP transport, and the server's log on stderr, which MCP
 * clients keep in their server log), never in a tool result. The human reads the code to the
 * model, confirm_purchase checks it, and the same purchase (wallet, item, price) called again
 * within the validity goes through once. The text shown is built from our own fields.
 */
export interface PendingApproval {
  id: string;
  code: string;
  wallet: string;
  /** Item bought. */
  ref: string;
  usdc: number;
  /** What the human is shown: price, chain, listing id, seller, recipient. */
  text: string;
  expiresAt: number;
  approved: boolean;
  /** Wrong codes so far; the approval is dropped at the fifth. */
  misses: number;
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O, 1/I

export class Approvals {
  private readonly pending = new Map<string, PendingApproval>();

  constructor(
    /** Tells the human (log line, page); returns where the code can be read, for the model. */
    private readonly show: (a: PendingApproval) => string,
    private readonly ttlMs = 10 * 60_000,
    private readonly now = () => Date.now(),
  ) {}

  private sweep(): void {
    for (const [id, a] of this.pending) if (a.expiresAt <= this.now()) this.pending.delete(id);
  }

  /** Opens an approval; returns its id and where the human reads the code. */
  request(wallet: string, ref: string, usdc: number, text: string): { id: string; where: string } {
    this.sweep();
    const bytes = randomBytes(8);
    const code = [...bytes].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
    const a: PendingApproval = {
      id: randomUUID(),
      code,
      wallet: wallet.toLowerCase(),
      ref,
      usdc,
      text,
      expiresAt: this.now() + this.ttlMs,
      approved: false,
      misses: 0,
    };
    this.pending.set(a.id, a);
    return { id: a.id, where: this.show(a) };
  }

  get(id: string): PendingApproval | undefined {
    this.sweep();
    return this.pending.get(id);
  }

  /** Checks the code the human read out (constant time, case-insensitive). */
  confirm(id: string, code: string): PendingApproval | 'unknown' | 'wrong_code' {
    const a = this.get(id);
    if (!a) return 'unknown';
    const given = Buffer.from(code.trim().toUpperCase());
    const expected = Buffer.from(a.code);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      if (++a.misses >= 5) this.pending.delete(id);
      return 'wrong_code';
    }
    a.approved = true;
    return a;
  }

  /** Uses up an approved approval for exactly this purchase, if there is one. */
  consume(wallet: string, ref: string, usdc: number): boolean {
    this.sweep();
    for (const [id, a] of this.pending) {
      if (a.approved && a.wallet === wallet.toLowerCase() && a.ref === ref && a.usdc === usdc) {
        this.pending.delete(id);
        return true;
      }
    }
    return false;
  }
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `GET /approvals/<id>` of the HTTP transport: the page the human opens to read the code (the
 * link is the credential: an unguessable id, on a loopback-only or token-protected server).
 */
export function approvalPage(approvals: Approvals, id: string): string | undefined {
  const a = approvals.get(id);
  if (!a) return undefined;
  return (
    '<!doctype html><meta charset="utf-8"><meta name="robots" content="noindex">' +
    '<title>Approve a purchase</title><body style="font-family:sans-serif;max-width:40em;margin:2em auto">' +
    `<h1>Approve a purchase?</h1><p>${escape(a.text)}</p>` +
    `<p>If you want this purchase, tell your assistant this one-time code:</p>` +
    `<p style="font-size:2em;font-family:monospace;letter-spacing:.2em">${a.code}</p>` +
    `<p>It expires at ${new Date(a.expiresAt).toISOString()}. If you do not want it, do nothing.</p></body>`
  );
}
