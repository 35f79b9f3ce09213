import type { AccountFace } from '../account-face.js';

/**
 * Revision A (API keys): the username is fixed when the wallet registers (a first signed call
 * registers under the asked name) and platform feedback takes the text only.
 */
export const keyedAccount: AccountFace = {
  changeable: () => false,
  async setUsername(wallet, username) {
    const current =
      wallet.knownUsername ??
      (await wallet.getUsername().then(
        (u) => u.username,
        () => undefined,
      ));
    if (current === username) return { username: current };
    return {
      refused:
        'set_username failed: this marketplace runs contract Revision A, where the username is fixed when the wallet ' +
        `registers and no route changes it; ${current ? `this account is registered as "${current}"` : 'this account registered earlier under another name (get_username reads it once a listing is active)'}. ` +
        'Nothing was changed. Only a wallet that has not registered yet can pick its name: set_username as its first call, or MCP_USERNAME set by the operator.',
    };
  },
  platformFeedbackNote: (body) =>
    body.contact !== undefined
      ? {
          note: 'This marketplace (contract Revision A) takes no contact field, so the contact was not sent; put it in the text if the operators should see it.',
        }
      : {},
};
