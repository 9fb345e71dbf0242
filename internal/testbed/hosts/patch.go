package hosts

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// PatchDSH applies the client patch as `watchdog patch apply` does, to the
// module discovery finds in a private copy of the install laid out as a
// global npm prefix, hoisted or nested (PrivateDSH; NPM_CONFIG_PREFIX;
// `npm root -g` and the system prefixes are left out, so no install
// elsewhere on the machine is found first). It returns the private install the host must run from, and
// fails when the shared install changed.
func (r *Rig) PatchDSH(in DSHInstall, nested bool) DSHInstall {
	r.t.Helper()
	shared := filepath.Join(in.Dir, "node_modules", filepath.FromSlash(host.DSH().Client.Package), filepath.FromSlash(host.DSH().Client.Entry))
	before := digest(r.t, shared)
	priv, prefix := PrivateDSH(r.t, in, nested)
	prof := host.DSH()
	found, err := clientpatch.Find(clientpatch.FindOptions{
		Host:       prof,
		Home:       r.Home,
		Getenv:     func(k string) string { return map[string]string{"NPM_CONFIG_PREFIX": prefix}[k] },
		NpmRoot:    func() (string, error) { return "", errors.New("npm root -g: not asked in the rig") },
		SystemDirs: []string{},
	})
	if err != nil {
		r.t.Fatal(err)
	}
	want := filepath.Join(prefix, "lib", "node_modules", filepath.FromSlash(prof.Client.Package), filepath.FromSlash(prof.Client.Entry))
	if nested {
		want = filepath.Join(prefix, "lib", "node_modules", filepath.FromSlash(prof.Client.HostPackage), "node_modules",
			filepath.FromSlash(prof.Client.Package), filepath.FromSlash(prof.Client.Entry))
	}
	if len(found) != 1 || found[0] != want {
		r.t.Fatalf("discovery found %v; want only %s", found, want)
	}
	st, err := clientpatch.Install(found[0], clientpatch.InstallOptions{Host: prof, Home: r.Home, Node: priv.Node})
	if err != nil {
		r.t.Fatalf("patch apply %s: %v (%+v)", found[0], err, st)
	}
	if st.State != clientpatch.StateApplied {
		r.t.Fatalf("patch apply %s: state %s, want %s (%+v)", found[0], st.State, clientpatch.StateApplied, st)
	}
	if after := digest(r.t, shared); after != before {
		r.t.Fatalf("patching the private copy changed the shared install's %s", shared)
	}
	priv.Module = found[0]
	r.Module = priv.Module
	return priv
}

func digest(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}
