// Package clientpatch fixes, checks and reverts the installed
// @deepseek-ai/dsh-mcp-client's session-loss bug: the client reconnects only
// on onclose, and a lost session (HTTP 404 on a POST) never closes the
// transport, so every tool of that server fails until DSH restarts.
//
// The payload, its anchors and the known builds are written for that
// client; what it is called, where it is installed and which folders under
// the home directory the fix uses come from the host's profile (package
// internal/host), passed in the options (Host; zero is host.DSH()).
//
// The patch inserts five marked blocks (payload/*.js) at five anchors of
// lib/index.js and changes nothing else, so removing the blocks gives back
// the original byte for byte. Patch v2 added the "retry" block: a tool call
// that meets a lost session (a POST answered 404, or the 400 quirk: the
// server refused it before any tool ran) is sent once more on the
// supervisor's new session; nothing else is ever retried. A v1 file (its
// payloads are kept in payload/v1) reads as applied without the retry, and
// Install upgrades it. Writes are all-or-nothing:
// the new file is built in memory, written to a temp file in the module's
// own directory (so Node reads it as ESM under the package's "type":
// "module"), fsynced, checked with `node --check`, then renamed over the
// original; the original is backed up first (the profile's
// Client.BackupDir: ~/.dsh/backups/… for DSH).
package clientpatch
