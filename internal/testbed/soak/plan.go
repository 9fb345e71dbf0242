package soak

import (
	"math/rand/v2"
	"slices"
	"time"
)

// FaultKind is one kind of injected fault.
type FaultKind string

// Fault kinds.
const (
	FaultServerKill   FaultKind = "server_kill"   // kill -9, restart on the same port after Pause
	FaultLogRotate    FaultKind = "log_rotate"    // Mode: one of RotateModes
	FaultStoreRewrite FaultKind = "store_rewrite" // Mode: "atomic" or "halves"
	FaultHostKill     FaultKind = "host_kill"     // kill -9 the host, start a new one after Pause
	FaultWatchdogKill FaultKind = "watchdog_kill" // kill -9 the watchdog (mid-incident when one is open), restart at once
	FaultProxyKill    FaultKind = "proxy_kill"    // kill -9 the proxy process (watchdog proxy), restart at once
	FaultClockJump    FaultKind = "clock_jump"    // the watchdog's wall clock jumps Jump ahead, and back after Pause
	FaultJournalFail  FaultKind = "journal_fail"  // every journal write fails for Pause
)

// FaultKinds returns every kind, in the order reports list them.
func FaultKinds() []FaultKind {
	return []FaultKind{FaultServerKill, FaultLogRotate, FaultStoreRewrite, FaultHostKill, FaultWatchdogKill, FaultProxyKill,
		FaultClockJump, FaultJournalFail}
}

// RotateModes are the ways a log is rotated.
var RotateModes = []string{"rename_create", "copytruncate", "truncate", "delete_recreate"}

// Fault is one entry of the schedule.
type Fault struct {
	At     time.Duration // since the soak started
	Kind   FaultKind
	Server string        // server faults
	Mode   string        // rotation and store rewrite modes
	Pause  time.Duration // downtime before a restart, or how long a jump or a journal failure lasts
	Jump   time.Duration // clock jumps
}

// PlanOptions shape a schedule.
type PlanOptions struct {
	Seed     uint64
	Duration time.Duration
	Servers  []string
	// Warmup is left fault-free so every client has its sessions first.
	Warmup time.Duration
	// Cooldown is left fault-free at the end so the last incidents settle.
	Cooldown time.Duration
}

// Plan returns the seeded fault schedule, sorted by time: log rotations
// every 2–5 s, and other faults every 2–6 s, each kind at least once when
// the soak is long enough (the first ones are dealt from a shuffled deck).
func Plan(o PlanOptions) []Fault {
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed))
	end := o.Duration - o.Cooldown
	var out []Fault
	for at := o.Warmup + jitter(r, 2, 5); at < end; at += jitter(r, 2, 5) {
		out = append(out, Fault{At: at, Kind: FaultLogRotate, Server: pick(r, o.Servers), Mode: pick(r, RotateModes)})
	}
	deck := []FaultKind{FaultServerKill, FaultStoreRewrite, FaultHostKill, FaultWatchdogKill, FaultProxyKill, FaultClockJump,
		FaultStoreRewrite, FaultJournalFail}
	r.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
	for at := o.Warmup + jitter(r, 2, 6); at < end; at += jitter(r, 2, 6) {
		kind := weighted(r)
		if len(deck) > 0 {
			kind, deck = deck[0], deck[1:]
		}
		out = append(out, fault(r, at, kind, o.Servers))
	}
	slices.SortStableFunc(out, func(a, b Fault) int { return int(a.At - b.At) })
	return out
}

func fault(r *rand.Rand, at time.Duration, kind FaultKind, servers []string) Fault {
	f := Fault{At: at, Kind: kind}
	switch kind {
	case FaultServerKill:
		f.Server, f.Pause = pick(r, servers), jitter(r, 0.3, 1.5)
	case FaultStoreRewrite:
		f.Server, f.Mode = pick(r, servers), pick(r, []string{"atomic", "halves"})
	case FaultHostKill:
		f.Pause = jitter(r, 0.5, 3)
	case FaultClockJump:
		f.Jump, f.Pause = jitter(r, 6, 20), jitter(r, 2, 5)
	case FaultJournalFail:
		f.Pause = jitter(r, 2, 6)
	}
	return f
}

// weighted draws a fault kind other than rotation: mostly cheap store
// rewrites, then kills, now and then one of the proxy process, rarely a
// clock jump or a journal that cannot be written.
func weighted(r *rand.Rand) FaultKind {
	switch n := r.IntN(100); {
	case n < 30:
		return FaultStoreRewrite
	case n < 54:
		return FaultServerKill
	case n < 71:
		return FaultHostKill
	case n < 85:
		return FaultWatchdogKill
	case n < 89:
		return FaultProxyKill
	case n < 95:
		return FaultClockJump
	default:
		return FaultJournalFail
	}
}

func jitter(r *rand.Rand, lo, hi float64) time.Duration {
	return time.Duration((lo + r.Float64()*(hi-lo)) * float64(time.Second))
}

func pick[T any](r *rand.Rand, from []T) T { return from[r.IntN(len(from))] }
