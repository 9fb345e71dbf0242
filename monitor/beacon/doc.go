// Package beacon reads the beacons a patched MCP client writes: one file per
// client process, <pid>.json, naming per server the session the client holds
// and its state. It is the client's own word, so the watchdog need not guess
// which session is the host's.
//
// A beacon counts only while the process that wrote it lives: Watch reports
// live clients only and removes the beacons of dead ones. The directory and
// the files are checked to be this user's and private before a byte is
// believed. Session ids are credentials: they stay in memory, and every log
// line and error masks them. Like every monitor, it reports and decides
// nothing.
package beacon
