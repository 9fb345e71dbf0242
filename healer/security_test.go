package healer

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
)

// TestSecurityKeepWarmNeverFollowsARedirect: the server redirects the
// keep-warm ping (and the liveness check) to another origin, with the
// session id in the new URL. The pinger follows neither: the other origin
// sees no request, and the signal that goes to the journal and the
// notifications names the redirect with the id masked.
func TestSecurityKeepWarmNeverFollowsARedirect(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	other := 0
	hs2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		other++
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(hs2.Close)
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		hs1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, hs2.URL+"/mcp?sid="+url.QueryEscape(r.Header.Get(mcphttp.HeaderSessionID)), code)
		}))
		t.Cleanup(hs1.Close)
		c, err := mcphttp.New(mcphttp.Options{URL: hs1.URL + "/mcp", Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		sigs := make(chan health.Observation, 2)
		p := NewPinger(map[string]*mcphttp.Client{"mem": c}, func(s health.Observation) { sigs <- s })
		const sid = "0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b"
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if !p.KeepWarm(ctx, health.WarmTarget{Server: "mem", SessionID: sid}) {
			t.Fatal("the keep-warm ping was not started")
		}
		p.Wait()
		if !p.Liveness(ctx, "mem", false, "") {
			t.Fatal("the liveness check was not started")
		}
		p.Wait()
		o, live := <-sigs, <-sigs
		warm, ok := o.(health.KeepWarmAnswered)
		if !ok || warm.Outcome != health.OutcomeOther {
			t.Errorf("%d: keep-warm answer %T outcome %v, want other", code, o, warm.Outcome)
		}
		if !strings.Contains(warm.Detail, "redirect") || strings.Contains(warm.Detail, sid) || !strings.Contains(warm.Detail, mask.ID(sid)) {
			t.Errorf("%d: keep-warm detail %q: want the redirect named and the id masked", code, warm.Detail)
		}
		if _, ok := live.(health.LivenessAnswered); !ok {
			t.Errorf("%d: second answer %T", code, live)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if other != 0 {
		t.Fatalf("the redirect target received %d requests", other)
	}
}

// TestSecurityTriggerIsPrivate: the recovery trigger sits in a 0700
// folder as a 0600 file, also when it replaces an older one.
func TestSecurityTriggerIsPrivate(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for range 2 {
		if err := WriteTrigger(filepath.Join(home, triggerDir), "mem", now); err != nil {
			t.Fatal(err)
		}
		for p, want := range map[string]os.FileMode{
			filepath.Join(home, triggerDir):        0o700,
			filepath.Join(home, triggerDir, "mem"): 0o600,
		} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Fatalf("%s: mode %04o, want %04o", p, fi.Mode().Perm(), want)
			}
		}
	}
}
