// Package statusview writes the running daemon's status document
// (health.Status, what `watchdog status --json` prints) for a person:
// the hosts watched and found, each server with its proxy and sessions.
// It does no I/O but the writing.
package statusview

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// Write prints the status for people. Every string in it may come
// from outside (a client picks its own name; ids come from stores), so
// each is escaped (textsafe.Escape): no escape sequence, newline or bidi
// control reaches the terminal. --json prints the document as the daemon
// sent it: JSON escapes control characters itself.
func Write(w io.Writer, st health.Status) {
	esc := textsafe.Escape
	fmt.Fprintf(w, "host %s: %s\n", esc(st.Host.Name), runningLabel(st.Host.Running, st.Host.PID))
	for _, h := range st.Hosts {
		if h.Watched && h.Name != st.Host.Name {
			fmt.Fprintf(w, "host %s: %s\n", esc(h.Name), runningLabel(h.Running, h.PID))
		}
	}
	writeHostsFound(w, st.Hosts)
	for _, s := range st.Servers {
		if s.Stdio != nil {
			writeStdio(w, s)
			continue
		}
		fmt.Fprintf(w, "server %s (%s): %s, %s%s, idle timeout %s, host session %s\n", esc(s.Name), esc(s.URL), esc(string(s.State)),
			esc(string(s.Mode)), eraLabel(s.Era), time.Duration(s.IdleTimeoutSeconds)*time.Second, sourceLabel(s.Source))
		writeProxyLine(w, s)
		if s.ProxyBridges {
			fmt.Fprintln(w, "  proxy: bridges the eras: the server speaks only 2026-07-28, the proxy serves its legacy hosts over it")
		}
		for _, ps := range s.ProxySessions {
			up := "none open (the next call opens one)"
			switch {
			case ps.Bridged:
				up = "bridged (the server keeps no session)"
			case ps.Upstream != "":
				up = "server session " + esc(ps.Upstream)
			}
			stream := ""
			if ps.Streaming {
				stream = ", event stream open"
			}
			fmt.Fprintf(w, "  > %-12s %-20s idle %s, %s%s\n", esc(ps.ID), trunc(esc(ps.Client), 20),
				time.Duration(ps.IdleSeconds)*time.Second, up, stream)
		}
		for _, sess := range s.Sessions {
			mark := " "
			if sess.Current {
				mark = "*"
			}
			whose := ""
			if sess.Host != "" {
				whose = ", " + esc(sess.Host) + "'s"
			}
			fmt.Fprintf(w, "  %s %-12s %-20s %-8s idle %s, expires in %s%s\n", mark, esc(sess.ID), trunc(esc(sess.Client), 20),
				esc(string(sess.State)), time.Duration(sess.IdleSeconds)*time.Second, time.Duration(sess.ExpiresInSeconds)*time.Second, whose)
		}
		if s.SessionsOmitted > 0 {
			fmt.Fprintf(w, "    … and %d more session(s) not listed (at most %d are; the current and troubled ones first)\n",
				s.SessionsOmitted, health.MaxStatusSessions)
		}
	}
}

// eraLabel is ", <era>" when the server's protocol era is known.
func eraLabel(era string) string {
	if era == "" {
		return ""
	}
	return ", " + textsafe.Escape(era)
}

// trunc keeps the first n characters of s, marking a cut with "…".
func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// sourceLabel says where the judgement of the host's session comes from.
func sourceLabel(src health.IdentitySource) string {
	switch src {
	case health.SourceBeacon:
		return "from the client's beacon"
	case health.SourceProxy:
		return "seen by the watchdog's proxy"
	}
	return "inferred from the store"
}

// runningLabel says whether a watched host's process runs.
func runningLabel(running bool, pid int32) string {
	if running {
		return fmt.Sprintf("running (pid %d)", pid)
	}
	return "not running"
}

// writeHostsFound prints each host found on this machine, its servers'
// protection, and what protects the exposed ones.
func writeHostsFound(w io.Writer, found []health.HostSummary) {
	esc := textsafe.Escape
	for _, h := range found {
		if len(h.Servers) == 0 && h.Watched {
			continue // watched, with no config file found: its host line says it all
		}
		var parts []string
		for _, s := range h.Servers {
			parts = append(parts, esc(s.Name)+" "+esc(s.Protection))
		}
		fmt.Fprintf(w, "found %s: %s\n", esc(h.Name), strings.Join(parts, ", "))
		for _, s := range h.Servers {
			if s.Fix != "" {
				fmt.Fprintf(w, "  protect %s: %s\n", esc(s.Name), esc(s.Fix))
			}
		}
	}
}

// writeProxyLine says where the proxy is served, or that it is not and
// why: a host pointed at a proxy that is not served has every call fail.
func writeProxyLine(w io.Writer, s health.ServerStatus) {
	esc := textsafe.Escape
	switch {
	case s.ProxyURL == "":
	case s.ProxyListen != "" && !s.ProxyServed:
		fmt.Fprintf(w, "  proxy NOT SERVED on %s: %s; every call of a host pointed at %s fails meanwhile\n",
			esc(s.ProxyListen), esc(s.ProxyProblem), esc(s.ProxyURL))
	case s.ProxySocket != "":
		fmt.Fprintf(w, "  proxy: give the host %s in place of the server's url (its socket held by %s: calls wait while the daemon restarts)\n",
			esc(s.ProxyURL), esc(s.ProxySocket))
	default:
		fmt.Fprintf(w, "  proxy: give the host %s in place of the server's url\n", esc(s.ProxyURL))
	}
}

// writeStdio prints a stdio server a supervisor (watchdog stdio) runs for
// a host: its state, process, starts, deaths and the calls they cut off,
// and how it last ended.
func writeStdio(w io.Writer, s health.ServerStatus) {
	esc, st := textsafe.Escape, s.Stdio
	host := ""
	if st.Host != "" {
		host = " (" + esc(st.Host) + ")"
	}
	pid := "no process"
	switch {
	case len(st.PIDs) > 1:
		pid = fmt.Sprintf("%d supervisors, pids %s", st.Supervisors, strings.Trim(fmt.Sprint(st.PIDs), "[]"))
	case st.PID != 0:
		pid = fmt.Sprintf("pid %d", st.PID)
	}
	fmt.Fprintf(w, "stdio server %s%s: %s, %s, %s, %s, %s, %s\n", esc(s.Name), host, esc(stdioState(s.State)), pid,
		count(st.Starts, "start"), count(st.Exits, "exit"), count(st.Restarts, "restart"), count(st.FailedCalls, "failed call"))
	if st.LastExit != "" || st.LastStderr != "" {
		last := "  last exit"
		if st.LastExitTime != "" {
			last += " " + esc(st.LastExitTime)
		}
		if st.LastExit != "" {
			last += ": " + esc(st.LastExit)
		}
		if st.LastStderr != "" {
			last += "; last on stderr: " + esc(st.LastStderr)
		}
		fmt.Fprintln(w, last)
	}
}

// stdioState says a stdio server's state in its own words.
func stdioState(st health.State) string {
	switch st {
	case health.Healing:
		return "restarting"
	case health.Lost:
		return "gave up (kept crashing; not restarted)"
	case health.Down:
		return "hung (not answering)"
	case health.Unknown:
		return "not running (no supervisor)"
	}
	return string(st)
}

// count is "1 exit", "2 exits".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
