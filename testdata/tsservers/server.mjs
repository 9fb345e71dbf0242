// Real TypeScript MCP SDK servers for the watchdog's Go tests (internal/testbed/tsserver).
//
//   node server.mjs --mode stateful|stateless|quirk [--port 0] [--idle-ms N] [--json-response]
//                   [--log PATH] [--store PATH] [--sentinel-delay-ms N]
//
// Listens on 127.0.0.1 only. Stdout is a protocol read by the Go helper, one line each:
//   LISTENING http://127.0.0.1:PORT/mcp    always the first line
//   SESSION_START <id> <client>            client: the rest of the line, clientInfo.name of the
//                                          initialize request; "-" when empty; CR and LF become spaces
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
// --log PATH (stateful and quirk): a log in the words and format of internal/demoserver/logfile.go
// (a Nowledge Mem look-alike), full session ids on purpose, one line each:
//   <time> INFO MCP session idle timeout and restart restore store configured seconds=<s> store_path=<p>
//                                        at start and after /admin/forget, when --idle-ms > 0 and --store
//   <time> INFO MCP session created session_id=<id> client=<clientInfo.name>
//   <time> INFO MCP session closed session_id=<id> reason=<idle|deleted|forgotten|closed>
//   <time> WARN Session not found session_id=<id>                  stateful: an unknown id got 404
//   <time> WARN Bad Request: No valid session ID provided session_id=<id>   quirk: a POST's unknown id got 400
// <time> is UTC with milliseconds (2006-01-02T15:04:05.000Z); values are bare unless they need Go's
// strconv.Quote (empty, or space, tab, CR, LF, '"', '=', '`' or a control character). Each line is
// appended by open, write, close, so an outside rotation never strands the writer on an old file.
//
// --store PATH (stateful and quirk): the live sessions as internal/demoserver/store.go writes them,
// {"sessions":[{"id","client_name","created_at","last_activity"}]} (RFC 3339 UTC, milliseconds),
// oldest first; written atomically (temp file in the same directory, fsync, rename, mode 0600) once
// at start (empty) and after every change (created, ended, a request starting or finishing),
// coalesced to at most one write per 20 ms: a change inside the window is written at its end.
//
// Admin endpoints (not MCP): GET /admin/sessions -> JSON array of live session ids;
// POST /admin/forget -> close and forget every session (a simulated restart), answers
// {"forgotten": n}; GET /admin/count -> {"count": n}, the count tool's counter, unchanged.

import { randomUUID } from 'node:crypto';
import {
  appendFileSync, closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
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
      log: { type: 'string', default: '' },
      store: { type: 'string', default: '' },
      // Tests only: hold the sentinel's initialize back this long after listening, so a test
      // can call with a stale id inside the window a restart opens.
      'sentinel-delay-ms': { type: 'string', default: '0' },
    },
    strict: true,
  });
  const port = Number(values.port);
  const idleMs = Number(values['idle-ms']);
  if (!MODES.has(values.mode)) throw new Error(`--mode must be stateful, stateless or quirk, not ${values.mode}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad --port ${values.port}`);
  if (!Number.isInteger(idleMs) || idleMs < 0) throw new Error(`bad --idle-ms ${values['idle-ms']}`);
  const sentinelDelayMs = Number(values['sentinel-delay-ms']);
  if (!Number.isInteger(sentinelDelayMs) || sentinelDelayMs < 0) {
    throw new Error(`bad --sentinel-delay-ms ${values['sentinel-delay-ms']}`);
  }
  return {
    mode: values.mode, port, idleMs, jsonResponse: values['json-response'], logPath: values.log, storePath: values.store,
    sentinelDelayMs,
  };
}

function out(line) {
  process.stdout.write(line + '\n');
}

// stdoutClient renders a client name for a SESSION_START line: the rest of the line, never empty.
function stdoutClient(name) {
  return name ? name.replace(/[\r\n]/g, ' ') : '-';
}

// Messages of the server log: the same text as the constants of internal/demoserver/logfile.go.
const MSG_CONFIGURED = 'MCP session idle timeout and restart restore store configured';
const MSG_NOT_FOUND = 'Session not found';
const MSG_CREATED = 'MCP session created';
const MSG_CLOSED = 'MCP session closed';
const MSG_NO_VALID = 'Bad Request: No valid session ID provided';

// ServerLog appends lines in demoserver's format. Each line opens the file in append mode, writes
// and closes it: a rotation done from outside (rename and create, copytruncate, truncate, delete
// and recreate) must never leave this writer on an old inode. A log without a path writes nothing.
class ServerLog {
  constructor(path) {
    this.path = path;
  }

  info(msg, ...kv) {
    this.write('INFO', msg, kv);
  }

  warn(msg, ...kv) {
    this.write('WARN', msg, kv);
  }

  write(level, msg, kv) {
    if (!this.path) return;
    try {
      appendFileSync(this.path, formatLine(new Date(), level, msg, kv), { mode: 0o600 });
    } catch (err) {
      console.error(`server log ${this.path}:`, err.message);
    }
  }
}

