// Package adopt points a host at the watchdog's proxy and back. It edits
// files that are not the watchdog's: the host's own config file, which the
// host may rewrite while it runs, and which holds the user's sign-ins and
// edits. So every adopt and release is one transaction:
//
//   - one lock (STATE_DIR/adopt.lock) for every adopt and release;
//   - every file read into a snapshot, the whole change planned from those
//     snapshots, and every file checked writable before anything is written;
//   - the writes in an order where a failure part way can be undone
//     (adopt: the watchdog's config, the running daemon serving the new
//     proxies, the record, the host's files; release the other way round);
//   - each file replaced by compare and swap (internal/casfile): a change
//     another program made since the snapshot is never written over; the
//     transaction is undone and planned again on the new content;
//   - any failure undoes the steps done, newest first, and says so.
//
// Only the URL strings of the servers change (internal/host/hostfile proves
// each rewrite); release puts back the original bytes, and only where the
// value still holds a URL adopt wrote: a value the user changed since is
// named and left alone. What cannot go through the proxy (legacy SSE, a
// URL that is not http(s), a server that signs in with OAuth, whose tokens
// are bound to its own URL) is said and left alone.
//
// A stdio server is adopted in the same transaction by its command alone:
// a wrapper script (STATE_DIR/wrappers/, 0700, wrap.go) that runs it under
// `watchdog stdio`, which starts it again when it dies, and runs it
// straight when that watchdog binary is gone; the entry's command names
// the wrapper, its arguments and environment stay. The wrapper is written
// before the host's file and undone with it; release puts the command's
// bytes back and removes the wrapper once nothing refers to it. An entry
// naming a wrapper is recognised and mended (a wrapper gone, or naming a
// watchdog that is), never wrapped twice; one that runs `watchdog stdio`
// itself is left alone. A proxy URL is
// never taken for a server's own: one adopt wrote is recognised from its
// record and repaired (an old secret, a proxy gone from the config).
//
// The record (adopted.json, 0600) is the truth of what adopt changed; it
// and the watchdog's config agree after every adopt and release, whatever
// failed. A backup of each host file goes to the state directory before
// its first change, and again only when it changed since: the last five
// are kept per file.
package adopt
