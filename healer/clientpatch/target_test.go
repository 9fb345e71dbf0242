package clientpatch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// TestZeroTargetSaysWhatItSaid: with no host given, the advice, build names
// and errors are word for word what they were before the words came from
// the DSH profile.
func TestZeroTargetSaysWhatItSaid(t *testing.T) {
	t.Parallel()
	say := dsh().advice()
	got := map[string]string{
		"unpatched": say.unpatched, "applied": say.applied, "unknown": say.unknown, "modified": say.modified,
		"notFound": say.notFound, "restart": say.restart, "outdated v1": say.outdated("v1"),
	}
	want := map[string]string{
		"unpatched":   "this client has the session-loss bug: run `watchdog patch apply`, then restart DSH",
		"applied":     "the fix is in: restart DSH if it was running when the patch was applied; reinstalling or updating DSH removes the patch (run `watchdog patch apply` again then)",
		"unknown":     "this dsh-mcp-client build is not one the patch knows: check that it still lacks an onerror handler (`grep -c onerror lib/index.js` is 0), then `watchdog patch apply --force` puts in every part whose anchors are found (the parts above)",
		"outdated v1": "an older patch (v1) is in: a lost session heals, but the call that meets it still fails; run `watchdog patch apply` to upgrade it to v4 (that call is then retried once on the new session), then restart DSH",
		"modified":    "the patched file was changed after patching: `watchdog patch revert --force` restores the original from the backup, then run `watchdog patch apply` again",
		"notFound":    "dsh-mcp-client was not found: pass --module PATH/lib/index.js or set host.client_module in the config",
		"restart":     "restart DSH so it loads the change; reinstalling or updating DSH removes the patch (run `watchdog patch apply` again then)",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("advice %s =\n%s\nwant\n%s", k, got[k], w)
		}
	}
	if got := targetOf(host.DSH()); got != dsh() {
		t.Errorf("the zero profile is not DSH's: %+v", got)
	}
	names := map[string]string{digestRC8: "dsh-mcp-client 0.1.0-rc.7 or 0.1.0-rc.8 (one lib/index.js)",
		digestStandIn: "the watchdog's stand-in (testdata/dshclient)", digestRC1: "dsh-mcp-client 0.0.1-rc.1",
		prodPrefix + strings.Repeat("0", 52) + prodSuffix: "dsh-mcp-client 0.2.0-rc.2 or 0.2.1-alpha.4 (one lib/index.js)"}
	for d, want := range names {
		if o, ok := knownBase(d); !ok || o.name(dsh().name(), "") != want {
			t.Errorf("knownBase(%s…) names %q, want %q", d[:8], o.name(dsh().name(), ""), want)
		}
	}
	empty := t.TempDir()
	_, err := Find(FindOptions{Home: empty, Getenv: func(string) string { return "" }, NpmRoot: func() (string, error) { return empty, nil }, SystemDirs: []string{}})
	if !errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), "dsh-mcp-client not found: looked in ") ||
		!strings.HasSuffix(err.Error(), "; pass --module PATH/lib/index.js or set host.client_module") {
		t.Errorf("Find: %v", err)
	}
	if err := dsh().unknownVersion(); !errors.Is(err, ErrUnknownVersion) || err.Error() != "unknown dsh-mcp-client version" {
		t.Errorf("unknownVersion: %v", err)
	}
}

// TestTargetFromProfile: another profile's client is found, backed up and
// named by that profile alone. The profile is made up for the test.
func TestTargetFromProfile(t *testing.T) {
	t.Parallel()
	other := host.Profile{Name: "Acme", ClientName: "acme-client", Client: host.Client{
		Package: "@acme/acme-mcp", Entry: "dist/main.js", HostPackage: "@acme/acme",
		BackupDir: ".acme/backups", TriggerDir: ".acme/recover", BeaconDir: ".acme/clients"}}
	root := t.TempDir()
	home, npmRoot := filepath.Join(root, "home"), filepath.Join(root, "npm")
	hoistedOther := place(t, npmRoot, "@acme/acme-mcp/dist/main.js")
	nestedOther := place(t, npmRoot, "@acme/acme/node_modules/@acme/acme-mcp/dist/main.js")
	voltaOther := place(t, home, ".volta/tools/image/packages/@acme/acme/lib/node_modules/@acme/acme-mcp/dist/main.js")
	place(t, npmRoot, hoisted) // DSH's client: not this host's
	o := FindOptions{Host: other, Home: home, Getenv: func(string) string { return "" },
		NpmRoot: func() (string, error) { return npmRoot, nil }, SystemDirs: []string{}}
	got, err := Find(o)
	if err != nil || !slices.Equal(got, []string{hoistedOther, nestedOther, voltaOther}) {
		t.Fatalf("Find = %q, %v", got, err)
	}
	o.Module = filepath.Join(npmRoot, "@acme", "acme-mcp") // the package folder
	if got, err := Find(o); err != nil || !slices.Equal(got, []string{hoistedOther}) {
		t.Fatalf("Find(package folder) = %q, %v", got, err)
	}

	p, orig := realClient(t)
	st, err := Inspect(p, InspectOptions{Host: other})
	mustDo(t, err)
	if st.Base != "acme-mcp 0.1.0-rc.7 or 0.1.0-rc.8 (one lib/index.js)" || !strings.HasSuffix(st.Advice, "then restart Acme") {
		t.Fatalf("Inspect = %+v", st)
	}
	ao := opts(t)
	ao.Host = other
	st, err = Install(p, ao)
	mustDo(t, err)
	if !strings.HasPrefix(st.Backup, filepath.Join(ao.Home, ".acme", "backups")+string(filepath.Separator)) ||
		!strings.Contains(st.Advice, "restart Acme so it loads the change") {
		t.Fatalf("Apply = %+v", st)
	}
	if _, err := os.Stat(filepath.Join(ao.Home, ".dsh")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Apply for another host touched DSH's folder: %v", err)
	}
	if _, err := Revert(p, ao); err != nil || string(readFile(t, p)) != string(orig) {
		t.Fatalf("Revert: %v", err)
	}
	_, err = Inspect(filepath.Join(root, "none.js"), InspectOptions{Host: other})
	if !errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), "acme-mcp not found: ") {
		t.Errorf("Inspect(missing): %v", err)
	}
}
