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
// named and left alone. What cannot go through the proxy (stdio, legacy
// SSE, a URL that is not http(s), a server that signs in with OAuth, whose
// tokens are bound to its own URL) is said and left alone. A proxy URL is
// never taken for a server's own: one adopt wrote is recognised from its
// record and repaired (an old secret, a proxy gone from the config).
//
// The record (adopted.json, 0600) is the truth of what adopt changed; it
// and the watchdog's config agree after every adopt and release, whatever
// failed. A backup of each host file goes to the state directory before
// its first change, and again only when it changed since: the last five
// are kept per file.
package adopt
