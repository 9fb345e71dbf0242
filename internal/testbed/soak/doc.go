// Package soak is the chaos soak: three real stateful MCP servers (the Go
// SDK, the TypeScript SDK answering 404 -32001, and a TypeScript server with
// the 400 quirk) with idle timeouts of a few seconds, five client sessions
// (three of the host's, two of another client), a real watchdog daemon, and
// faults on a seeded schedule: servers killed -9 and restarted, logs
// rotated in every mode, stores rewritten atomically and in place in two
// halves, the host killed and restarted, the watchdog killed -9 and
// restarted mid-incident, and wall-clock jumps.
//
// Ground truth comes from the servers themselves (every session they start
// and end, with the reason) and from the faults the soak injected. The
// watchdog's journal and notifications are compared against it (see
// Evaluate): every expiry and loss detected within a second, no false
// alarm, one notification per incident, no kept-warm session expired, no
// dead host's session kept alive, every journal line parseable after every
// kill -9, and no full session id in anything the watchdog printed.
//
// `make soak-short` (part of the test command) runs it for a few minutes;
// `make soak` for 30. The figures go to docs/RELIABILITY.md.
package soak
