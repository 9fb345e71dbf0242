// Stub of @deepseek-ai/schemastery for loading the real dsh-mcp-client outside DSH
// (internal/testbed/repro): the client only builds its Config schema with it at load time,
// so any chain of calls may return the same inert schema.
const schema = new Proxy(function schema() {}, {
	get: (_target, prop) => (prop === "then" ? undefined : schema),
	apply: () => schema,
});
export default schema;
