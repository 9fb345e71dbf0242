package daemon

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/restart"
)

// TestBootClockOnLinux: the boot clock names this boot and runs forward,
// and a saved history carries its reading.
func TestBootClockOnLinux(t *testing.T) {
	t.Parallel()
	a, err := restart.ReadBootClock()
	if err != nil {
		t.Fatal(err)
	}
	b, err := restart.ReadBootClock()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.ID) != 36 || a.ID != b.ID || a.SinceBoot <= 0 || b.SinceBoot < a.SinceBoot {
		t.Fatalf("readings %+v then %+v; want one 36-character boot id and a clock that runs forward", a, b)
	}
	h := newTestHealing(t.TempDir())
	h.bootClock = restart.ReadBootClock
	h.limiter.Record(time.Now())
	if err := h.saveLimits(time.Now()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(h.limitsPath)
	if err != nil || !strings.Contains(string(data), `"boot":{"id":"`+a.ID+`"`) {
		t.Fatalf("%s = %s (%v); want this boot's reading", h.limitsPath, data, err)
	}
}
