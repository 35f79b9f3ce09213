import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import { findAgentByAddress, type Agent } from './accounts.js';

/**
 * The agent behind a verified identity signature (spec 5.2 rule 5): a wallet that never bought or
 * listed gets 404 `agent_not_found` from every account-scoped route (platform feedback excepted).
 * Identity never provisions.
 */
export async function requireAgent(sql: Db, address: string): Promise<Agent> {
  const agent = await findAgentByAddress(sql, address);
  if (!agent) {
    throw new AppError('agent_not_found', {
      message:
        'this wallet has no account yet; an account is created by its first purchase or listing',
    });
  }
  return agent;
}
