import type { AccountUsername, MarketplaceClient } from '../src/client/index.js';

/**
 * What differs between the contract revisions in the account tools (get_username, set_username,
 * send_platform_feedback): Revision B's wallet account below, Revision A's in
 * revision-a/account.ts; account.ts picks one per wallet client.
 */
export interface AccountFace {
  /** Whether set_username can still replace this username. */
  changeable(u: AccountUsername): boolean;
  /** Sets the username, or says why this marketplace refuses (nothing changed). */
  setUsername(
    wallet: MarketplaceClient,
    username: string,
  ): Promise<AccountUsername | { refused: string }>;
  /** A note on what part of a platform message was not sent, if any. */
  platformFeedbackNote(body: { contact?: string }): { note?: string };
}

/** Revision B: a generated name can be replaced once; platform feedback takes a contact. */
export const walletAccount: AccountFace = {
  changeable: (u) => u.username_type === 'automatic',
  setUsername: (wallet, username) => wallet.setUsername(username),
  platformFeedbackNote: () => ({}),
};
