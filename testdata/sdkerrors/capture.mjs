// Captures the real errors one TypeScript MCP SDK client line raises against a server,
// and what the client patch's predicate says of each, for internal/testbed/repro's
// TestSDKErrorShapes. The predicate runs here, on the live error object (its class,
// getters and prototype intact), not on a JSON copy of it.
//
// Usage: node capture.mjs <v1|v2> <server url> <predicate module>
//   v1: @modelcontextprotocol/sdk (1.x); v2: @modelcontextprotocol/client (2.x).
//   The predicate module exports __mcpWatchdogIsSessionLost.
//
// The Go test drives it one step at a time so it can change the server between steps.
// Each stdin line is a JSON step: {step, op: "connect"|"call"|"close", tool, args,
// timeoutMs, onerror}. The script runs it, waits (at most 5 s) until at least `onerror`
// errors reached onerror during the step (a GET stream fails after connect returns),
// then a short grace for any that follow, and prints {done: step}. Along the way it
// prints one JSON line per error: {sdk, step, where: "onerror"|"thrown", className,
// code, status, message, lost}, and one per call that returned: {sdk, step, where:
// "result", isError}.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [sdk, url, predicatePath] = process.argv.slice(2);
const { __mcpWatchdogIsSessionLost: isLost } = await import(pathToFileURL(predicatePath).href);

/** How long a step waits for the onerror calls it expects, and the grace after them (ms). */
const waitMs = 5000;
const graceMs = 150;

/** The SDK line's Client and transport, and how its callTool takes a timeout. */
async function loadSDK(line) {
  if (line === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    return { Client, StreamableHTTPClientTransport, call: (c, p, o) => c.callTool(p, undefined, o) };
  }
  if (line === 'v2') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    return { Client, StreamableHTTPClientTransport, call: (c, p, o) => c.callTool(p, o) };
  }
  throw new Error(`unknown SDK line ${line} (want v1 or v2)`);
}

const lib = await loadSDK(sdk);
const client = new lib.Client({ name: 'sdkerrors-capture', version: '1.0.0' });
let step = '';
let onerrors = 0;

function print(record) {
  process.stdout.write(`${JSON.stringify({ sdk, step, ...record })}\n`);
}

/** One error as the test sees it; lost is the predicate's verdict on the object itself. */
function record(where, error) {
  let lost;
  try {
    lost = isLost(error);
  } catch (e) {
    lost = `predicate threw: ${e}`;
  }
  print({
    where,
    className: error?.constructor?.name ?? typeof error,
    code: error?.code ?? null,
    status: error?.status ?? null,
    message: String(error?.message ?? error),
    lost,
  });
}

// The client's onerror sees every error its transport reports (Protocol chains them).
client.onerror = (error) => {
  onerrors++;
  record('onerror', error);
};

async function run(cmd) {
  if (cmd.op === 'connect') {
    await client.connect(new lib.StreamableHTTPClientTransport(new URL(url)));
  } else if (cmd.op === 'call') {
    const options = cmd.timeoutMs ? { timeout: cmd.timeoutMs } : undefined;
    const result = await lib.call(client, { name: cmd.tool, arguments: cmd.args ?? {} }, options);
    print({ where: 'result', isError: result.isError === true });
  } else if (cmd.op === 'close') {
    await client.close();
  } else {
    throw new Error(`unknown op ${cmd.op}`);
  }
}

/** Resolves once n onerror calls came in since start, or after waitMs. */
async function awaitOnerrors(start, n) {
  const deadline = Date.now() + waitMs;
  while (onerrors - start < n && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await new Promise((resolve) => setTimeout(resolve, graceMs));
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const cmd = JSON.parse(line);
  step = cmd.step;
  const start = onerrors;
  try {
    await run(cmd);
  } catch (error) {
    record('thrown', error);
  }
  await awaitOnerrors(start, cmd.onerror ?? 0);
  process.stdout.write(`${JSON.stringify({ done: cmd.step })}\n`);
}
process.exit(0);
