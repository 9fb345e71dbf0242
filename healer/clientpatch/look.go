package clientpatch

import (
	"fmt"
	"strings"
)

// Look is one look at the host's client module: where it is, its status,
// and that status in one line. Doctor and the daemon read the same.
type Look struct {
	Module string
	Detail string // Summary, or the error that stopped the look
	Status Status
}

// LookAt inspects a module found before.
func LookAt(module string, o InspectOptions) Look {
	st, err := Inspect(module, o)
	l := Look{Module: module, Detail: st.Summary(), Status: st}
	if err != nil {
		l.Detail = err.Error()
	}
	return l
}

// LookFor finds the client module (o.Module or o.ConfigModule first, then
// discovery) and inspects it, with its backups in o.Home; without one,
// Status.State is StateNotFound.
func LookFor(o FindOptions) Look {
	found, err := Find(o)
	if err != nil {
		return Look{Detail: err.Error(), Status: Status{State: StateNotFound}}
	}
	return LookAt(found[0], InspectOptions{Host: o.Host, Home: o.Home})
}

// Summary says a status in one line.
func (st Status) Summary() string {
	switch st.State {
	case StateApplied:
		if len(st.Missing) > 0 && st.Version == Version {
			return fmt.Sprintf("applied in part (patch %s: %s; not in: %s) on %s", st.Version, featureNames(st.Present), featureNames(st.Missing), st.Base)
		}
		if !st.Retry {
			return fmt.Sprintf("applied (patch %s: %s; no retry: `watchdog patch apply` upgrades it) on %s", st.Version, featureNames(st.Present), st.Base)
		}
		return fmt.Sprintf("applied (patch %s: %s) on %s", st.Version, featureNames(st.Present), st.Base)
	case StateUnpatched:
		return "unpatched: " + st.Base + " has the session-loss bug"
	case StateModified:
		return "modified since patched (parts found: " + strings.Join(st.Parts, ", ") + ")"
	case StateUnknownVersion:
		if len(st.WouldApply) == 0 {
			return "unknown version (not a build the patch knows; the core fix does not fit it)"
		}
		return "unknown version (not a build the patch knows; apply --force would put in: " + featureNames(st.WouldApply) + ")"
	case StateUnsupported:
		return "unsupported: " + st.Base + " never reconnects, so the patch cannot help"
	case StateNotFound:
		return "not found"
	}
	return string(st.State)
}
