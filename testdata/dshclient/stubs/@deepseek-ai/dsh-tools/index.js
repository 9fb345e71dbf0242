// Stub of @deepseek-ai/dsh-tools: every advertised output schema is accepted.
export function assertSupportedJsonSchema() {}
