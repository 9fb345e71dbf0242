package healer

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// Strategy names, as journaled and as counted in metrics.
const (
	StrategyReconnect                      = health.StrategyReconnect   // the patched client reconnects on its next call
	StrategyClientRecovery health.Strategy = "client_recovery"          // the watchdog triggers the patched client's recovery
	StrategyHostRestart                    = health.StrategyHostRestart // the last resort
)

// Actions are what a strategy acts through: the daemon provides them, so
// the table below needs no daemon and the daemon no switch over strategies.
type Actions interface {
	// Started journals that strategy s began healing server; a recovery is
	// due within the given time (zero: no deadline).
	Started(ctx context.Context, server string, s health.Strategy, within time.Duration, detail string)
	// Failed journals that s failed on server, detail saying why and what
	// to do; s is "" when the ladder gave up before trying any.
	Failed(ctx context.Context, server string, s health.Strategy, detail string)
	// TriggerDir is the folder where the host's patched client looks for
	// recovery triggers (its profile's Client.TriggerDir under the home).
	TriggerDir() (string, error)
	// Now is the daemon's clock.
	Now() time.Time
	// RestartHost restarts the host within the restart limits and journals
	// that it began; the error says why it did not restart now.
	RestartHost(ctx context.Context, server string) error
}

// Strategy is one way to heal a lost session: one rung of the heal ladder.
type Strategy struct {
	// Name is journaled with heal_started, heal_failed and recovered, and
	// is the strategy label metrics count the heal under.
	Name health.Strategy
	// Applies says whether the strategy can heal, given the ladder's input.
	Applies func(LadderInput) bool
	// Fallback: the ladder turns to it when another strategy failed.
	Fallback bool
	// Run starts the strategy for server's open incident. An error means
	// it could not start; the ladder journals it as this strategy's
	// failure and turns to a fallback.
	Run func(ctx context.Context, act Actions, server string) error
}

// Strategies is the heal ladder, best first: the first entry that applies
// is taken. A new strategy is one entry here, and its tests; metrics count
// every entry under its name (the daemon passes StrategyNames).
func Strategies() []Strategy {
	return []Strategy{
		{Name: StrategyClientRecovery, Applies: func(in LadderInput) bool { return in.Patch == PatchTrigger },
			Run: triggerRecovery},
		{Name: StrategyReconnect, Applies: func(in LadderInput) bool { return in.Patch == PatchApplied },
			Run: awaitReconnect},
		{Name: StrategyHostRestart, Applies: restartAllowed, Fallback: true,
			Run: func(ctx context.Context, act Actions, server string) error { return act.RestartHost(ctx, server) }},
	}
}

// StrategyNames lists the names of Strategies, in their order.
func StrategyNames() []health.Strategy {
	all := Strategies()
	out := make([]health.Strategy, len(all))
	for i, s := range all {
		out[i] = s.Name
	}
	return out
}

// first is the first entry of the ladder that applies to in and that
// want accepts.
func first(in LadderInput, want func(Strategy) bool) (Strategy, bool) {
	for _, s := range Strategies() {
		if want(s) && s.Applies(in) {
			return s, true
		}
	}
	return Strategy{}, false
}

func restartAllowed(in LadderInput) bool { return in.CanRestart && (in.AutoRestart || in.UserAsked) }

// awaitReconnect: the patched client heals on its next call by itself;
// there is nothing to do but say so, and no deadline (the next call may
// be hours away).
func awaitReconnect(ctx context.Context, act Actions, server string) error {
	act.Started(ctx, server, StrategyReconnect, 0, "the patched client reconnects on its next call")
	return nil
}

// triggerRecovery asks the patched client to reconnect now, before the
// user's next call meets the dead session; a new session of the client
// must follow within TriggerConfirmWithin.
func triggerRecovery(ctx context.Context, act Actions, server string) error {
	dir, err := act.TriggerDir()
	if err == nil {
		err = WriteTrigger(dir, server, act.Now())
	}
	if err != nil {
		return fmt.Errorf("cannot trigger the client's recovery: %w", err)
	}
	act.Started(ctx, server, StrategyClientRecovery, TriggerConfirmWithin, "triggered the patched client's recovery")
	return nil
}

// Heal climbs the ladder for server's open incident: it runs the best
// strategy that applies and, when one cannot start, journals why and turns
// to a fallback, trying each strategy at most once. It returns the first
// strategy taken, or "" when none applies (then Failed says what the user
// can do).
func Heal(ctx context.Context, act Actions, server string, in LadderInput) health.Strategy {
	s, ok := first(in, func(Strategy) bool { return true })
	if !ok {
		act.Failed(ctx, server, "", fmt.Sprintf("%s cannot heal itself: %s", server, Next(in).Advice))
		return ""
	}
	taken, tried := s.Name, map[health.Strategy]bool{}
	for ok {
		tried[s.Name] = true
		err := s.Run(ctx, act, server)
		if err == nil {
			break
		}
		act.Failed(ctx, server, s.Name, err.Error())
		s, ok = first(in, func(c Strategy) bool { return c.Fallback && !tried[c.Name] })
	}
	return taken
}
