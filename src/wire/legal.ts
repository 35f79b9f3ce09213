/** The public addresses of the current terms and license: a purchase binds to them (contract). */
export interface CurrentLegal {
  policy: { version: string; url: string };
  license: { version: string; url: string };
}

/** The versions and absolute URLs a purchase binds to right now. */
export function currentLegal(baseUrl: string): CurrentLegal {
  return {
    policy: { version: 'v1', url: `${baseUrl}/terms/v1` },
    license: { version: 'v1', url: `${baseUrl}/license/v1` },
  };
}
