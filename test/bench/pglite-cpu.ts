import { PGlite } from '@electric-sql/pglite';

/**
 * Counts the process CPU spent inside PGlite (its WASM running each batch of protocol messages)
 * by wrapping `execProtocolRawSync` on the prototype, for every PGlite in this process. `seen`,
 * when given, is shown each batch's messages before they run.
 */
export function meterPGliteCpu(seen?: (messages: Uint8Array) => void): {
  /** CPU milliseconds inside PGlite since the last `reset`. */
  ms(): number;
  reset(): void;
} {
  let ms = 0;
  const proto = PGlite.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  const execRaw = proto.execProtocolRawSync!;
  proto.execProtocolRawSync = function (this: unknown, ...a: unknown[]) {
    seen?.(a[0] as Uint8Array);
    const t = process.cpuUsage();
    try {
      return execRaw.apply(this, a);
    } finally {
      const d = process.cpuUsage(t);
      ms += (d.user + d.system) / 1000;
    }
  };
  return {
    ms: () => ms,
    reset: () => {
      ms = 0;
    },
  };
}
