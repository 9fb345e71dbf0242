package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/fsutil"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/monitor/store"
)

func checkServer(ctx context.Context, rep *Report, cfg config.Config, s config.Server, stateDir string) {
	name := "server " + s.Name
	rep.Add(foundNote(globFinding(name+" logs", s.Logs, "set logs for "+s.Name+" so its idle timeout and store path are learned"), cfg))
	switch {
	case s.Store == "":
		rep.Add(Finding{Check: name + " store", OK: true, Detail: "not configured: learned from the server's log line when it announces it"})
	default:
		rep.Add(storeFinding(name+" store", s.Store))
	}
	rep.Add(Finding{Check: name + " idle timeout", OK: true, Detail: s.IdleTimeout.String() + " (until the server's log or behaviour says otherwise)"})
	rep.Add(livenessFinding(ctx, name, s))
	if s.ProxyListen != "" {
		rep.Add(proxyFinding(name+" proxy", s, stateDir))
	}
}

func globFinding(check string, globs []string, fix string) Finding {
	n := 0
	var special []string
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		for _, p := range m {
			// The daemon never opens a FIFO, device or socket as a log;
			// say so here too, where the user looks.
			if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
				special = append(special, p+" is a "+fsutil.TypeName(fi.Mode()))
				continue
			}
			n++
		}
	}
	if len(special) > 0 {
		return Finding{Check: check, Detail: fmt.Sprintf("%d file(s) match %v, and %s: not followed", n, globs, strings.Join(special, ", ")),
			Fix: "point the logs at regular files; a FIFO, device or socket is never read"}
	}
	if len(globs) == 0 {
		return Finding{Check: check, Detail: "no log files known", Fix: fix}
	}
	if n == 0 {
		return Finding{Check: check, Detail: fmt.Sprintf("no file matches %v", globs), Fix: fix}
	}
	return Finding{Check: check, OK: true, Detail: fmt.Sprintf("%d file(s) match %v", n, globs)}
}

func storeFinding(check, path string) Finding {
	res, err := store.Load(path)
	switch {
	case errors.Is(err, fsutil.ErrNotRegular):
		return Finding{Check: check, Detail: err.Error(), Fix: "point store at the regular file the server writes (mcp-sessions.json); the daemon warns and skips anything else"}
	case errors.Is(err, store.ErrTooLarge):
		return Finding{Check: check, Detail: err.Error(), Fix: "point the server's store at its mcp-sessions.json; the watchdog keeps its last good read meanwhile"}
	case errors.Is(err, store.ErrNotJSON), errors.Is(err, store.ErrUnknownShape):
		return Finding{Check: check, Detail: fmt.Sprintf("cannot be parsed: %v", err), Fix: "if the server writes another format, report it with a copy of the file (ids masked)"}
	case err != nil:
		return Finding{Check: check, Detail: err.Error(), Fix: "check the server's store path (mcp-sessions.json)"}
	case res.Truncated > 0:
		return Finding{Check: check, OK: true, Detail: fmt.Sprintf("%s: %d session(s) kept, %d more left out (over %d, the least recently active), %d entries skipped", path, len(res.Sessions), res.Truncated, store.MaxSessions, res.Skipped)}
	}
	return Finding{Check: check, OK: true, Detail: fmt.Sprintf("%s: %d session(s), %d entries skipped", path, len(res.Sessions), res.Skipped)}
}

func livenessFinding(ctx context.Context, name string, s config.Server) Finding {
	headers, err := s.ExpandedHeaders(os.Getenv)
	if err != nil {
		return Finding{Check: name, Detail: err.Error(), Fix: "export the variable or fix headers in the config"}
	}
	c, err := mcphttp.New(mcphttp.Options{URL: s.URL, Headers: headers, AllowInsecure: s.AllowInsecure, Timeout: 3 * time.Second})
	if err != nil {
		return Finding{Check: name, Detail: err.Error(), Fix: "fix the server's url or set allow_insecure"}
	}
	resp, err := c.Ping(ctx, "", "")
	cl := mcphttp.Judge(resp, err)
	switch cl.Verdict {
	case mcphttp.Down:
		return Finding{Check: name, Detail: fmt.Sprintf("%s does not answer: %s", mask.URL(s.URL), cl.Reason), Fix: "start the server, or fix its url"}
	case mcphttp.Auth:
		return Finding{Check: name, Detail: cl.Reason, Fix: "set the server's headers in the config"}
	}
	shown := mask.URL(s.URL) // a query token is not shown
	return Finding{Check: name, OK: true, Detail: fmt.Sprintf("%s answers (%s); `watchdog probe %s` tells more", shown, cl.Verdict, shown)}
}
