/** Spec 2.4: 6-32 characters, letters, digits, underscore, hyphen; starts and ends alphanumeric. */
export const USERNAME_RE = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{4,30})[A-Za-z0-9]$/;
