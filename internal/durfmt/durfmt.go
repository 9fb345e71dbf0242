// Package durfmt says how long something took in as few characters as stay
// honest: milliseconds under a second, tenths under a minute, seconds
// under an hour, minutes beyond. Bubbles and the timeline page share it, so
// one incident reads the same in both.
package durfmt

import "time"

// Short is d rounded to its scale: "37ms", "1.2s", "4m12s", "12h0m".
func Short(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	s := d.Round(time.Minute).String()
	return s[:len(s)-2] // "12h0m0s" → "12h0m"
}
