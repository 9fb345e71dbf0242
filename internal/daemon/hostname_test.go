package daemon

import (
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// TestPatchWarningsNameTheHost: the journal's patch warnings name the host
// as host.name says (its profile's name when empty); for the default
// config, word for word what they said when "DSH" was written in here.
func TestPatchWarningsNameTheHost(t *testing.T) {
	t.Parallel()
	const module = "/opt/lib/node_modules/client/lib/index.js"
	applied := clientpatch.Look{Module: module, Status: clientpatch.Status{State: clientpatch.StateApplied}}
	unpatched := clientpatch.Look{Module: module, Status: clientpatch.Status{State: clientpatch.StateUnpatched}}
	for _, tc := range []struct{ name, said string }{{"DSH", "DSH"}, {"", "DSH"}, {"DSH at work", "DSH at work"}} {
		dir := t.TempDir()
		j, err := journal.Open(dir, journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := config.Default()
		cfg.Hosts[0].Name = tc.name
		var o Options
		o.fill()
		gone := newDaemon(cfg, dir, "", o, j)
		gone.noteClient(applied)
		gone.noteClient(unpatched)
		newDaemon(cfg, dir, "", o, j).noteClient(unpatched)
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		recs, err := journal.ReadTail(dir, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"the client patch is in place in " + module,
			"the client patch is gone from " + module + " (was " + tc.said + " reinstalled or updated?): run `watchdog patch apply`, then restart " + tc.said,
			"the client " + module + " is unpatched: a lost session does not heal by itself; run `watchdog patch apply`, then restart " + tc.said,
		}
		if len(recs) != len(want) {
			t.Fatalf("host.name %q: journaled %+v", tc.name, recs)
		}
		for i, r := range recs {
			if r.Detail != want[i] {
				t.Errorf("host.name %q: detail %d =\n%q\nwant\n%q", tc.name, i, r.Detail, want[i])
			}
		}
	}
}

// TestUnsupportedClientWarnedOfOnce: a client build no patch can help is
// journaled once, with the advice that says what still helps.
func TestUnsupportedClientWarnedOfOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var o Options
	o.fill()
	d := newDaemon(config.Default(), dir, "", o, j)
	look := clientpatch.Look{Module: "/opt/client/lib/index.js", Status: clientpatch.Status{State: clientpatch.StateUnsupported, Advice: "no patch can help; keep-warm still does"}}
	d.noteClient(look)
	d.noteClient(look)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := journal.ReadTail(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Detail != "the client /opt/client/lib/index.js: no patch can help; keep-warm still does" || recs[0].Extra["patch"] != "unsupported" {
		t.Fatalf("journaled %+v", recs)
	}
}
