// Stub of @deepseek-ai/dsh-subprocess (stdio transport only; the reproduction uses HTTP).
export function scrubbedParentEnv() {
	return { ...process.env };
}
