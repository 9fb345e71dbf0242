// A small MCP host for the watchdog's reproduction (internal/testbed/repro): it loads a
// dsh-mcp-client lib/index.js (the stand-in next to it, the real one, patched or not),
// applies it to one or more Streamable HTTP servers, and makes tool calls on demand.
//
//   node host.mjs --module PATH/lib/index.js --server NAME --url URL [--server NAME --url URL ...]
//                 [--reconnect-initial-ms N] [--tool-call-timeout-ms N]
//
// Each --server/--url pair is one plugin instance (one MCP server), as DSH loads one
// mcp-client instance per server; they share the tool registry.
//
// Stdout is a protocol read by the Go driver, one line each:
//   READY                      once the client has registered every server's tools
//   OK <json>                  a call's result (the tool definition's execute value)
//   ERR <message>              a call's error, on one line; "HTTP <status>: " first when the
//                              error carries one (SDK 1.x StreamableHTTPError.code, SDK 2 .status)
//   TOOLS <name> <name> ...    the registered public tool names
//   DISPOSED <server>          after `dispose <server>`: that instance was disposed
//   BYE                        after `quit`: every instance was disposed
// Stdin takes one command a line, run one at a time in order:
//   call <publicToolName> <json-args>  |  tools  |  dispose <server>  |  quit  (EOF is quit)
// The client's own log (ctx.logger) goes to stderr.

import { parseArgs } from "node:util";
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

// The real client uses Promise.withResolvers (Node 22+); DSH runs on a Node that has it.
if (typeof Promise.withResolvers !== "function") {
	Promise.withResolvers = function withResolvers() {
		let res;
		let rej;
		const promise = new this((a, b) => {
			res = a;
			rej = b;
		});
		return { promise, resolve: res, reject: rej };
	};
}

function parseFlags() {
	const { values } = parseArgs({
		options: {
			module: { type: "string" },
			server: { type: "string", multiple: true },
			url: { type: "string", multiple: true },
			"reconnect-initial-ms": { type: "string" },
			"tool-call-timeout-ms": { type: "string" },
		},
		strict: true,
	});
	if (!values.module) throw new Error("--module is required");
	const names = values.server ?? [];
	const urls = values.url ?? [];
	if (names.length === 0 || names.length !== urls.length) throw new Error("give --server and --url once per server, in pairs");
	const reconnect = {};
	if (values["reconnect-initial-ms"] !== undefined) {
		const ms = Number(values["reconnect-initial-ms"]);
		if (!Number.isFinite(ms) || ms <= 0) throw new Error(`bad --reconnect-initial-ms ${values["reconnect-initial-ms"]}`);
		reconnect.initialDelayMs = ms;
	}
	let toolCallTimeoutMs;
	if (values["tool-call-timeout-ms"] !== undefined) {
		toolCallTimeoutMs = Number(values["tool-call-timeout-ms"]);
		if (!Number.isFinite(toolCallTimeoutMs) || toolCallTimeoutMs <= 0) throw new Error(`bad --tool-call-timeout-ms ${values["tool-call-timeout-ms"]}`);
	}
	return { module: values.module, servers: names.map((name, i) => ({ name, url: urls[i] })), reconnect, toolCallTimeoutMs };
}

function out(line) {
	process.stdout.write(line + "\n");
}

function oneLine(text) {
	return String(text).replace(/\s*\n\s*/g, " | ");
}

function describeError(error) {
	const status = typeof error?.status === "number" ? error.status : error?.code;
	const prefix = Number.isInteger(status) && status >= 100 && status <= 599 ? `HTTP ${status}: ` : "";
	return prefix + oneLine(error?.message ?? error);
}

// newApp holds what the plugin instances share: the tool registry and the app root.
// It accepts both register(definition) (the real client) and register(name, definition)
// (the stand-in).
function newApp() {
	const tools = new Map();
	const register = (nameOrDefinition, maybeDefinition) => {
		const definition = typeof nameOrDefinition === "string" ? maybeDefinition : nameOrDefinition;
		const name = typeof nameOrDefinition === "string" ? nameOrDefinition : definition.name;
		if (tools.has(name)) throw new Error(`tool ${name} is already registered`);
		tools.set(name, definition);
		return () => {
			if (tools.get(name) === definition) tools.delete(name);
		};
	};
	return { tools, register, root: {}, instances: new Map() };
}

// newContext is one plugin instance's context: a logger, the shared tool registry, and
// effects disposed together when the instance is.
function newContext(app, server) {
	const disposers = [];
	const log = (level) => (msg) => process.stderr.write(`${new Date().toISOString()} ${level} [${server}] ${msg}\n`);
	const ctx = {
		root: app.root,
		logger: { info: log("info"), warn: log("warn"), error: log("error"), debug: log("debug") },
		tools: { register: app.register },
		effect(fn) {
			const dispose = fn();
			if (typeof dispose === "function") disposers.push(dispose);
		},
		get() {
			return undefined; // no optional services (attachments, llm)
		},
	};
	const dispose = async () => {
		for (const d of disposers.splice(0).reverse()) await d();
	};
	return { ctx, dispose };
}

function hasTools(tools, server) {
	const prefix = `mcp__${server}__`;
	for (const name of tools.keys()) if (name.startsWith(prefix)) return true;
	return false;
}

async function waitForTools(app, servers) {
	while (!servers.every((s) => hasTools(app.tools, s.name))) await new Promise((r) => setTimeout(r, 20));
}

// call runs one tool the way the host's tool runtime would: look it up now (a reconnect
// re-registers the tools bound to the new session), then execute it.
async function call(tools, name, argsText) {
	const definition = tools.get(name);
	if (definition === undefined) return `ERR no tool ${name} is registered`;
	try {
		const args = argsText ? JSON.parse(argsText) : {};
		const result = await definition.execute(args, { signal: new AbortController().signal });
		return `OK ${JSON.stringify(result)}`;
	} catch (error) {
		return `ERR ${describeError(error)}`;
	}
}

async function dispose(app, server) {
	const instance = app.instances.get(server);
	if (instance === undefined) return `ERR no server ${server}`;
	app.instances.delete(server);
	await instance.dispose();
	return `DISPOSED ${server}`;
}

async function serve(app) {
	const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
	for await (const line of lines) {
		const [command, name, ...rest] = line.trim().split(" ");
		if (command === "") continue;
		if (command === "quit") break;
		if (command === "tools") out(["TOOLS", ...app.tools.keys()].join(" "));
		else if (command === "call") out(await call(app.tools, name, rest.join(" ")));
		else if (command === "dispose") out(await dispose(app, name));
		else out(`ERR unknown command ${command}`);
	}
	for (const server of [...app.instances.keys()]) await dispose(app, server);
	out("BYE");
}

async function main() {
	const flags = parseFlags();
	const plugin = await import(pathToFileURL(resolve(flags.module)).href);
	const app = newApp();
	await Promise.all(
		flags.servers.map((server) => {
			const instance = newContext(app, server.name);
			app.instances.set(server.name, instance);
			return plugin.apply(instance.ctx, {
				transport: "streamable-http",
				serverName: server.name,
				url: server.url,
				reconnect: flags.reconnect,
				// The real client's Config fills in 60 s; its apply() reads the value as given.
				toolCallTimeoutMs: flags.toolCallTimeoutMs ?? 6e4,
			});
		}),
	);
	await waitForTools(app, flags.servers);
	out("READY");
	await serve(app);
	process.exit(0);
}

main().catch((error) => {
	process.stderr.write(`host: ${error?.stack ?? error}\n`);
	process.exit(1);
});
