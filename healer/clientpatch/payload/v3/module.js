// MCP session watchdog, client patch v3 (https://github.com/mcpwatchdog/watchdog).
// A lost session never closes the transport: the SDK reports it through onerror only,
// so these helpers feed it into the path onclose already uses (generationDown), let the
// watchdog ask for the same recovery through a trigger file, and publish each server's
// session in a beacon file the watchdog reads. A tool call that meets a lost session is
// sent once more on the new session: the server refused it at the session lookup, before
// any tool ran, so it cannot run twice. No other failure is ever retried.
/** Messages of a 400 answer that mean the server does not know our session. */
const __mcpWatchdogLostSession400 = /no valid session|session not found|session (?:has )?expired|invalid (?:or missing )?session|unknown session|session (?:id )?(?:is )?(?:missing|invalid|unknown|expired)/i;
/** How often the beacon follows the supervisor's state (ms). */
const __mcpWatchdogSampleMs = 500;
/** How often the trigger directory is read when no watch event came (ms). */
const __mcpWatchdogPollMs = 2e3;
/** How long a deliberately abandoned session's DELETE may take before the close (ms). */
const __mcpWatchdogTerminateMs = 5e3;
/** How long a tool call that met a lost session waits for the new session (ms). */
const __mcpWatchdogRetryWaitMs = 5e3;
/** Marks the inner call of __mcpWatchdogCallTool, which goes straight to the original body. */
const __mcpWatchdogDirect = Symbol("mcp-watchdog.direct");
/** Each supervisor (keyed by its generationDown) and each generation's link to its supervisor. */
const __mcpWatchdogSupervisors = /* @__PURE__ */ new WeakMap();
const __mcpWatchdogGenerations = /* @__PURE__ */ new WeakMap();
/** SDK 2's code for a POST that carried a session id and got 404 (typescript-sdk PR #2660). */
const __mcpWatchdogSessionExpiredCode = "CLIENT_HTTP_SESSION_EXPIRED";
/**
* Whether a transport error says the server no longer knows our session, deliberately
* narrow. SDK 1.x throws StreamableHTTPError (.code: the HTTP status; message "Streamable
* HTTP error: Error POSTing to endpoint: <body>"); SDK 2 throws SdkHttpError (.code: a
* string, .status and .data.status: the HTTP status; no "Streamable HTTP error:" prefix).
* A loss is a POST answered 404, a POST answered 400 whose message names a missing,
* invalid, unknown or expired session, or SDK 2's session-expired code. A 404 on the
* standalone GET stream is not a loss: some servers answer every GET with 404.
*/
function __mcpWatchdogIsSessionLost(error) {
	if (typeof error !== "object" || error === null) return false;
	if (error.code === __mcpWatchdogSessionExpiredCode) return true;
	const status = [error.status, error.code, error.data?.status].find((s) => typeof s === "number");
	const message = typeof error.message === "string" ? error.message : "";
	if (!message.includes("Error POSTing to endpoint")) return false;
	if (status === 404) return true;
	return status === 400 && __mcpWatchdogLostSession400.test(message);
}
/**
* The core fix, for onerror: a lost session on the current generation is logged and the
* generation taken down, so the client's own reconnect opens a new session. scope holds
* what the client's code has under these names where it has them (the patch reads them
* with typeof, so a build without one still gets the fix): isCurrent, logger, label.
*/
function __mcpWatchdogOnLost(generation, generationDown, error, scope) {
	if (scope.isCurrent !== void 0 && !scope.isCurrent(generation)) return;
	scope.logger?.warn?.(`${scope.label}: session lost (${String(error.message)}); reconnecting`);
	__mcpWatchdogRetire(generation, generationDown, false);
}
/**
* Take a generation down through the supervisor's own path (idempotent: generationDown
* acts only on the current generation), then close it so its GET stream and timers stop.
* The close waits a turn so a failing call still gets its own error, not "Connection
* closed". terminate: first end the session on the server (DELETE), for a generation
* given up on request while its session may still be alive there.
*/
function __mcpWatchdogRetire(generation, generationDown, terminate) {
	generationDown(generation);
	setTimeout(() => void __mcpWatchdogEnd(generation, terminate), 0);
}
/** Optionally DELETE the generation's session (bounded), then close the generation. */
async function __mcpWatchdogEnd(generation, terminate) {
	if (terminate) {
		let timer;
		const timeout = new Promise((resolve) => {
			timer = setTimeout(resolve, __mcpWatchdogTerminateMs);
		});
		const deleted = Promise.resolve().then(() => generation.transport?.terminateSession?.()).catch(() => {});
		await Promise.race([deleted, timeout]);
		clearTimeout(timer);
	}
	await generation.close().catch(() => {});
}
/** The one registry of this process, shared by every plugin instance and module copy. */
function __mcpWatchdogRegistry() {
	const key = Symbol.for("mcp-watchdog.client-patch.v1");
	globalThis[key] ??= {
		instances: /* @__PURE__ */ new Set(),
		paths: void 0,
		timer: void 0,
		watcher: void 0,
		onExit: void 0,
		lastScan: 0,
		writeFailed: false
	};
	return globalThis[key];
}
/** Where triggers and the beacon live; undefined on a Node without process.getBuiltinModule. */
function __mcpWatchdogPaths() {
	if (typeof process.getBuiltinModule !== "function") return void 0;
	const get = (id) => process.getBuiltinModule(id);
	const fs = get("node:fs");
	const os = get("node:os");
	const path = get("node:path");
	const base = path.join(os.homedir(), ".dsh", "mcp-watchdog");
	const clients = path.join(base, "clients");
	return {
		fs,
		path,
		recover: path.join(base, "recover"),
		clients,
		beacon: path.join(clients, `${process.pid}.json`),
		beaconTemp: path.join(clients, `.${process.pid}.json.tmp`)
	};
}
/**
* Register one plugin instance: { serverName, url, logger, sample() -> { client,
* connectedAt, reconnecting }, recover() -> whether a generation was taken down }.
* Returns the handle for __mcpWatchdogUnregister, or undefined when disabled.
*/
function __mcpWatchdogRegister(instance) {
	const reg = __mcpWatchdogRegistry();
	try {
		reg.paths ??= __mcpWatchdogPaths();
	} catch {}
	if (reg.paths === void 0) {
		instance.logger.warn(`mcp-client(${instance.serverName}): mcp-watchdog trigger and beacon need Node 20.16 or later; session-loss recovery still works`);
		return;
	}
	instance.key = void 0;
	instance.entry = void 0;
	instance.seenClient = void 0;
	instance.seenRequests = void 0;
	instance.lastRequest = void 0;
	reg.instances.add(instance);
	if (reg.instances.size === 1) __mcpWatchdogStart(reg);
	__mcpWatchdogScan(reg);
	__mcpWatchdogTick(reg, true);
	return instance;
}
/** Unregister one plugin instance; the last one stops the watcher and removes the beacon. */
function __mcpWatchdogUnregister(instance) {
	const reg = __mcpWatchdogRegistry();
	if (instance === void 0 || !reg.instances.delete(instance)) return;
	if (reg.instances.size > 0) {
		__mcpWatchdogWriteBeacon(reg);
		return;
	}
	clearInterval(reg.timer);
	reg.timer = void 0;
	reg.watcher?.close();
	reg.watcher = void 0;
	process.off("exit", reg.onExit);
	reg.onExit();
}
/** First instance in: remove the beacon at exit, watch for triggers, follow the state. */
function __mcpWatchdogStart(reg) {
	const { fs, beacon } = reg.paths;
	reg.onExit = () => {
		try {
			fs.unlinkSync(beacon);
		} catch {}
	};
	process.on("exit", reg.onExit);
	__mcpWatchdogWatch(reg);
	reg.timer = setInterval(() => __mcpWatchdogTick(reg, false), __mcpWatchdogSampleMs);
	reg.timer.unref?.();
}
/** Watch the trigger directory (created 0700 when missing); the poll covers a failed watch. */
function __mcpWatchdogWatch(reg) {
	if (reg.watcher !== void 0) return;
	const { fs, recover } = reg.paths;
	try {
		fs.mkdirSync(recover, {
			recursive: true,
			mode: 0o700
		});
		const watcher = fs.watch(recover, { persistent: false }, () => __mcpWatchdogScan(reg));
		watcher.on("error", () => {
			watcher.close();
			if (reg.watcher === watcher) reg.watcher = void 0;
		});
		reg.watcher = watcher;
	} catch {}
}
/** Act on trigger files: each names a server (or "all"); it is deleted, then that server recovers. */
function __mcpWatchdogScan(reg) {
	reg.lastScan = Date.now();
	const { fs, path, recover } = reg.paths;
	let names;
	try {
		names = fs.readdirSync(recover);
	} catch {
		return;
	}
	for (const name of names) {
		if (name.startsWith(".")) continue;
		const targets = [...reg.instances].filter((instance) => name === "all" || instance.serverName === name);
		if (targets.length === 0) continue;
		try {
			fs.unlinkSync(path.join(recover, name));
		} catch {
			continue;
		}
		for (const instance of targets) {
			try {
				instance.recover();
			} catch (error) {
				instance.logger.error(`mcp-client(${instance.serverName}): mcp-watchdog recovery failed: ${String(error)}`);
			}
		}
	}
}
/** Follow every instance's state; rewrite the beacon when any entry changed. */
function __mcpWatchdogTick(reg, force) {
	const now = Date.now();
	let changed = force;
	for (const instance of reg.instances) {
		try {
			if (__mcpWatchdogSample(instance, now)) changed = true;
		} catch {}
	}
	if (changed) __mcpWatchdogWriteBeacon(reg);
	if (reg.watcher === void 0) __mcpWatchdogWatch(reg);
	if (now - reg.lastScan >= __mcpWatchdogPollMs) __mcpWatchdogScan(reg);
}
/** Refresh one instance's beacon entry; reports whether it changed. */
function __mcpWatchdogSample(instance, now) {
	const { client, connectedAt, reconnecting } = instance.sample();
	const requests = client?._requestMessageId;
	if (client !== instance.seenClient || requests !== instance.seenRequests) {
		if (typeof requests === "number" && requests > 0) instance.lastRequest = now;
		instance.seenClient = client;
		instance.seenRequests = requests;
	}
	const connected = client !== void 0 && connectedAt !== void 0;
	const entry = {
		name: instance.serverName,
		url: instance.url,
		session_id: connected ? client.transport?.sessionId ?? null : null,
		state: connected ? "connected" : client !== void 0 || reconnecting ? "reconnecting" : "down",
		connected_since: connected ? new Date(connectedAt).toISOString() : null,
		last_request: instance.lastRequest === void 0 ? null : new Date(instance.lastRequest).toISOString()
	};
	const key = JSON.stringify(entry);
	if (key === instance.key) return false;
	instance.key = key;
	instance.entry = {
		...entry,
		updated: new Date(now).toISOString()
	};
	return true;
}
/** Write ~/.dsh/mcp-watchdog/clients/<pid>.json (0600) through a temp file and a rename. */
function __mcpWatchdogWriteBeacon(reg) {
	const { fs, clients, beacon, beaconTemp } = reg.paths;
	const doc = {
		version: 1,
		pid: process.pid,
		updated: (/* @__PURE__ */ new Date()).toISOString(),
		servers: [...reg.instances].map((instance) => instance.entry).filter((entry) => entry !== void 0)
	};
	try {
		fs.mkdirSync(clients, {
			recursive: true,
			mode: 0o700
		});
		fs.rmSync(beaconTemp, { force: true });
		fs.writeFileSync(beaconTemp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
		fs.renameSync(beaconTemp, beacon);
		reg.writeFailed = false;
	} catch (error) {
		if (!reg.writeFailed) [...reg.instances][0]?.logger.warn(`mcp-client: mcp-watchdog beacon not written: ${String(error)}`);
		reg.writeFailed = true;
	}
}
/**
* Link a new generation to its supervisor (created with the first generation). access:
* { label, logger, current() -> the connected generation or undefined, settling() -> the
* attempt in flight, hurry() -> start the first reconnect of an outage now, retire() -> take
* this generation down }. When this generation's attempt settles, waiting calls look again.
*/
function __mcpWatchdogTrack(generation, key, access) {
	let supervisor = __mcpWatchdogSupervisors.get(key);
	if (supervisor === void 0) {
		supervisor = {
			...access,
			waiters: /* @__PURE__ */ new Set()
		};
		__mcpWatchdogSupervisors.set(key, supervisor);
	}
	__mcpWatchdogGenerations.set(generation, {
		supervisor,
		retire: access.retire
	});
	// settling() is this attempt's promise once connectGeneration has returned: read it a turn later.
	Promise.resolve().then(() => supervisor.settling()).then(() => {
		for (const wake of [...supervisor.waiters]) wake();
	});
}
/**
* Send a tool call on generation; when it meets a lost session (a POST answered 404, or the
* 400 quirk), take the generation down, wait for the supervisor's new one (at most
* __mcpWatchdogRetryWaitMs) and send the same call once on it; that answer is the caller's.
*/
async function __mcpWatchdogCallTool(generation, exec, send) {
	const link = __mcpWatchdogGenerations.get(generation);
	try {
		return await send(generation);
	} catch (error) {
		if (link === void 0 || exec?.signal?.aborted || !__mcpWatchdogIsSessionLost(error)) throw error;
		link.retire();
		const next = await __mcpWatchdogNextGeneration(link.supervisor, generation, exec?.signal);
		if (next === void 0) throw error;
		link.supervisor.logger.warn(`${link.supervisor.label}: a tool call met the lost session; sending it once more on the new session`);
		return send(next);
	}
}
/** The supervisor's connected generation other than old, or undefined after the wait or an abort. */
function __mcpWatchdogNextGeneration(supervisor, old, signal) {
	return new Promise((resolve) => {
		let timer;
		const finish = (next) => {
			clearTimeout(timer);
			supervisor.waiters.delete(check);
			signal?.removeEventListener?.("abort", onAbort);
			resolve(next);
		};
		const check = () => {
			const current = supervisor.current();
			if (current !== void 0 && current !== old) finish(current);
		};
		const onAbort = () => finish(void 0);
		timer = setTimeout(finish, __mcpWatchdogRetryWaitMs);
		supervisor.waiters.add(check);
		signal?.addEventListener?.("abort", onAbort, { once: true });
		supervisor.hurry();
		check();
	});
}
