// Package metrics exposes the watchdog's Prometheus metrics.
//
// The daemon feeds every journal event to Count, so the journal and the
// metrics come from one source of truth; gauges for session idleness and
// server state are set directly. Each Metrics has its own registry (no
// global default registry) and is served by Serve on a loopback address
// only.
//
// Labels are server, client, strategy, result and state, never a session
// id, and their values are bounded: names outside the configured sets (or,
// with no configuration, past a small cap or looking like an id) become
// "other".
package metrics
