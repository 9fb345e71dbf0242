// Package notify turns journal events into desktop notifications: one per
// incident, not one per log line; at risk once per session; a heal failure
// once per incident; and when many servers lose their sessions at once, a
// few bubbles and one summary, not a storm. The decisions (what to say,
// when to stay quiet, when to remind, what to fold) are pure and clocked
// by Options.Now; sending runs on the Notifier's own goroutine with a
// timeout, because a broken notification daemon can hang the D-Bus call.
package notify
