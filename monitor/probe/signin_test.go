package probe

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// A server that signs in with MCP's OAuth (the TypeScript SDK's own
// authorization router, metadata and bearer check) is told apart from one
// that wants a header: its tokens are bound to its URL, which no proxy can
// carry. Measured before: every 401 was "configure the Authorization
// header", which is wrong for OAuth.
func TestRunTellsOAuth(t *testing.T) {
	t.Parallel()
	srv := tsserver.StartOAuth(t)
	r, err := Run(testCtx(t), newClient(t, srv.URL()))
	if !errors.Is(err, ErrOAuth) || !errors.Is(err, ErrAuth) {
		t.Fatalf("err %v; want ErrOAuth (and ErrAuth)", err)
	}
	if r.SignIn != SignInOAuth || r.Resource != srv.URL() || !strings.Contains(r.ResourceMetadata, "/.well-known/oauth-protected-resource") {
		t.Fatalf("sign-in %q, resource %q, metadata %q", r.SignIn, r.Resource, r.ResourceMetadata)
	}
	if hasNote(r, "configure the Authorization header") {
		t.Errorf("told to configure a header for an OAuth server: %q", r.Notes)
	}
	var text strings.Builder
	_ = r.WriteText(&text)
	if !strings.Contains(text.String(), "OAuth") || !strings.Contains(text.String(), "cannot stand in front of it") {
		t.Errorf("the report says:\n%s", text.String())
	}
}

// A Go SDK server behind its own bearer middleware with no OAuth metadata
// wants a header, and is said to.
func TestRunTellsAHeader(t *testing.T) {
	t.Parallel()
	verify := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return nil, auth.ErrInvalidToken
	}
	s := newSDKServer(t, mcp.StreamableHTTPOptions{SessionTimeout: time.Minute}, func(_ *mcp.Server, h http.Handler) http.Handler {
		return auth.RequireBearerToken(verify, nil)(h)
	})
	r, err := Run(testCtx(t), newClient(t, s.http.URL))
	if !errors.Is(err, ErrAuth) || errors.Is(err, ErrOAuth) || r.SignIn != SignInHeader || !hasNote(r, "configure the Authorization header") {
		t.Fatalf("err %v, sign-in %q, notes %q", err, r.SignIn, r.Notes)
	}
}
