// A TypeScript MCP SDK client that signs in with the SDK's own OAuth client (its auth()
// flow: protected-resource metadata, authorization-server metadata, dynamic client
// registration, PKCE, the authorization code, the token for the server's resource), for the
// watchdog's Go tests. The authorization server of oauth-server.mjs grants at once: the
// "browser" step is a plain fetch of the authorization URL, whose redirect carries the code.
//
//   node oauth-client.mjs --url URL
//
// It signs in, calls echo once and prints one line: OK <text> or ERR <message>. Exit 0 on OK.

import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const { values } = parseArgs({ options: { url: { type: 'string' } }, strict: true });
if (!values.url) throw new Error('--url is required');

const redirectUrl = 'http://127.0.0.1:1/callback'; // never opened: the code is read off the redirect
let pendingCode;
const store = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: 'watchdog-oauth-test-client', redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' };
  },
  clientInformation: () => store.client,
  saveClientInformation: (c) => { store.client = c; },
  tokens: () => store.tokens,
  saveTokens: (t) => { store.tokens = t; },
  saveCodeVerifier: (v) => { store.verifier = v; },
  codeVerifier: () => store.verifier,
  async redirectToAuthorization(url) {
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (!location) throw new Error(`the authorization server answered ${res.status} without a redirect`);
    pendingCode = new URL(location).searchParams.get('code');
  },
};

function line(kind, text) { process.stdout.write(`${kind} ${String(text).replace(/[\r\n]+/g, ' ')}\n`); }

async function connect() {
  const client = new Client({ name: 'watchdog-oauth-test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(values.url), { authProvider: provider });
  try {
    await client.connect(transport);
    return client;
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !pendingCode) throw err;
    await transport.finishAuth(pendingCode);
    pendingCode = undefined;
    const again = new Client({ name: 'watchdog-oauth-test-client', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(values.url), { authProvider: provider }));
    return again;
  }
}

try {
  const client = await connect();
  const res = await client.callTool({ name: 'echo', arguments: { text: 'signed-in' } });
  line('OK', res.content?.[0]?.text ?? JSON.stringify(res));
  await client.close();
  process.exit(0);
} catch (err) {
  line('ERR', err?.message ?? err);
  process.exit(1);
}
