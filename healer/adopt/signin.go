package adopt

import (
	"context"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/monitor/probe"
)

// signInWithin bounds the probe of one server's sign-in.
const signInWithin = 5 * time.Second

// ProbeSignIn is Options.SignIn by the real probe (monitor/probe), its
// requests named clientVersion: how the server at url signs its users in.
// The probe leaves no session behind.
func ProbeSignIn(clientVersion string) func(ctx context.Context, url string) SignIn {
	return func(ctx context.Context, url string) SignIn {
		ctx, cancel := context.WithTimeout(ctx, signInWithin)
		defer cancel()
		client, err := mcphttp.New(mcphttp.Options{URL: url, ClientName: probe.ClientName, ClientVersion: clientVersion})
		if err != nil {
			return SignInUnknown
		}
		rep, err := probe.Run(ctx, client)
		switch {
		case rep.SignIn == probe.SignInOAuth:
			return SignInOAuth
		case rep.SignIn == probe.SignInHeader:
			return SignInHeader
		case err == nil:
			return SignInNone
		}
		return SignInUnknown
	}
}
