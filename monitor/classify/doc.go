// Package classify turns log lines into what they say about MCP sessions:
// a lost session, the GET-stream 404 hint, an idle-timeout announcement, a
// rejected legacy header or protocol version, a reconnect. It also scans
// whole files fast for `watchdog scan`.
//
// # The table
//
// Each row names a Kind, case-sensitive literals (any one must occur) and
// sometimes a further check. Rows are tried in order; the first wins.
//
//	row                              kind                    literals, check
//	sse_stream_404                   sse_stream_404          "Failed to open SSE stream" + 404 / "not found"
//	post_404                         session_lost            "Error POSTing to endpoint" + 404 / "not found", not -32601
//	rmcp_session_not_found           session_lost            "Session not found" + "Not Found: Session not found"
//	jsonrpc_32001_session_not_found  session_lost            "Session not found" + -32001
//	jsonrpc_32600_session_not_found  session_lost            "Session not found" + -32600
//	session_not_found                session_lost            "Session not found", "session not found"; not method-not-found
//	no_valid_session_id              session_lost            "No valid session ID provided"
//	session_terminated               session_lost            "Session terminated", "session terminated"
//	idle_timeout_configured          idle_timeout            "MCP session idle timeout"
//	legacy_session_header            legacy_header_rejected  "Mcp-Session-Id", "mcp-session-id", "MCP-Session-Id" + within 64
//	                                                         bytes: reject, not supported, unsupported, not allowed, not accepted
//	legacy_protocol_version          legacy_header_rejected  "Unsupported protocol version", "unsupported protocol version",
//	                                                         "not supported by this server" + the refused version is older
//	                                                         than 2026-07-28 (or only modern versions are supported)
//	reconnected                      reconnected             "reconnected", "Reconnected"; not after not / n't / never / be
//	mcp_server_connected             reconnected             "MCP server connected"
//	connection_reestablished         reconnected             "connection re-established", "Connection re-established"
//
// The GET stream's 404 comes first and is only a hint (SSEStream404): some
// servers answer GET with 404 while the session lives, so a loss must be
// confirmed with a POST. A modern server's -32601 "Method not found" is not
// a loss. Checks other than the literals fold ASCII case.
//
// # The prefilter and the scan
//
// Literals returns every literal of the table. A line holding none of them
// is never classified, so `grep -F -c -e L1 -e L2 ...` counts exactly the
// lines the scan classifies (FileSummary.Candidates). Scan reads 4 MiB at
// a time, finds the literals with a Wu–Manber search (see match.go), and
// only looks for line starts, ends and numbers around hits. Files of 64 MiB
// and more are cut at line starts into sections scanned in parallel.
//
// A line is judged by its first MaxLine bytes. Timestamps (ParseTime),
// session ids (SessionID, masked with MaskSession in every report) and the
// idle-timeout fields are read from the line with ANSI colour codes removed.
// A report's text also masks ids in shapes SessionID does not act on
// ("Session not found: X", "No valid session ID provided: X", "sid=X"),
// and escapes control and bidi characters (internal/textsafe).
package classify
