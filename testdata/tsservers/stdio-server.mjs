// A real TypeScript MCP SDK server over stdio for the watchdog's Go tests
// (internal/testbed/hosts: the stdio crash cells): McpServer on
// StdioServerTransport with one tool, echo, which returns its text.
//
//   node stdio-server.mjs [EVENTS]
//
// EVENTS (or, without the argument, $STDIO_SERVER_EVENTS) names a file the
// server appends its ground truth to, one line each, written whole with
// O_APPEND so several of its processes may share the file:
//   start <pid>              at each start, before it reads any message
//   call <pid> <text>        each echo call it runs (CR and LF become spaces)
// A test counts the starts, kills the newest pid, and counts the calls that
// ran. The path rides in the arguments because some hosts (Codex CLI) pass
// a stdio server only a fixed set of environment variables.
// Stdout is the MCP stream; diagnostics go to stderr.

import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const events = process.argv[2] || process.env.STDIO_SERVER_EVENTS || '';

function note(line) {
  if (events !== '') {
    appendFileSync(events, `${line}\n`);
  }
}

note(`start ${process.pid}`);

const server = new McpServer({ name: 'watchdog-stdio-server', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Returns its text argument.', inputSchema: { text: z.string() } },
  async ({ text }) => {
    note(`call ${process.pid} ${text.replace(/[\r\n]/g, ' ')}`);
    return { content: [{ type: 'text', text }] };
  },
);

// The host closing stdin ends the server, as a stdio server should.
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
console.error(`stdio-server: pid ${process.pid} serving on stdio`);
