// Package soak is the chaos soak: three real stateful MCP servers (the Go
// SDK, the TypeScript SDK answering 404 -32001, and a TypeScript server with
// the 400 quirk) with idle timeouts of a few seconds, eleven client sessions
// (three of the host's, two of another client, three of an unpatched client
// and three of the Python SDK client through the proxy), a real watchdog daemon, and
// faults on a seeded schedule: servers killed -9 and restarted, logs
// rotated in every mode, stores rewritten atomically and in place in two
// halves, the host killed and restarted, the watchdog killed -9 and
// restarted mid-incident under a supervisor that holds its control socket
// and starts it again at once, while the proxies run in their own process
// (`watchdog proxy`) under another that holds their sockets
// (internal/testbed/sockhold, as systemd does with the units `watchdog
// autostart enable` writes), now and then that proxy process killed -9
// too, wall-clock jumps, and journal writes that fail for a few
// seconds. The host writes a beacon like the patched client
// (the session it holds per server); the other client writes none. A third,
// unpatched client (it never re-initializes) calls every server through
// the watchdog's proxy: each server has a second config entry with the
// same URL and a proxy_listen. The Python SDK client (testdata/pypeers/
// soak_client.py, `mcp` 2.x) calls the same proxies under the same name;
// its calls are judged the same way. At every kill of a server, a host (the
// Go SDK's client, unpatched) starts through that server's proxy while the
// server is down and makes its calls at once (late.go): its start is
// answered from the last-known server or held until the server answers,
// its calls wait for the server, and every one must work, once.
//
// Ground truth comes from the servers themselves (every session they start
// and end, with the reason) and from the faults the soak injected. The
// watchdog's journal and notifications are compared against it (see
// Evaluate): every expiry and loss detected within a second, no false
// alarm, no kill called an idle expiry, every recovered genuine (the host's
// new session exists on the server and is not the lost one), per incident
// its loss and outcome told once each plus reminders, at risk at most once
// per session and healing failed at most once per incident, nothing lost
// across a journal write failure and a warning after it, no kept-warm
// session expired, no dead host's session kept alive, every journal line
// parseable after every kill -9, and no full session id in anything the
// watchdog printed. Through the proxy: no call failed while its server was
// up, the daemon's kills and restarts included (the proxy process outlives
// the daemon; only a call in flight at a kill -9 of the proxy process
// itself may fail, and is counted as cut by it), none ran twice and every
// success ran on its server
// (the servers print each tool execution with its unique argument), and
// no upstream session the proxy kept warm expired. It also counts where the daemon took the host's
// sessions from: the beacon, or inferred.
//
// `make soak-short` (part of the test command) runs it for a few minutes;
// `make soak` for 30. The figures go to docs/RELIABILITY.md.
package soak
