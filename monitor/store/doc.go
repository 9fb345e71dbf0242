// Package store reads and watches an MCP server's session store
// (mcp-sessions.json, as written by some Nowledge Mem builds).
//
// The file's format is not public, so Parse reads it tolerantly: a map keyed
// by session id, a list of session objects, or either under "sessions",
// "items" or "data"; ids, client names and times under their common
// spellings. Unknown fields are ignored.
//
// The Watcher follows the file through the ways writers save it (temp file +
// rename, in-place rewrite, delete and recreate) and reports only what it
// knows: a good Snapshot, Gone (the file is absent: state unknown), or Err
// (the file could not be read or parsed: the last good snapshot stays valid).
// A half-written file is never reported as a store with no sessions.
package store
