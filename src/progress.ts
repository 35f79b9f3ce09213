import type { SingleBar } from 'cli-progress';

export interface Progress {
  /** Set the total (the first call starts the display) and how far the work got. */
  update(done: number, total: number, extra?: Record<string, number>): void;
  stop(): void;
}

/**
 * The progress of a one-shot command (`reindex`, `previews`) on stderr. A terminal gets a bar
 * (cli-progress); a pipe (a job runner, `docker exec` without -t, a file) gets one plain line
 * every `intervalMs`, plus one at the start and one at the end:
 * `reindex: 400/1000 listings (40%), 80.0/s, eta 8s`.
 * cli-progress is loaded here only: serve never needs it.
 */
export async function progressOnStderr(
  label: string,
  unit: string,
  opts: { intervalMs: number; extras?: string[]; stream?: NodeJS.WriteStream },
): Promise<Progress> {
  const { default: cliProgress } = await import('cli-progress');
  const stream = opts.stream ?? process.stderr;
  const extras = opts.extras ?? [];
  const terminal = stream.isTTY === true;
  const bar: SingleBar = new cliProgress.SingleBar(
    {
      stream,
      format: terminal
        ? `${label} [{bar}] {percentage}% | {value}/{total} ${unit}${extras
            .map((k) => ` | {${k}} ${k}`)
            .join('')} | {duration_formatted}`
        : (_options, params, payload: Record<string, number>) => {
            const elapsed = ((params.stopTime ?? Date.now()) - params.startTime) / 1000;
            const rate = elapsed > 0 ? params.value / elapsed : 0;
            const percent =
              params.total > 0 ? Math.floor((params.value / params.total) * 100) : 100;
            const eta =
              params.value >= params.total
                ? '0s'
                : rate > 0
                  ? `${Math.ceil((params.total - params.value) / rate)}s`
                  : 'unknown';
            return (
              `${label}: ${params.value}/${params.total} ${unit} (${percent}%)` +
              extras.map((k) => `, ${payload[k] ?? 0} ${k}`).join('') +
              `, ${rate.toFixed(1)}/s, eta ${eta}`
            );
          },
      // a pipe: a line per interval, and no empty line after the last
      noTTYOutput: true,
      notTTYSchedule: opts.intervalMs,
      clearOnComplete: !terminal,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, extra = {}) {
      if (!started) bar.start(total, 0, { ...extra });
      started = true;
      bar.setTotal(total);
      bar.update(done, extra);
    },
    stop: () => bar.stop(),
  };
}
