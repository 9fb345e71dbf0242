generation.onerror = (error) => {
	if (!attemptSettled || !__mcpWatchdogIsSessionLost(error)) return;
	__mcpWatchdogOnLost(generation, generationDown, error, {
		isCurrent: typeof isCurrent === "function" ? isCurrent : void 0,
		logger: typeof ctx === "object" && ctx !== null ? ctx.logger : void 0,
		label: typeof label === "string" ? label : "mcp-client"
	});
};
