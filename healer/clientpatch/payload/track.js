__mcpWatchdogTrack(generation, generationDown, {
	label,
	logger: ctx.logger,
	current: () => disposed || connectedAt === void 0 ? void 0 : client,
	coming: () => !disposed && (client !== void 0 || reconnectTimer !== void 0),
	settling: () => settling,
	hurry: () => {
		if (disposed || reconnectTimer === void 0 || failedAttempts !== 1) return;
		clearTimeout(reconnectTimer);
		reconnectTimer = void 0;
		settling = connectGeneration(false);
	},
	retire: () => {
		if (attemptSettled && isCurrent(generation)) __mcpWatchdogRetire(generation, generationDown, false);
	}
});
