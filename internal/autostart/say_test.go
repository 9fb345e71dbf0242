package autostart

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWriteStatus: the status text says whether autostart is on, what it
// starts, and what is not current, each only when it holds.
func TestWriteStatus(t *testing.T) {
	t.Parallel()
	on := State{Kind: Systemd, Path: "/u/watchdog.service", Enabled: true, Exe: "/bin/w", PointsHere: true, Current: true, Linked: true, Restarts: true}
	stale := on
	stale.PointsHere, stale.Current, stale.Linked, stale.Sockets = false, false, false, []string{"127.0.0.1:1"}
	tests := []struct {
		name    string
		st      State
		proxies int
		want    []string
		not     []string
	}{
		{"disabled", State{Kind: XDG, Path: "/a/w.desktop"}, 1, []string{"autostart disabled (", "/a/w.desktop not present"}, []string{"restarts"}},
		{"enabled here", on, 0, []string{"starts this binary: /bin/w", "restarts it after every exit"}, []string{"NOT this binary", "not current", "not linked"}},
		{"enabled elsewhere, stale", stale, 1, []string{`starts "/bin/w", NOT this binary; point it here with: watchdog autostart enable --systemd`,
			"holds: 127.0.0.1:1", "not current with the config: watchdog autostart enable --systemd", "not linked to the login yet: " + SystemdEnableCommand}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			WriteStatus(&b, tc.st, tc.proxies)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("status %q does not say %q", b.String(), w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("status %q says %q", b.String(), n)
				}
			}
		})
	}
}

// TestJSON: what enable or disable did overrides the state's kind and
// restarts, and adds what it did.
func TestJSON(t *testing.T) {
	t.Parallel()
	var v map[string]any
	if err := json.Unmarshal(JSON(State{Kind: XDG, Restarts: false}, &Result{Kind: Systemd, Restarts: true, Did: []string{"wrote x"}}), &v); err != nil {
		t.Fatal(err)
	}
	if v["kind"] != Systemd.String() || v["restarts"] != true || v["did"] == nil {
		t.Errorf("JSON = %v; want the result's kind and restarts, and what it did", v)
	}
	if err := json.Unmarshal(JSON(State{Kind: XDG}, nil), &v); err != nil || v["kind"] != XDG.String() {
		t.Errorf("JSON of a state alone = %v, %v", v, err)
	}
}
