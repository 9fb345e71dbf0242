package tsserver

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// StartOAuth runs testdata/tsservers/oauth-server.mjs: a real TypeScript SDK server
// that signs its users in with MCP's OAuth (the SDK's authorization router, its
// protected-resource metadata and its bearer check, which takes only tokens issued for
// this server's own URL). It stops when the test ends.
func StartOAuth(t testing.TB) *Server {
	t.Helper()
	node, dir := clientDeps(t)
	return StartProgram(t, Program{Name: "tsserver: OAuth server", Bin: node, Dir: dir, Args: []string{"oauth-server.mjs"}})
}

// SignIn runs testdata/tsservers/oauth-client.mjs against url: the TypeScript SDK's own
// OAuth client signs in (metadata, registration, PKCE, the token for the resource) and
// calls echo once. It returns the client's one line, "OK <text>" or "ERR <message>".
func SignIn(t testing.TB, url string) string {
	t.Helper()
	node, dir := clientDeps(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "oauth-client.mjs", "--url", url)
	cmd.Dir = dir
	out, _ := cmd.Output() // the line says how it went; the exit code says the same
	return strings.TrimSpace(string(out))
}