// formatLine is demoserver's formatLine: time, level, message, then key=value pairs.
function formatLine(date, level, msg, kv) {
  let line = `${date.toISOString()} ${level} ${msg}`;
  for (let i = 0; i + 1 < kv.length; i += 2) line += ` ${kv[i]}=${logValue(String(kv[i + 1]))}`;
  return line + '\n';
}

// logValue is demoserver's logValue: bare unless empty, or holding a character of " \t\r\n\"=", or
// one that strconv.CanBackquote refuses (control characters, '`', DEL, U+FEFF).
function logValue(v) {
  v = v.toWellFormed(); // a lone surrogate would be written as U+FFFD anyway
  if (v === '' || /[ \t\r\n"=`\u0000-\u001f\u007f\ufeff]/.test(v)) return goQuote(v);
  return v;
}

const GO_ESCAPES = new Map([
  ['\x07', '\\a'], ['\b', '\\b'], ['\f', '\\f'], ['\n', '\\n'], ['\r', '\\r'], ['\t', '\\t'], ['\v', '\\v'],
  ['"', '\\"'], ['\\', '\\\\'],
]);

// goQuote is strconv.Quote for well-formed strings; Go's IsPrint is taken as "not a Unicode
// control, format, private-use, unassigned or separator character, except the ASCII space".
function goQuote(v) {
  let q = '"';
  for (const ch of v) {
    const cp = ch.codePointAt(0);
    if (GO_ESCAPES.has(ch)) q += GO_ESCAPES.get(ch);
    else if (cp < 0x20 || cp === 0x7f) q += '\\x' + cp.toString(16).padStart(2, '0');
    else if (ch === ' ' || !/[\p{C}\p{Z}]/u.test(ch)) q += ch;
    else if (cp < 0x10000) q += '\\u' + cp.toString(16).padStart(4, '0');
    else q += '\\U' + cp.toString(16).padStart(8, '0');
  }
  return q + '"';
}

// seconds is demoserver's seconds(): whole seconds when whole, else the shortest decimal, computed
// the way Go's Duration.Seconds does so the digits agree.
function seconds(ms) {
  return String(Math.trunc(ms / 1000) + ((ms % 1000) * 1e6) / 1e9);
}

// STORE_INTERVAL_MS is demoserver's StoreInterval: the shortest time between two store writes.
const STORE_INTERVAL_MS = 20;

// StoreWriter mirrors the live sessions into the store file. A writer without a path does nothing.
class StoreWriter {
  constructor(path, snapshot) {
    this.path = path;
    this.snapshot = snapshot; // () => [{ id, client, created, lastActive }]
    this.timer = undefined;
    this.lastWrite = -Infinity; // performance.now() of the last write
    this.last = undefined; // the body last written
  }

  // notify schedules a write: at once after a quiet spell, else when the interval since the last
  // write is over. The snapshot is taken when the write runs, so no change is ever dropped.
  notify() {
    if (!this.path || this.timer) return;
    const wait = Math.max(0, this.lastWrite + STORE_INTERVAL_MS - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.flush();
      } catch (err) {
        console.error(`session store ${this.path}:`, err.message);
      }
    }, wait);
  }

  // flush writes the current snapshot now, unless it is what was written last; it throws on failure.
  flush() {
    if (!this.path) return;
    this.lastWrite = performance.now();
    const body = encodeStore(this.snapshot());
    if (body === this.last) return;
    writeAtomic(this.path, body);
    this.last = body;
  }
}

