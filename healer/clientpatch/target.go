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
	unpatched, applied, unknown, modified, notFound, restart string
	outdated                                                 func(version string) string // an older patch is in
	partial                                                  func(missing string) string // applied without some features
	unsupported                                              func(build string) string   // a build the patch cannot fix
	noCore                                                   func(why string) string     // an unknown build the core fix does not fit
}

func (t target) advice() advice {
	h, c, entry := t.hostName, t.name(), t.client.Entry
	stillHelps := "what still helps: keep-warm (the watchdog pings " + h + "'s session before the server's idle timeout ends it)" +
		" and restarting " + h + " after a loss (`watchdog heal`, host.restart)"
	return advice{
		unpatched: "this client has the session-loss bug: run `watchdog patch apply`, then restart " + h,
		applied: "the fix is in: restart " + h + " if it was running when the patch was applied; reinstalling or updating " +
			h + " removes the patch (run `watchdog patch apply` again then)",
		unknown: "this " + c + " build is not one the patch knows: check that it still lacks an onerror handler (`grep -c onerror " +
			entry + "` is 0), then `watchdog patch apply --force` puts in every part whose anchors are found (the parts above)",
		outdated: func(v string) string {
			if v == versionV1 {
				return "an older patch (v1) is in: a lost session heals, but the call that meets it still fails; run `watchdog patch apply`" +
					" to upgrade it to " + Version + " (that call is then retried once on the new session), then restart " + h
			}
			gains := "a tool call made while the session is being replaced then waits for the new session instead of failing"
			if v == versionV2 {
				gains = "it also reads SDK 2's session-expired error, and " + gains
			}
			return "an older patch (" + v + ") is in and works; `watchdog patch apply` upgrades it to " + Version +
				" (" + gains + "), then restart " + h
		},
		partial: func(missing string) string {
			return "the core fix is in, on a build the patch does not know; not in, for want of their anchors: " + missing +
				" (see missing). Restart " + h + " if it was running when the patch was applied"
		},
		unsupported: func(build string) string {
			return build + " has no reconnect supervisor: it connects once and never reconnects, so the patch has nothing to feed" +
				" a lost session into and cannot help; " + stillHelps + ". Updating " + c + " to a later release lets the patch fix it"
		},
		noCore: func(why string) string {
			return "this " + c + " build is not one the patch knows, and the core fix cannot go in (" + why + "), so `watchdog patch apply --force`" +
				" refuses and the patch cannot help this build; " + stillHelps
		},
		modified: "the patched file was changed after patching: `watchdog patch revert --force` restores the original from the backup," +
			" then run `watchdog patch apply` again",
		notFound: c + " was not found: pass --module PATH/" + entry + " or set host.client_module in the config",
		restart:  "restart " + h + " so it loads the change; reinstalling or updating " + h + " removes the patch (run `watchdog patch apply` again then)",
	}
}

// feature says what a feature of the patch buys, and what goes without it.
func (t target) feature(name string) FeatureStatus {
	h := t.hostName
	f := FeatureStatus{Name: name}
	switch name {
	case FeatureCore:
		f.Gives = "a lost session (a POST answered 404, or the 400 quirk) takes the connection down, so the client's own reconnect opens a new session"
		f.Without = "a lost session is never healed: every tool of that server fails until " + h + " restarts"
	case FeatureTrigger:
		f.Gives = "the watchdog can ask for a new session before the next call fails, and reads which session " + h + " holds (the beacon)"
		f.Without = "the watchdog cannot heal before the next call (keep-warm and restarting " + h + " are left), and guesses " +
			h + "'s session from the server's store"
	case FeatureRetry:
		f.Gives = "a tool call that meets a lost session is sent once more on the new session, and one made while the session is being replaced waits for it, so neither fails"
		f.Without = "the first call after a loss fails; the next one works on the new session"
	case FeatureDispose:
		f.Gives = "a plugin reload or quit takes the server out of the beacon and stops its trigger watch"
		f.Without = "after a plugin reload the old instance stays in the beacon (as down) until " + h + " exits"
	}
	return f
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
