package healer

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsmodern"
)

// The model's era words are mcphttp's.
func TestEraWords(t *testing.T) {
	t.Parallel()
	for model, wire := range map[string]mcphttp.Era{health.EraLegacy: mcphttp.EraLegacy, health.EraBoth: mcphttp.EraBoth,
		health.EraModernOnly: mcphttp.EraModernOnly} {
		if model != string(wire) {
			t.Errorf("health says %q, mcphttp %q", model, wire)
		}
	}
}

// A liveness check learns the era of the real servers of each era: the
// modern-only one by its refusal of the ping alone (stateless too); the
// others by a server/discover while the era is unknown, and only then.
func TestLivenessLearnsEra(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	legacy, err := demoserver.Start(ctx, demoserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = legacy.Close() })
	both, err := demoserver.Start(ctx, demoserver.Options{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = both.Close() })
	modern := tsmodern.Start(t, tsmodern.Options{})
	for _, tt := range []struct {
		name, url, known, want string
		outcome                health.Outcome
	}{
		{"go-sdk stateful, era unknown", legacy.URL(), "", health.EraLegacy, health.OutcomeAlive},
		{"go-sdk stateful, era known", legacy.URL(), health.EraLegacy, "", health.OutcomeAlive},
		{"go-sdk stateless", both.URL(), "", health.EraBoth, health.OutcomeAlive},
		{"ts-sdk v2 legacy reject", modern.URL(), health.EraLegacy, health.EraModernOnly, health.OutcomeStateless},
	} {
		c, err := mcphttp.New(mcphttp.Options{URL: tt.url})
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan health.Observation, 1)
		p := NewPinger(map[string]*mcphttp.Client{"mem": c}, func(sig health.Observation) { got <- sig })
		if !p.Liveness(ctx, "mem", true, tt.known) {
			t.Fatalf("%s: not sent", tt.name)
		}
		o := <-got
		if sig, ok := o.(health.LivenessAnswered); !ok || sig.Era != tt.want || sig.Outcome != tt.outcome {
			t.Errorf("%s: %T era %q outcome %v, want %q %v (%s)", tt.name, o, sig.Era, sig.Outcome, tt.want, tt.outcome, sig.Detail)
		}
		p.Wait()
	}
}
