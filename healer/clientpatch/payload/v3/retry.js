if (opts?.[__mcpWatchdogDirect] !== true) return __mcpWatchdogCallTool(client, exec, (generation) => callToolUncached(generation, rawName, args, exec, { ...opts, [__mcpWatchdogDirect]: true }));
