import { z } from 'zod';

/** The paging arguments of the account lists (list_my_items, list_my_orders), as REST takes them. */
export const PageArgs = {
  limit: z.number().int().min(1).max(100).optional().describe('Page size, 1..100 (default 100)'),
  offset: z.number().int().min(0).optional().describe('Rows to skip, >= 0 (default 0)'),
};
