// A plain TypeScript MCP SDK client (the version package.json pins), unpatched, for the
// watchdog's proxy tests (healer/proxy): it connects once and calls tools on demand, and
// never reconnects by itself, as most hosts built on the SDK do not.
//
//   node client.mjs --url URL [--name CLIENT_NAME] [--mcp-remote]
//
// --mcp-remote talks stdio to mcp-remote (the version package.json pins), which bridges
// to URL over Streamable HTTP, as Claude Desktop reaches remote servers.
//
// Stdout, one line each:
//   READY                once connected (initialize done)
//   OK <json>            a call's result
//   ERR <message>        a call's error, on one line
//   NOTE <method>        a notification the server (or the proxy) sent
//   BYE                  after `quit`
// Stdin, one command a line, run in order: call <tool> [json-args] | quit (EOF is quit)

import { parseArgs } from "node:util";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createRequire } from "node:module";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const { values } = parseArgs({
	options: { url: { type: "string" }, name: { type: "string" }, "mcp-remote": { type: "boolean" } },
	strict: true,
});
if (!values.url) throw new Error("--url is required");

const oneLine = (s) => String(s).replace(/[\r\n]+/g, " ");
const client = new Client({ name: values.name ?? "ts-sdk-client", version: "1.0.0" });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => console.log("NOTE notifications/tools/list_changed"));
client.onerror = (err) => console.error(`onerror: ${oneLine(err?.message ?? err)}`);
function transport() {
	if (!values["mcp-remote"]) return new StreamableHTTPClientTransport(new URL(values.url));
	const bridge = createRequire(import.meta.url).resolve("mcp-remote/dist/proxy.js");
	return new StdioClientTransport({ command: process.execPath, args: [bridge, values.url], env: process.env, stderr: "inherit" });
}
await client.connect(transport());
console.log("READY");

const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
	const [cmd, tool, ...rest] = line.trim().split(" ");
	if (cmd === "quit") break;
	if (cmd !== "call") {
		console.log(`ERR unknown command ${oneLine(cmd)}`);
		continue;
	}
	try {
		const args = rest.length ? JSON.parse(rest.join(" ")) : {};
		const res = await client.callTool({ name: tool, arguments: args });
		console.log(res.isError ? `ERR tool error ${oneLine(JSON.stringify(res.content))}` : `OK ${oneLine(JSON.stringify(res))}`);
	} catch (err) {
		console.log(`ERR ${err?.code ? `HTTP ${err.code}: ` : ""}${oneLine(err?.message ?? err)}`);
	}
}
await client.close().catch(() => {});
console.log("BYE");
process.exit(0);
