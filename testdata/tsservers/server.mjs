// Real TypeScript MCP SDK servers for the watchdog's Go tests (internal/tsserver).
//
//   node server.mjs --mode stateful|stateless|quirk [--port 0] [--idle-ms N] [--json-response]
//
// Listens on 127.0.0.1 only. Stdout is a protocol read by the Go helper, one line each:
//   LISTENING http://127.0.0.1:PORT/mcp    always the first line
//   SESSION_START <id>
//   SESSION_END <id> <reason>              reason: idle | deleted | forgotten | closed
// Diagnostics go to stderr.
//
// Modes:
//   stateful   StreamableHTTPServerTransport per session (randomUUID ids). Requests that carry an
//              unknown session id, and non-initialize requests that carry none, are handed to a
//              "sentinel" transport: an initialized SDK transport whose own id nobody knows. So the
//              SDK itself answers: 404 -32001 "Session not found" for an unknown id, 400 -32000
//              "Bad Request: Mcp-Session-Id header is required" for a missing one (POST, GET and
//              DELETE alike). An initialize request without a known id starts a new session, even
//              when it carries a stale id (a fresh transport would accept it the same way).
//   stateless  sessionIdGenerator: undefined, a new server and transport per POST; GET and DELETE
//              answer 405, as the SDK's simpleStatelessStreamableHttp example does.
//   quirk      the routing of the SDK's older example servers (and of servers copied from them): an
//              unknown or missing id on a non-initialize POST gets 400 -32000 "Bad Request: No valid
//              session ID provided"; GET and DELETE with an unknown or missing id get 400 text
//              "Invalid or missing session ID".
//
// --idle-ms N (stateful and quirk): a session that has seen no request start or finish for N ms
// is closed and forgotten. The TS SDK has no idle timeout of its own; an open GET stream does not
// keep a session alive (it is closed with the session, as a server-side expiry would).
//
// Admin endpoints (not MCP): GET /admin/sessions -> JSON array of live session ids;
// POST /admin/forget -> close and forget every session (a simulated restart), answers
// {"forgotten": n}; GET /admin/count -> {"count": n}, the count tool's counter, unchanged.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const HOST = '127.0.0.1';
const MODES = new Set(['stateful', 'stateless', 'quirk']);

function parseFlags() {
  const { values } = parseArgs({
    options: {
      mode: { type: 'string', default: 'stateful' },
      port: { type: 'string', default: '0' },
      'idle-ms': { type: 'string', default: '0' },
      'json-response': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const port = Number(values.port);
  const idleMs = Number(values['idle-ms']);
  if (!MODES.has(values.mode)) throw new Error(`--mode must be stateful, stateless or quirk, not ${values.mode}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad --port ${values.port}`);
  if (!Number.isInteger(idleMs) || idleMs < 0) throw new Error(`bad --idle-ms ${values['idle-ms']}`);
  return { mode: values.mode, port, idleMs, jsonResponse: values['json-response'] };
}

function out(line) {
  process.stdout.write(line + '\n');
}

// counter is process-wide so tests can tell how many tool executions reached the server.
const counter = { n: 0 };

function newMcpServer() {
  const server = new McpServer({ name: 'watchdog-tsserver', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its text argument.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'count',
    { description: 'Increments a process-wide counter and returns its new value.' },
    async () => {
      counter.n += 1;
      return { content: [{ type: 'text', text: String(counter.n) }] };
    },
  );
  return server;
}

function jsonRpcError(res, status, code, message) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

// Sessions holds the live stateful (or quirk) sessions and ends them with a reason.
class Sessions {
  constructor({ jsonResponse }) {
    this.jsonResponse = jsonResponse;
    this.byId = new Map(); // id -> { transport, lastActive, reason }
  }

  get(id) {
    return id ? this.byId.get(id) : undefined;
  }

  ids() {
    return [...this.byId.keys()];
  }

  // create returns a connected transport that registers itself once the SDK issues its id.
  async create() {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: this.jsonResponse,
      onsessioninitialized: (id) => {
        this.byId.set(id, { transport, lastActive: Date.now(), reason: undefined });
        out(`SESSION_START ${id}`);
      },
      onsessionclosed: (id) => {
        const s = this.byId.get(id);
        if (s && !s.reason) s.reason = 'deleted';
      },
    });
    // Set before connect: Protocol.connect chains its own handler after ours.
    transport.onclose = () => this.ended(transport);
    await newMcpServer().connect(transport);
    return transport;
  }

  // createDetached makes a session transport that is never registered in the session map.
  async createDetached() {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: this.jsonResponse,
    });
    transport.onerror = () => {}; // every rejection it produces is expected
    await newMcpServer().connect(transport);
    return transport;
  }

  ended(transport) {
    const id = transport.sessionId;
    const s = id ? this.byId.get(id) : undefined;
    if (!s || s.transport !== transport) return;
    this.byId.delete(id);
    out(`SESSION_END ${id} ${s.reason ?? 'closed'}`);
  }

  // track marks activity at the start and at the end of a request on a known session.
  track(session, res) {
    session.lastActive = Date.now();
    res.on('close', () => {
      session.lastActive = Date.now();
    });
  }

  end(id, reason) {
    const s = this.byId.get(id);
    if (!s) return;
    s.reason ??= reason;
    s.transport.close().catch((err) => console.error(`close ${id}:`, err));
    // close() runs onclose synchronously today; this keeps the map right if it ever doesn't.
    this.ended(s.transport);
  }

  forget() {
    const ids = this.ids();
    for (const id of ids) this.end(id, 'forgotten');
    return ids.length;
  }

  sweep(idleMs) {
    const cutoff = Date.now() - idleMs;
    for (const [id, s] of this.byId) {
      if (s.lastActive <= cutoff) this.end(id, 'idle');
    }
  }
}