// encodeStore renders sessions as demoserver's encodeStore does, oldest first.
function encodeStore(sessions) {
  const sorted = [...sessions].sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const doc = {
    sessions: sorted.map((s) => ({
      id: s.id,
      client_name: s.client,
      created_at: new Date(s.created).toISOString(),
      last_activity: new Date(s.lastActive).toISOString(),
    })),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

// writeAtomic replaces path with body so a reader, or a kill midway, sees the old file or the new
// one, never a part: temp file in the same directory, mode 0600, fsync, rename, fsync of the directory.
function writeAtomic(path, body) {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.tmp${process.pid}-${randomUUID().slice(0, 8)}`);
  let fd;
  try {
    fd = openSync(tmp, 'wx', 0o600);
    fchmodSync(fd, 0o600); // whatever the umask
    writeFileSync(fd, body);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw err;
  }
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // some systems cannot fsync a directory; the rename is then as durable as they allow
  }
}

// counter is process-wide so tests can tell how many tool executions reached the server.
const counter = { n: 0 };

function newMcpServer() {
  const server = new McpServer({ name: 'watchdog-tsserver', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns its text argument.', inputSchema: { text: z.string() } },
    async ({ text }, extra) => {
      // Every execution goes to stdout: a test counts them by argument (none may run twice).
      out(`TOOL_CALL ${extra.sessionId || '-'} ${text.replace(/[\r\n]/g, ' ')}`);
      return { content: [{ type: 'text', text }] };
    },
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

// Sessions holds the live stateful (or quirk) sessions and ends them with a reason. Every start and
// end goes to the log, then to stdout; every change (activity included) calls onChange.
class Sessions {
  constructor({ jsonResponse, log, onChange }) {
    this.jsonResponse = jsonResponse;
    this.log = log;
    this.onChange = onChange;
    this.byId = new Map(); // id -> { transport, client, created, lastActive, reason }
  }

  get(id) {
    return id ? this.byId.get(id) : undefined;
  }

  ids() {
    return [...this.byId.keys()];
  }

  // snapshot is what the store shows of each live session.
  snapshot() {
    return [...this.byId].map(([id, s]) => ({ id, client: s.client, created: s.created, lastActive: s.lastActive }));
  }

  // create returns a connected transport that registers itself once the SDK issues its id; client
  // is the clientInfo.name of the initialize request it is created for.
  async create(client) {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: this.jsonResponse,
      onsessioninitialized: (id) => {
        const now = Date.now();
        this.byId.set(id, { transport, client, created: now, lastActive: now, reason: undefined });
        // stdout (the tests' ground truth) before the log and the store (what the watchdog
        // reads): a kill between them must never leave the watchdog knowing more than the truth.
        out(`SESSION_START ${id} ${stdoutClient(client)}`);
        this.log.info(MSG_CREATED, 'session_id', id, 'client', client);
        this.onChange();
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
    const reason = s.reason ?? 'closed';
    out(`SESSION_END ${id} ${reason}`); // the truth first, as in create
    this.log.info(MSG_CLOSED, 'session_id', id, 'reason', reason);
    this.onChange();
  }

  // track marks activity at the start and at the end of a request on a known session.
  track(session, res) {
    session.lastActive = Date.now();
    this.onChange();
    res.on('close', () => {
      session.lastActive = Date.now();
      this.onChange();
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

// clientName is params.clientInfo.name of an initialize request body, or ''.
function clientName(body) {
  const name = body?.params?.clientInfo?.name;
  return typeof name === 'string' ? name : '';
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
    // A client with a stale id may call between listen and init (a restart with clients
    // reconnecting): it waits for the sentinel instead of getting a 500.
    this.ready = new Promise((resolve) => (this.markReady = resolve));
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
    this.markReady();
  }
}

function mountStateful(app, sessions, sentinel, log) {
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
        const transport = await sessions.create(clientName(req.body));
        await transport.handleRequest(req, res, req.body);
        return;
      }
      await sentinel.ready;
      await sentinel.transport.handleRequest(req, res, req.body);
      const id = req.get('mcp-session-id');
      if (id && res.statusCode === 404) log.warn(MSG_NOT_FOUND, 'session_id', id);
    }),
  );
}

function mountQuirk(app, sessions, log) {
  app.post(
    '/mcp',
    handleErrors(async (req, res) => {
      const id = req.get('mcp-session-id');
      const session = sessions.get(id);
      if (session) {
        sessions.track(session, res);
        await session.transport.handleRequest(req, res, req.body);
      } else if (!id && isInitializeRequest(req.body)) {
        const transport = await sessions.create(clientName(req.body));
        await transport.handleRequest(req, res, req.body);
      } else {
        if (id) log.warn(MSG_NO_VALID, 'session_id', id);
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

function mountAdmin(app, sessions, announce) {
  app.get('/admin/sessions', (req, res) => res.json(sessions ? sessions.ids() : []));
  app.post('/admin/forget', (req, res) => {
    const forgotten = sessions ? sessions.forget() : 0;
    announce(); // a restarted server logs its start-up line again, as demoserver's ForgetAll does
    res.json({ forgotten });
  });
  app.get('/admin/count', (req, res) => res.json({ count: counter.n }));
}

function listen(app, port) {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, HOST, (err) => (err ? reject(err) : resolve(server)));
  });
}

async function main() {
  const flags = parseFlags();
  const stateless = flags.mode === 'stateless';
  const log = new ServerLog(stateless ? '' : flags.logPath);
  const store = new StoreWriter(stateless ? '' : flags.storePath, () => sessions.snapshot());
  const sessions = stateless ? undefined : new Sessions({ ...flags, log, onChange: () => store.notify() });
  const announce = () => {
    if (flags.idleMs > 0 && flags.storePath) {
      log.info(MSG_CONFIGURED, 'seconds', seconds(flags.idleMs), 'store_path', flags.storePath);
    }
  };
  const app = createMcpExpressApp({ host: HOST });
  const sentinel = flags.mode === 'stateful' ? new Sentinel() : undefined;
  mountAdmin(app, sessions, announce);
  if (flags.mode === 'stateful') mountStateful(app, sessions, sentinel, log);
  if (flags.mode === 'quirk') mountQuirk(app, sessions, log);
  if (stateless) mountStateless(app, flags);

  store.flush(); // the empty store of a fresh start; failing it fails the start
  announce();

  const httpServer = await listen(app, flags.port);
  const url = `http://${HOST}:${httpServer.address().port}/mcp`;
  if (sentinel) {
    await new Promise((resolve) => setTimeout(resolve, flags.sentinelDelayMs));
    await sentinel.init(url, sessions);
  }
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
