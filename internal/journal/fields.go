package journal

import (
	"slices"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// putFacts writes the typed fields of one event family under their
// journal names (contract: event journal). The names and value types are
// those the journal has always used, so lines of any version read back
// alike. Source and NewSession are written when set; an incident's loss
// is the host's own session and names no client.
func putFacts(rec map[string]any, f health.Facts) {
	switch f := f.(type) {
	case health.Opened:
		rec["client"] = f.Client
	case health.Ended:
		rec["client"], rec["idle_seconds"] = f.Client, seconds(f.Idle)
	case health.Loss:
		if f.Incident {
			rec["incident"] = true
		} else {
			rec["client"] = f.Client
		}
		putSource(rec, f.Source)
	case health.Risk:
		rec["idle_seconds"], rec["expires_in_seconds"] = seconds(f.Idle), seconds(f.ExpiresIn)
		putSource(rec, f.Source)
	case health.Recovery:
		rec["strategy"], rec["took_ms"] = string(f.Strategy), f.Took.Milliseconds()
		if f.NewSession != "" {
			rec["new_session"] = mask.ID(f.NewSession) // masked like session
		}
		putSource(rec, f.Source)
	case health.Ping:
		rec["took_ms"] = f.Took.Milliseconds()
		putSource(rec, f.Source)
	case health.Attempt:
		rec["strategy"] = string(f.Strategy)
	case health.Notice:
		rec["about"] = f.About
		if f.Thread != "" {
			rec["thread"] = f.Thread
		}
	case health.Supervised:
		putSupervised(rec, f)
	}
}

// putSupervised writes a stdio event's facts: its supervisor's and
// server's processes, starts and restart time always, and how the server
// ended, its last stderr line and the failed call's method when known.
func putSupervised(rec map[string]any, f health.Supervised) {
	rec["took_ms"], rec["starts"], rec["supervisor_pid"], rec["child_pid"] = f.Took.Milliseconds(), f.Starts, f.Supervisor, f.Child
	for k, v := range map[string]string{"exit": f.Exit, "stderr": f.Stderr, "method": f.Method} {
		if v != "" {
			rec[k] = v
		}
	}
}

func putSource(rec map[string]any, src health.IdentitySource) {
	if src != "" {
		rec["source"] = string(src)
	}
}

func seconds(d time.Duration) int64 { return int64(d / time.Second) }

// getFacts reads back the typed fields of kind's family (nil: the kind
// has none). A record read back holds new_session masked, as written.
func getFacts(kind health.EventKind, rec map[string]any) health.Facts {
	src := health.IdentitySource(str(rec, "source"))
	switch health.FactsOf(kind).(type) {
	case health.Opened:
		return health.Opened{Client: str(rec, "client")}
	case health.Ended:
		return health.Ended{Client: str(rec, "client"), Idle: wholeSeconds(rec, "idle_seconds")}
	case health.Loss:
		return health.Loss{Incident: rec["incident"] == true, Client: str(rec, "client"), Source: src}
	case health.Risk:
		return health.Risk{Idle: wholeSeconds(rec, "idle_seconds"), ExpiresIn: wholeSeconds(rec, "expires_in_seconds"), Source: src}
	case health.Recovery:
		return health.Recovery{Strategy: health.Strategy(str(rec, "strategy")), Took: millis(rec, "took_ms"),
			NewSession: str(rec, "new_session"), Source: src}
	case health.Ping:
		return health.Ping{Took: millis(rec, "took_ms"), Source: src}
	case health.Attempt:
		return health.Attempt{Strategy: health.Strategy(str(rec, "strategy"))}
	case health.Notice:
		return health.Notice{About: str(rec, "about"), Thread: str(rec, "thread")}
	case health.Supervised:
		return health.Supervised{Took: millis(rec, "took_ms"), Exit: str(rec, "exit"), Stderr: str(rec, "stderr"), Method: str(rec, "method"),
			Starts: int(integer(rec, "starts")), Supervisor: int(integer(rec, "supervisor_pid")), Child: int(integer(rec, "child_pid"))}
	}
	return nil
}

// typedKeys are the names of every family's typed fields, and of the log
// position any kind may carry.
func typedKeys() []string {
	return []string{"incident", "strategy", "took_ms", "client", "idle_seconds", "expires_in_seconds", "about", "thread",
		"source", "new_session", "exit", "stderr", "method", "starts", "supervisor_pid", "child_pid", "log_file", "log_fp", "log_offset"}
}

func putLog(rec map[string]any, pos health.LogPosition) {
	if pos != (health.LogPosition{}) {
		rec["log_file"], rec["log_fp"], rec["log_offset"] = pos.File, pos.Fingerprint, pos.Offset
	}
}

func getLog(rec map[string]any) health.LogPosition {
	return health.LogPosition{File: str(rec, "log_file"), Fingerprint: str(rec, "log_fp"), Offset: integer(rec, "log_offset")}
}

func wholeSeconds(rec map[string]any, key string) time.Duration {
	return time.Duration(integer(rec, key)) * time.Second
}

func millis(rec map[string]any, key string) time.Duration {
	return time.Duration(integer(rec, key)) * time.Millisecond
}

// contractKeys are the fields every line has.
func contractKeys() []string { return []string{"time", "kind", "server", "session", "detail"} }

// reserved reports whether key is a contract field or a typed field's
// name: no extra field may take it.
func reserved(key string) bool {
	if slices.Contains(contractKeys(), key) {
		return true
	}
	return slices.Contains(typedKeys(), key)
}

func str(rec map[string]any, key string) string {
	s, _ := rec[key].(string)
	return s
}

// integer reads a whole number the journal wrote (0 when absent or not a
// number).
func integer(rec map[string]any, key string) int64 {
	f, _ := rec[key].(float64)
	return int64(f)
}