function handleErrors(fn) {
  return async (req, res) => {
    try {
      await fn(req, res);
    } catch (err) {
      console.error('error handling MCP request:', err);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
    }
  };
}

// Sentinel is an initialized SDK transport whose session id never leaves this process; requests
// routed to it get the SDK's own answers for unknown and missing session ids.
class Sentinel {
  constructor() {
    this.token = randomUUID();
    this.pending = undefined; // the transport until its initialize has been answered
    this.transport = undefined;
  }

  isInitRequest(req) {
    return this.transport === undefined && req.get('x-tsserver-sentinel') === this.token;
  }

  // init sends one real initialize request through the listening server to the sentinel.
  async init(url, sessions) {
    this.pending = await sessions.createDetached();
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-tsserver-sentinel': this.token,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sentinel', version: '0' } },
      }),
    });
    await res.text();
    if (!res.ok || !this.pending.sessionId) throw new Error(`sentinel initialize failed: HTTP ${res.status}`);
    this.transport = this.pending;
    this.pending = undefined;
  }
}

function mountStateful(app, sessions, sentinel) {
  app.all(
    '/mcp',
    handleErrors(async (req, res) => {
      if (sentinel.isInitRequest(req)) {
        await sentinel.pending.handleRequest(req, res, req.body);
        return;
      }
      const session = sessions.get(req.get('mcp-session-id'));
      if (session) {
        sessions.track(session, res);
        await session.transport.handleRequest(req, res, req.body);
        return;
      }
      if (req.method === 'POST' && isInitializeRequest(req.body)) {
        const transport = await sessions.create();
        await transport.handleRequest(req, res, req.body);
        return;
      }
      await sentinel.transport.handleRequest(req, res, req.body);
    }),
  );
}

function mountQuirk(app, sessions) {
  app.post(
    '/mcp',
    handleErrors(async (req, res) => {
      const id = req.get('mcp-session-id');
      const session = sessions.get(id);
      if (session) {
        sessions.track(session, res);
        await session.transport.handleRequest(req, res, req.body);
      } else if (!id && isInitializeRequest(req.body)) {
        const transport = await sessions.create();
        await transport.handleRequest(req, res, req.body);
      } else {
        jsonRpcError(res, 400, -32000, 'Bad Request: No valid session ID provided');
      }
    }),
  );
  const handleSessionRequest = handleErrors(async (req, res) => {
    const session = sessions.get(req.get('mcp-session-id'));
    if (!session) {
      res.status(400).send('Invalid or missing session ID');
      return;
    }
    sessions.track(session, res);
    await session.transport.handleRequest(req, res);
  });
  app.get('/mcp', handleSessionRequest);
  app.delete('/mcp', handleSessionRequest);
}

function mountStateless(app, { jsonResponse }) {
  app.post(
    '/mcp',
    handleErrors(async (req, res) => {
      const server = newMcpServer();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: jsonResponse,
      });
      res.on('close', () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    }),
  );
  const notAllowed = (req, res) => {
    res.writeHead(405).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
  };
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
}

function mountAdmin(app, sessions) {
  app.get('/admin/sessions', (req, res) => res.json(sessions ? sessions.ids() : []));
  app.post('/admin/forget', (req, res) => res.json({ forgotten: sessions ? sessions.forget() : 0 }));
  app.get('/admin/count', (req, res) => res.json({ count: counter.n }));
}

function listen(app, port) {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, HOST, (err) => (err ? reject(err) : resolve(server)));
  });
}

async function main() {
  const flags = parseFlags();
  const app = createMcpExpressApp({ host: HOST });
  const sessions = flags.mode === 'stateless' ? undefined : new Sessions(flags);
  const sentinel = flags.mode === 'stateful' ? new Sentinel() : undefined;
  mountAdmin(app, sessions);
  if (flags.mode === 'stateful') mountStateful(app, sessions, sentinel);
  if (flags.mode === 'quirk') mountQuirk(app, sessions);
  if (flags.mode === 'stateless') mountStateless(app, flags);

  const httpServer = await listen(app, flags.port);
  const url = `http://${HOST}:${httpServer.address().port}/mcp`;
  if (sentinel) await sentinel.init(url, sessions);
  if (sessions && flags.idleMs > 0) {
    const every = Math.max(10, Math.min(1000, Math.floor(flags.idleMs / 4)));
    setInterval(() => sessions.sweep(flags.idleMs), every);
  }
  out(`LISTENING ${url}`);
}

for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));

main().catch((err) => {
  console.error('tsserver:', err);
  process.exit(1);
});
