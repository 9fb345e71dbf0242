// Package notify turns journal events into desktop notifications: one per
// incident, not one per log line. The decisions (what to say, when to stay
// quiet, when to remind) are pure and clocked by Options.Now; sending runs
// on the Notifier's own goroutine with a timeout, because a broken
// notification daemon can hang the D-Bus call.
package notify
