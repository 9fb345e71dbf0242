package soak

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// IdentityFigures say where the daemon took the host's sessions from, as
// its records about them say (source): the beacon, the proxy the host
// calls through, or inferred from the store and the client's name. Host sessions are counted once per source
// their records gave.
type IdentityFigures struct {
	Beacon   int // host sessions named by the beacon
	Proxy    int // sessions behind a proxy, known from their calls
	Inferred int // host sessions inferred
	Unsaid   int // host sessions whose records did not say
	// InferredWhileBeacon: host sessions journaled as inferred while the
	// host's live beacon had named them for a while.
	InferredWhileBeacon []string
}

// identityKinds are the kinds whose records are about the host's session
// and say where its identity came from.
func identityKinds() []health.EventKind {
	return []health.EventKind{health.EvSessionLost, health.EvRecovered, health.EvKeepWarm,
		health.EvKeepWarmFailed, health.EvSessionAtRisk}
}

// identity counts the host sessions by the source their records give.
func (r *Report) identity(in Input, all []*session) {
	byMask := sessionsByMask(all)
	sets := map[string]map[string]bool{sourceBeacon: {}, sourceProxy: {}, sourceInferred: {}, "": {}}
	flagged := map[string]bool{}
	for _, seen := range in.Journal {
		rec := seen.Rec
		if !slices.Contains(identityKinds(), rec.Kind) || (rec.Kind == health.EvSessionLost && !incident(rec)) {
			continue
		}
		key := rec.Server + "\x00" + identityOf(rec)
		src := identitySource(rec)
		if sets[src] == nil {
			src = "" // a source the soak does not know says nothing it can count
		}
		sets[src][key] = true
		if src != sourceInferred || flagged[key] {
			continue
		}
		if s := byMask[key]; s != nil && namedThroughout(in, all, s, seen.At) {
			flagged[key] = true
			r.Identity.InferredWhileBeacon = append(r.Identity.InferredWhileBeacon,
				fmt.Sprintf("%s %s at %s: %s", rec.Kind, describe(s), fmtTime(seen.At), rec.Detail))
		}
	}
	r.Identity.Beacon, r.Identity.Proxy = len(sets[sourceBeacon]), len(sets[sourceProxy])
	r.Identity.Inferred, r.Identity.Unsaid = len(sets[sourceInferred]), len(sets[""])
}

// identityOf is the masked host session a record is about: a recovered
// record's new session when it names one, else its session.
func identityOf(rec journal.Record) string {
	if rec.Kind == health.EvRecovered {
		if n := newSession(rec); n != "" {
			return n
		}
	}
	return rec.Session
}

// decidedBy is the earliest a record the soak read at at may have been
// decided: at, or, when a journal write failure held it, the failure's
// start. The daemon is judged on what it could know then.
func decidedBy(in Input, at time.Time) time.Time {
	if f, held := heldBy(in, at); held {
		return minTime(at, f.From)
	}
	return at
}

// namedThroughout: a live beacon named s at every moment the record read
// at at may have been decided (from decidedBy to at): only then had the
// daemon the beacon's word whenever it judged. A host killed while a journal
// failure held the record leaves the daemon nothing but the guess (CI at
// 9cb32e9: the loss was decided after the kill, the failure began before).
func namedThroughout(in Input, all []*session, s *session, at time.Time) bool {
	return beaconNamed(in, all, s, decidedBy(in, at)) && beaconNamed(in, all, s, at)
}

// beaconNamed: at at, a live beacon had named s for beaconSlack: s is the
// host's, opened by a run whose beacon was still live at at, and the host
// had opened no newer session on that server beaconSlack before.
func beaconNamed(in Input, all []*session, s *session, at time.Time) bool {
	if s.client != in.HostClient || at.Before(s.start.Add(beaconSlack)) {
		return false
	}
	run, ok := hostRun(in.Beacons, s.start)
	if !ok || !run.contains(at) {
		return false
	}
	for _, o := range all {
		if o != s && o.server == s.server && o.client == s.client && o.start.After(s.start) && !o.start.After(at.Add(-beaconSlack)) {
			return false
		}
	}
	return true
}
