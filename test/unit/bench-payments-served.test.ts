import { describe, expect, it } from 'vitest';
import { countEnv, servedSummary } from '../bench/payments-served.js';

/** `npm run bench -- payments`: its settings and its summary, without serving anything. */
describe('the payments-as-served bench', () => {
  const round = (cpuMs: number) => ({ perSecond: 100, cpuMs, failures: 0 });

  it('BENCH_PAYMENTS_WARMUP=0: a side with no warm-up round is summarised, not a crash', () => {
    const side = { name: 'npm start', repeat: [round(2)], first: [round(3)], warmUpCpuMs: [] };
    const { perSide, lines } = servedSummary([side], [0.1]);
    expect(perSide['npm start']).toMatchObject({
      repeat_x_recovery: 20,
      first_time_x_recovery: 30,
      warm_up_cpu_ms: [],
    });
    expect(lines[0]).toContain('repeat 2.000 ms = 20x');
  });

  it("reports the kernel's share (system time) of a side's CPU when its rounds read it", () => {
    const withSystem = (cpuMs: number, systemCpuMs: number) => ({ ...round(cpuMs), systemCpuMs });
    const side = {
      name: 'npm start',
      repeat: [withSystem(2, 0.2), withSystem(2, 0.4)],
      first: [withSystem(3, 0.5), withSystem(3, 0.5)],
      warmUpCpuMs: [],
    };
    const { perSide, lines } = servedSummary([side], [0.1, 0.1]);
    expect(perSide['npm start']).toMatchObject({
      repeat_system_cpu_ms: 0.3,
      first_time_system_cpu_ms: 0.5,
    });
    expect(lines[0]).toContain('of the CPU, system 0.300 / 0.500 ms');
    // an in-process side without the split says nothing of it
    expect(
      servedSummary([{ ...side, repeat: [round(2)], first: [round(3)] }], [0.1]).lines[0],
    ).not.toContain('system');
  });

  it('reads 0 as no warm-up and refuses what is not a whole number in range', () => {
    expect(countEnv('W', 1200, 0, { W: '0' })).toBe(0);
    expect(countEnv('W', 1200, 0, {})).toBe(1200);
    for (const bad of ['-1', '1.5', 'ten', 'NaN'])
      expect(() => countEnv('W', 1200, 0, { W: bad })).toThrow(`W=${bad}`);
    expect(() => countEnv('R', 5, 1, { R: '0' })).toThrow('R=0: a whole number >= 1');
  });
});
