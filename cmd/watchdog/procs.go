package main

import "runtime"

// oneProc runs the daemon's (or a stdio relay's) goroutines on one processor, unless the user
// set GOMAXPROCS. Its work is I/O: a proxied call hands off between
// four goroutines (the host's connection, the transport's writer and
// reader, the handler), and with a second processor idle each handoff
// woke a thread that spun and slept again: 40% of the proxy's CPU per
// call at one session (make bench-proxy: 77 → 40 µs a call, and 47 → 25 at
// eight). One core is more than the proxy needs (40,000 calls/s).
func oneProc(getenv func(string) string) {
	if getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
