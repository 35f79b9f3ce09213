/** The part of `negotiator` (1.x, no types of its own) that ./representation.ts uses. */
declare module 'negotiator' {
  import type { IncomingMessage } from 'node:http';

  export default class Negotiator {
    constructor(request: Pick<IncomingMessage, 'headers'>);
    /** The types of `available` the request accepts, most preferred first. */
    mediaTypes(available?: string[]): string[];
  }
}
