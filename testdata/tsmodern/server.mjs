// A real modern-only MCP server for the watchdog's Go tests (internal/testbed/tsmodern): the
// TypeScript SDK v2 (@modelcontextprotocol/server, pinned in package.json) serving only the
// 2026-07-28 protocol, createMcpHandler(factory, { legacy: 'reject' }), mounted on node:http with
// the Node adapter (@modelcontextprotocol/node, toNodeHandler). Every legacy request (initialize,
// ping, tools/call without the modern envelope) gets the SDK's own 400 -32022 "Unsupported
// protocol version"; GET and DELETE get 405.
//
//   node server.mjs [--port 0]
//
// Listens on 127.0.0.1 only. Stdout is the protocol internal/testbed/tsserver reads, one line each:
//   LISTENING http://127.0.0.1:PORT/mcp    always the first line
//   TOOL_CALL - <text>                     the echo tool ran (no sessions: the id is "-")
// Diagnostics go to stderr.
//
// Tools: echo (returns its text argument) and count (increments a process-wide counter).
// Admin endpoints (not MCP): GET /admin/count -> {"count": n}, the number of tool runs (echo and
// count alike), unchanged; GET /admin/sessions -> [] (there are none).

import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

const HOST = '127.0.0.1';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } }, strict: true });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad --port ${values.port}`);

let runs = 0; // every tool run, the ground truth of "each call executed exactly once"

function factory() {
  const server = new McpServer({ name: 'watchdog-tsmodern', version: '2.4.0-test' });
  server.registerTool('echo', { description: 'Echo the text back', inputSchema: { text: z.string().optional() } },
    async ({ text }) => {
      runs++;
      const t = text ?? '';
      process.stdout.write(`TOOL_CALL - ${t.replace(/[\r\n]/g, ' ')}\n`);
      return { content: [{ type: 'text', text: t }] };
    });
  server.registerTool('count', { description: 'Count how many times a tool ran' }, async () => {
    runs++;
    return { content: [{ type: 'text', text: String(runs) }] };
  });
  return server;
}

const handler = createMcpHandler(factory, {
  legacy: 'reject',
  onerror: (err) => console.error(`mcp: ${err?.message ?? err}`),
});
const serve = toNodeHandler(handler);
const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const http = createServer(async (req, res) => {
  const path = new URL(req.url, `http://${HOST}`).pathname;
  if (path === '/admin/count' && req.method === 'GET') return json(res, { count: runs });
  if (path === '/admin/sessions' && req.method === 'GET') return json(res, []);
  if (path !== '/mcp') {
    res.writeHead(404).end('not found');
    return;
  }
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  try {
    await serve(req, res);
  } catch (err) {
    console.error(`handler: ${err?.stack ?? err}`);
    if (!res.headersSent) res.writeHead(500).end();
  }
});

function json(res, body) {
  res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

http.listen(port, HOST, () => {
  process.stdout.write(`LISTENING http://${HOST}:${http.address().port}/mcp\n`);
});
