package probe

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// Sign-ins, as Report.SignIn names them.
const (
	// SignInOAuth: MCP's authorization (RFC 9728 metadata, tokens bound to
	// the server's own URL by RFC 8707): hosts sign in themselves, and a
	// proxy with its own URL cannot carry that sign-in.
	SignInOAuth = "oauth"
	// SignInHeader: the server wants a credential, not by OAuth: a static
	// header in the host's (or the watchdog's) config, which passes
	// through the proxy.
	SignInHeader = "header"
)

// ErrOAuth: the endpoint signs in with OAuth (it also matches ErrAuth).
var ErrOAuth = errors.New("the endpoint signs in with OAuth")

// signIn says how a server that refused the probe for credentials signs
// its users in: by OAuth when its 401 names RFC 9728 metadata or such
// metadata is at the well-known place, else by a header.
func (p *prober) signIn(ctx context.Context, step string, resp mcphttp.Response) error {
	metaURL, challenged := mcphttp.OAuthChallenge(resp.Header)
	if resp.Status == 401 || challenged {
		pr, ok, err := p.c.FetchProtectedResource(ctx, metaURL)
		if err != nil {
			p.note("%s: reading its OAuth metadata: %v", step, err)
		}
		if challenged || ok {
			p.r.SignIn, p.r.ResourceMetadata, p.r.Resource = SignInOAuth, mask.URL(cmpOr(pr.MetadataURL, metaURL)), mask.URL(pr.Resource)
			p.note("%s: the server signs in with OAuth: its tokens are bound to its own URL, so a host signs in itself and no proxy can stand in front of it", step)
			return fmt.Errorf("%w (%w): %d", ErrOAuth, ErrAuth, resp.Status)
		}
	}
	p.r.SignIn = SignInHeader
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
