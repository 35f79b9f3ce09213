/**
 * The one error type of the service. Domain code throws it with a spec error code; the HTTP error
 * handler renders `{ error: code, ...extras }` with its status, and MCP tools turn it into an
 * `isError` result. Nothing matches on message text.
 */
export interface AppErrorExtras {
  message?: string;
  reason?: string;
  retry_after?: number;
  transaction?: string;
  network?: string;
  /** Extra response headers (e.g. Retry-After). Never rendered into the body. */
  headers?: Record<string, string>;
  /** Extra fields for the body that the spec names for one code (kept explicit and small). */
  details?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly extras: AppErrorExtras;

  constructor(status: number, code: string, extras: AppErrorExtras = {}) {
    super(extras.message ?? code);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.extras = extras;
  }

  /** The JSON body the client sees. */
  toBody(): Record<string, unknown> {
    const { message, reason, retry_after, transaction, network, details } = this.extras;
    return {
      error: this.code,
      ...(message !== undefined && { message }),
      ...(reason !== undefined && { reason }),
      ...(retry_after !== undefined && { retry_after }),
      ...(transaction !== undefined && { transaction }),
      ...(network !== undefined && { network }),
      ...details,
    };
  }
}

export const notFound = (code = 'not_found', message?: string) =>
  new AppError(404, code, message ? { message } : {});
export const badRequest = (code: string, message?: string) =>
  new AppError(400, code, message ? { message } : {});
