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
