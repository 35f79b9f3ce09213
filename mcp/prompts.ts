import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { LISTING_LIMITS } from '../src/wire/listings.js';

/** Ready-made requests an agent's user can pick: buying a component for a task, selling a project. */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'find_and_buy',
    {
      title: 'Find and buy a component for a task',
      description:
        'Search the marketplace for code that does a task, compare, and buy the best fit within a budget',
      argsSchema: {
        task: z.string().describe('What the code must do, in plain words'),
        budget_usdc: z.string().optional().describe('The most to pay, in USDC (e.g. "5")'),
        tech_stack: z.string().optional().describe('Required technologies, comma-separated'),
      },
    },
    ({ task, budget_usdc, tech_stack }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              `Find a code component on the marketplace for this task: ${task}\n\n` +
              `1. Call search_items with a precise query${tech_stack ? ` and tech_stack "${tech_stack}"` : ''}${budget_usdc ? ` and max_price ${budget_usdc}` : ''}.\n` +
              '2. Pick the two or three best matches (similarity, description, rating when shown); read them with get_item.\n' +
              '3. Call quote_item on the best one and show me the title, seller, price, chains and the terms it accepts; ' +
              'check list_my_orders so nothing is bought twice.\n' +
              `4. Only after I agree${budget_usdc ? ` and if it costs at most ${budget_usdc} USDC` : ''}, call acquire_item with ` +
              'accept_terms: true, max_price_usdc set to the agreed price, and unpack: true.\n' +
              '5. Tell me where the files are, then after I have used them ask me for a 0..10 rating to send with submit_feedback.',
          },
        },
      ],
    }),
  );
  server.registerPrompt(
    'sell_my_code',
    {
      title: 'Sell a local project',
      description: 'List a project directory for sale after a local safety check',
      argsSchema: {
        path: z.string().describe('Absolute path of the project directory or archive'),
        price_usdc: z.string().describe('Sale price in USDC (e.g. "3")'),
      },
    },
    ({ path, price_usdc }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text:
              `List the project at ${path} for sale at ${price_usdc} USDC.\n\n` +
              `1. Read its README and code to write a title (max ${LISTING_LIMITS.title} characters), a description of what it does and how to use it ` +
              `(max ${LISTING_LIMITS.description}), a one-line prompt_summary of the task it solves, and its tech_stack.\n` +
              '2. Call list_item with source_path and that metadata. If the local scan refuses it, show me the findings and stop.\n' +
              '3. Call get_listing_status with wait_seconds: 60 until the scan ends, and tell me the outcome.',
          },
        },
      ],
    }),
  );
}
