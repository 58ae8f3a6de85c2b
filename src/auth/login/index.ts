// Getting a login (a browser and a loopback redirect, or a machine client) and using it: the
// bearer the HTTP transports send, renewed before expiry, after a 401 and on a step-up.
export { loginWithBrowser, type BrowserLoginOptions, type LoginOutcome } from './_login.js';
export { loginWithClientCredentials, type ClientCredentialsLoginOptions } from './_client-credentials.js';
export { bearerForRemote, loginCommand, type StoredBearerOptions } from './_stored-bearer.js';
export { openInBrowser } from './_browser.js';
