import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000;

export interface Round {
  perSecond: number;
  /** This process's CPU per request (ms): the server's own cost, less sensitive to other load. */
  cpuMs: number;
  failures: number;
}

/** HTTP load from a child process (./payments-driver.ts), measured from this (the server) process. */
export class Driver {
  private constructor(
    private readonly child: ChildProcess,
    private readonly concurrency: number,
  ) {}

  static async start(concurrency: number): Promise<Driver> {
    const file = fileURLToPath(new URL('./payments-driver.ts', import.meta.url));
    const child = fork(file, [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('error', reject);
    });
    return new Driver(child, concurrency);
  }

  /** POSTs one request per signed header to `url`. */
  round(url: string, headers: string[], body?: string): Promise<Round> {
    return this.run({ url, headers, body }, headers.length);
  }

  /** GETs every URL. */
  gets(urls: string[]): Promise<Round> {
    return this.run({ urls }, urls.length);
  }

  private async run(job: object, n: number): Promise<Round> {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const reply = await new Promise<{ seconds: number; failures: number; error?: string }>(
      (resolve) => {
        this.child.once('message', (m) => resolve(m as { seconds: number; failures: number }));
        this.child.send({ ...job, concurrency: this.concurrency });
      },
    );
    if (reply.error) throw new Error(`load driver: ${reply.error}`);
    const seconds = (performance.now() - started) / 1000;
    return {
      perSecond: n / seconds,
      cpuMs: cpuMs(process.cpuUsage(cpu)) / n,
      failures: reply.failures,
    };
  }

  stop(): void {
    this.child.send('exit');
  }
}
