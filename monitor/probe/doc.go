// Package probe classifies one MCP endpoint for `watchdog probe URL`: which
// protocol era it speaks, whether it keeps sessions, how it answers an
// unknown session, whether it answers the standalone GET stream with the
// 404 that makes naive clients reconnect in a loop, and whether it supports
// DELETE. It ends the session it opened (and checks that it did), and it
// never calls tools.
package probe
