// Package healer acts on the health model's state: keep-warm pings, the
// patched client's recovery trigger and host restarts. Not built yet.
package healer
