package journal

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// codec spells one typed field of health.Event in the journal: the names
// it is written under (contract: event journal), and how it is written and
// read back. The names and value types are those the journal has always
// used, so lines of any version read back alike.
type codec struct {
	field health.Field
	keys  []string
	put   func(rec map[string]any, ev health.Event)
	get   func(rec map[string]any, r *Record)
}

// codecs lists every typed field. Numbers come back from JSON as float64.
func codecs() []codec {
	return []codec{
		{health.FieldIncident, []string{"incident"},
			func(rec map[string]any, ev health.Event) { rec["incident"] = ev.Incident },
			func(rec map[string]any, r *Record) { r.Incident = rec["incident"] == true }},
		{health.FieldStrategy, []string{"strategy"},
			func(rec map[string]any, ev health.Event) { rec["strategy"] = string(ev.Strategy) },
			func(rec map[string]any, r *Record) { r.Strategy = health.Strategy(str(rec, "strategy")) }},
		{health.FieldTook, []string{"took_ms"},
			func(rec map[string]any, ev health.Event) { rec["took_ms"] = ev.Took.Milliseconds() },
			func(rec map[string]any, r *Record) {
				r.Took = time.Duration(integer(rec, "took_ms")) * time.Millisecond
			}},
		{health.FieldClient, []string{"client"},
			func(rec map[string]any, ev health.Event) { rec["client"] = ev.Client },
			func(rec map[string]any, r *Record) { r.Client = str(rec, "client") }},
		{health.FieldIdle, []string{"idle_seconds"},
			func(rec map[string]any, ev health.Event) { rec["idle_seconds"] = int64(ev.Idle / time.Second) },
			func(rec map[string]any, r *Record) {
				r.Idle = time.Duration(integer(rec, "idle_seconds")) * time.Second
			}},
		{health.FieldExpiresIn, []string{"expires_in_seconds"},
			func(rec map[string]any, ev health.Event) {
				rec["expires_in_seconds"] = int64(ev.ExpiresIn / time.Second)
			},
			func(rec map[string]any, r *Record) {
				r.ExpiresIn = time.Duration(integer(rec, "expires_in_seconds")) * time.Second
			}},
		{health.FieldAbout, []string{"about"},
			func(rec map[string]any, ev health.Event) { rec["about"] = ev.About },
			func(rec map[string]any, r *Record) { r.About = str(rec, "about") }},
		{health.FieldLog, []string{"log_file", "log_fp", "log_offset"}, putLog, getLog},
		{health.FieldSource, []string{"source"},
			func(rec map[string]any, ev health.Event) { rec["source"] = string(ev.Source) },
			func(rec map[string]any, r *Record) { r.Source = health.IdentitySource(str(rec, "source")) }},
		// Masked like session: a record read back holds the masked id.
		{health.FieldNewSession, []string{"new_session"},
			func(rec map[string]any, ev health.Event) { rec["new_session"] = mask.ID(ev.NewSession) },
			func(rec map[string]any, r *Record) { r.NewSession = str(rec, "new_session") }},
	}
}

func putLog(rec map[string]any, ev health.Event) {
	rec["log_file"], rec["log_fp"], rec["log_offset"] = ev.Log.File, ev.Log.Fingerprint, ev.Log.Offset
}

func getLog(rec map[string]any, r *Record) {
	r.Log = health.LogPosition{File: str(rec, "log_file"), Fingerprint: str(rec, "log_fp"), Offset: integer(rec, "log_offset")}
}

// contractKeys are the fields every line has.
func contractKeys() []string { return []string{"time", "kind", "server", "session", "detail"} }

// reserved reports whether key is a contract field or a typed field's
// name: no extra field may take it.
func reserved(key string) bool {
	for _, k := range contractKeys() {
		if k == key {
			return true
		}
	}
	for _, c := range codecs() {
		for _, k := range c.keys {
			if k == key {
				return true
			}
		}
	}
	return false
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
