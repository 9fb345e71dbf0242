// A real TypeScript MCP SDK server that signs its users in with MCP's OAuth, for the
// watchdog's Go tests (internal/testbed/tsserver.StartOAuth). Everything OAuth is the SDK's
// own: its authorization-server router (mcpAuthRouter) with its demo in-memory provider,
// which grants every authorization request at once (no login page), the protected-resource
// metadata router (RFC 9728) and the bearer middleware, which accepts only tokens whose
// resource (RFC 8707 audience) is this server's URL.
//
//   node oauth-server.mjs [--port 0]
//
// Listens on 127.0.0.1 only; the authorization server shares the port. Stdout, first line:
//   LISTENING http://127.0.0.1:PORT/mcp
// Tools: echo {text} -> text.

import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import {
  createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter, mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import { z } from 'zod';

const HOST = '127.0.0.1';
const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } }, strict: true });

const app = createMcpExpressApp({ host: HOST });
const server = await new Promise((resolve, reject) => {
  const s = app.listen(Number(values.port), HOST, (err) => (err ? reject(err) : resolve(s)));
});
const origin = new URL(`http://${HOST}:${server.address().port}`);
const mcpUrl = new URL('/mcp', origin);

// Tokens are issued only for this server's own URL, and accepted only for it.
const provider = new DemoInMemoryAuthProvider(
  (resource) => !!resource && resource.toString() === resourceUrlFromServerUrl(mcpUrl).toString(),
);
app.use(mcpAuthRouter({ provider, issuerUrl: origin, scopesSupported: ['mcp:tools'] }));
app.use(mcpAuthMetadataRouter({
  oauthMetadata: createOAuthMetadata({ provider, issuerUrl: origin, scopesSupported: ['mcp:tools'] }),
  resourceServerUrl: mcpUrl, scopesSupported: ['mcp:tools'], resourceName: 'watchdog OAuth test server',
}));
const auth = requireBearerAuth({
  verifier: provider, requiredScopes: [],
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl), expectedResource: mcpUrl,
});

function newServer() {
  const s = new McpServer({ name: 'watchdog-oauth-test', version: '1.0.0' });
  s.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return s;
}

// Stateless: each POST a server and transport of its own; the sign-in is what is tested.
app.post('/mcp', auth, async (req, res) => {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => transport.close());
  await newServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});
for (const method of ['get', 'delete']) {
  app[method]('/mcp', auth, (_req, res) => res.status(405).set('Allow', 'POST').end());
}

console.log(`LISTENING ${mcpUrl.href}`);
