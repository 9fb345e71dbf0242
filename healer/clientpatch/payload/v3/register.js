/** The recovery trigger and the beacon for this server (MCP session watchdog). */
const __mcpWatchdogInstance = config.transport === "streamable-http" ? __mcpWatchdogRegister({
	serverName: config.serverName,
	url: config.url,
	logger: ctx.logger,
	sample: () => ({
		client,
		connectedAt,
		reconnecting: reconnectTimer !== void 0
	}),
	recover: () => {
		if (client === void 0 || connectedAt === void 0) return false;
		ctx.logger.warn(`${label}: mcp-watchdog asked for a new session; reconnecting`);
		__mcpWatchdogRetire(client, generationDown, true);
		return true;
	}
}) : void 0;
