package store

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// Magnitude limits that tell the unit of a Unix timestamp. Seconds below 1e11
// reach the year 5138; milliseconds above 1e11 start in 1973, and so on.
const (
	maxUnixSeconds = 1e11
	maxUnixMillis  = 1e14
	maxUnixMicros  = 1e17
	// year10000 in Unix seconds: later times are not believed.
	year10000 = 253402300800
)

// timeLayouts: RFC 3339 (fraction optional), then common near-misses.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999", // no zone: taken as UTC
	"2006-01-02 15:04:05.999999999",
}

// firstTime reads the first of keys that holds a time it understands.
func firstTime(obj map[string]any, keys []string) time.Time {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			if t, ok := parseTime(v); ok {
				return t
			}
		}
	}
	return time.Time{}
}

// parseTime reads RFC 3339 text or a Unix timestamp in seconds, milliseconds,
// microseconds or nanoseconds (a number or numeric text). Zero and negative
// timestamps mean unknown ("never").
func parseTime(v any) (time.Time, bool) {
	switch t := v.(type) {
	case json.Number:
		return unixTime(string(t))
	case string:
		s := strings.ToUpper(strings.TrimSpace(t)) // RFC 3339 allows "t" and "z"
		if s == "" {
			return time.Time{}, false
		}
		if tm, ok := unixTime(s); ok {
			return tm, true
		}
		for _, layout := range timeLayouts {
			if tm, err := time.Parse(layout, s); err == nil {
				return tm.UTC(), true
			}
		}
	}
	return time.Time{}, false
}

func unixTime(s string) (time.Time, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return unixInt(n)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}, false
	}
	return unixFloat(f)
}

func unixInt(n int64) (time.Time, bool) {
	switch {
	case n <= 0:
		return time.Time{}, false
	case n < maxUnixSeconds:
		return time.Unix(n, 0).UTC(), true
	case n < maxUnixMillis:
		return time.UnixMilli(n).UTC(), true
	case n < maxUnixMicros:
		return time.UnixMicro(n).UTC(), true
	default:
		return time.Unix(0, n).UTC(), true
	}
}

func unixFloat(f float64) (time.Time, bool) {
	if f <= 0 {
		return time.Time{}, false
	}
	secs := f
	switch {
	case f < maxUnixSeconds:
	case f < maxUnixMillis:
		secs = f / 1e3
	case f < maxUnixMicros:
		secs = f / 1e6
	default:
		secs = f / 1e9
	}
	if secs >= year10000 {
		return time.Time{}, false
	}
	// float64 holds a current Unix time to about 0.2 µs: keep microseconds.
	whole := math.Floor(secs)
	micros := math.Round((secs - whole) * 1e6)
	return time.Unix(int64(whole), int64(micros)*1e3).UTC(), true
}
