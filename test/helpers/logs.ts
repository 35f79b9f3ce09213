import { expect } from 'vitest';
import pino, { type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface CapturedLogs {
  /** A real pino logger (level info) whose lines are kept in memory. */
  logger: Logger;
  lines: LogLine[];
  /** Lines at error level or above (pino: error 50, fatal 60). */
  errors(): LogLine[];
}

/** A logger for the app under test whose output the test can read back. */
export function captureLogs(): CapturedLogs {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  );
  return { logger, lines, errors: () => lines.filter((l) => l.level >= 50) };
}

/** Waits until `lines` holds at least `count` lines, or `ms` have passed (the caller asserts). */
export async function waitForLines(lines: LogLine[], count: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (lines.length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Asserts at least two lines, each the one warn line a pass that met an unreachable database
 * logs: `msg`, a `reason` matching, the other `fields`, and no `err` (so no stack).
 */
export function expectOutOfReachWarnings(
  lines: LogLine[],
  msg: string,
  reason: RegExp,
  fields: Record<string, unknown> = {},
): void {
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const line of lines) {
    expect(line).toEqual(
      expect.objectContaining({ level: 40, msg, reason: expect.stringMatching(reason), ...fields }),
    );
    expect(line).not.toHaveProperty('err');
  }
}
