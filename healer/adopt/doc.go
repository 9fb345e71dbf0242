// Package adopt points a host at the watchdog's proxy and back: Adopt
// rewrites the URLs of the host's Streamable HTTP servers (and of its
// mcp-remote bridges) in the host's own config file to the proxy's, and
// adds a [[server]] with a proxy_listen for each to the watchdog's config;
// Release puts the original URL literals back.
//
// Only those URL strings change (internal/hostconfig proves each rewrite).
// Before anything is written the host's file is copied to the state
// directory, and what was changed is kept in its record (adopted.json,
// 0600: the proxy URLs hold the proxy's secret). Every file is replaced by
// a temp file and a rename, through a symbolic link to the file it names.
// Writes go config, record, host file: a failure part way leaves a proxy
// nobody uses, never a host pointed at a proxy that is not configured.
package adopt
