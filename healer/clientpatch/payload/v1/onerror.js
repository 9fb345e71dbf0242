generation.onerror = (error) => {
	if (!attemptSettled || !isCurrent(generation) || !__mcpWatchdogIsSessionLost(error)) return;
	ctx.logger.warn(`${label}: session lost (${String(error.message)}); reconnecting`);
	__mcpWatchdogRetire(generation, generationDown, false);
};
