package clientpatch

import (
	"path/filepath"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// target is the host whose client module a call acts on, as its profile
// says: where the module is installed, where the originals are kept, and
// the names that advice and errors use.
type target struct {
	hostName string      // "restart DSH"
	client   host.Client // the module's package and the fix's folders
}

// targetOf is the target of profile p. The zero profile is DSH's: the
// payload and its anchors are written for DSH's client, so that is the
// client meant by a caller that names none.
func targetOf(p host.Profile) target {
	if p.Name == "" && p.Client == (host.Client{}) {
		p = host.DSH()
	}
	return target{hostName: p.Name, client: p.Client}
}

// name is what people call the client ("dsh-mcp-client").
func (t target) name() string { return t.client.ShortName() }

// backups is the target's backup folder in home; home "" has none.
func (t target) backups(home string) backups {
	if home == "" {
		return backups{}
	}
	return backups{dir: filepath.Join(home, filepath.FromSlash(t.client.BackupDir))}
}

// advice is one sentence for each state, in one host's words.
type advice struct {
	unpatched, applied, unknown, outdated, modified, notFound, restart string
}

func (t target) advice() advice {
	h, c, entry := t.hostName, t.name(), t.client.Entry
	return advice{
		unpatched: "this client has the session-loss bug: run `watchdog patch apply`, then restart " + h,
		applied: "the fix is in: restart " + h + " if it was running when the patch was applied; reinstalling or updating " +
			h + " removes the patch (run `watchdog patch apply` again then)",
		unknown: "this " + c + " build is not one the patch knows: check that it still lacks an onerror handler (`grep -c onerror " +
			entry + "` is 0), then `watchdog patch apply --force` edits it only if every anchor is found",
		outdated: "an older patch (v1) is in: a lost session heals, but the call that meets it still fails; run `watchdog patch apply`" +
			" to upgrade it to v2 (that call is then retried once on the new session), then restart " + h,
		modified: "the patched file was changed after patching: `watchdog patch revert --force` restores the original from the backup," +
			" then run `watchdog patch apply` again",
		notFound: c + " was not found: pass --module PATH/" + entry + " or set host.client_module in the config",
		restart:  "restart " + h + " so it loads the change; reinstalling or updating " + h + " removes the patch (run `watchdog patch apply` again then)",
	}
}

// named is a sentinel error said in the client's own name ("dsh-mcp-client
// not found"), as users know it; errors.Is still finds the sentinel.
type named struct {
	sentinel error
	text     string
}

func (e named) Error() string { return e.text }
func (e named) Unwrap() error { return e.sentinel }

// notFound is ErrNotFound in the client's name.
func (t target) notFound() error { return named{ErrNotFound, t.name() + " not found"} }

// unknownVersion is ErrUnknownVersion in the client's name.
func (t target) unknownVersion() error {
	return named{ErrUnknownVersion, "unknown " + t.name() + " version"}
}
