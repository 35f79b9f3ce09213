import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The client cancelled the call (`notifications/cancelled`, or its connection went away). Thrown
 * only at points where nothing has been signed yet, or where what was paid is already recorded.
 */
export class Cancelled extends Error {
  constructor() {
    super('cancelled by the client');
    this.name = 'Cancelled';
  }
}

/**
 * Long work seen by the client: `notifications/progress` when the request carried a
 * `progressToken` (nothing otherwise), with `total` and a message, the progress increasing by one
 * per step; and the call's cancellation, as a check, a signal and a wait that ends early.
 */
export class Progress {
  private done = 0;

  constructor(
    private readonly extra: Pick<ToolExtra, '_meta' | 'signal' | 'sendNotification'>,
    /** The steps the whole call takes (the last step reaches it; more steps raise it). */
    readonly total: number,
  ) {}

  /** Aborted when the client cancels the call. */
  get signal(): AbortSignal {
    return this.extra.signal;
  }

  get cancelled(): boolean {
    return this.extra.signal.aborted;
  }

  /** Throws `Cancelled` when the client has cancelled the call. */
  check(): void {
    if (this.cancelled) throw new Cancelled();
  }

  /**
   * Reports the next step (`steps` further, 1 by default). A notification that cannot be sent
   * (the client went away) never fails the work.
   */
  async step(message: string, steps = 1): Promise<void> {
    this.done += steps;
    const token = this.extra._meta?.progressToken;
    if (token === undefined) return;
    await this.extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: this.done,
          total: Math.max(this.total, this.done),
          message,
        },
      })
      .catch(() => undefined);
  }

  /** Waits `ms`; throws `Cancelled` at once when the client cancels meanwhile. */
  async wait(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.extra.signal });
    } catch (err) {
      if (this.cancelled) throw new Cancelled();
      throw err;
    }
  }
}
