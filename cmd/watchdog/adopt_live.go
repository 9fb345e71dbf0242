package main

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// servedWait bounds how long adopt waits for the running daemon to take
// its changed config and serve the new proxies.
const servedWait = 15 * time.Second

// servedBy waits, asking status, until the running daemon serves a proxy
// on each of listens, and says why not when it does not.
func servedBy(status func(context.Context) (*health.Status, error)) func(context.Context, []string) error {
	return func(ctx context.Context, listens []string) error {
		ctx, cancel := context.WithTimeout(ctx, servedWait)
		defer cancel()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			// A daemon takes a changed config by starting its run again:
			// its socket may refuse for a moment.
			st, err := status(ctx)
			why := unserved(st, listens)
			if why == "" {
				return nil
			}
			if err != nil {
				why = "it does not answer (" + err.Error() + ")"
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the running watchdog did not serve the new proxies within %v: %s", servedWait, why)
			case <-tick.C:
			}
		}
	}
}

// unserved says which of listens st does not serve, and why; "" when it
// serves all.
func unserved(st *health.Status, listens []string) string {
	if st == nil {
		return "no answer"
	}
	for _, l := range listens {
		why := "it has not taken the changed config yet"
		for _, s := range st.Servers {
			if s.ProxyListen != "" && proxyurl.SameListen(s.ProxyListen, l) {
				if s.ProxyServed {
					why = ""
				} else {
					why = l + ": " + s.ProxyProblem
				}
			}
		}
		if why != "" {
			return why
		}
	}
	return ""
}
