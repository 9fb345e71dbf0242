package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpwatchdog/watchdog/healer/restart"
	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/monitor/proc"
)

// hostLogFresh: a host log written this recently says the host runs, so
// a process watcher that finds none is looking for the wrong name.
const hostLogFresh = 10 * time.Minute

// checkHosts looks for each watched host's process and logs.
func checkHosts(ctx context.Context, rep *Report, cfg config.Config, stateDir string) {
	main := cfg.MainHost()
	for i, h := range cfg.Hosts {
		key := cfg.HostKey(i)
		logFile := restart.HostFileName("host", ".log", h.Name, h.Name == main.Name)
		if h.Process == "" && h.Port == 0 {
			rep.Add(Finding{Check: "host", Detail: h.DisplayName() + " not watched", Fix: "set " + key + ".process or " + key + ".port so sessions of a stopped host are not kept alive"})
		} else if host, ok, err := proc.Find(ctx, proc.Target{Name: h.Process, Port: h.Port, Helpers: h.Profile().Helpers}); err != nil {
			rep.Add(Finding{Check: "host", Detail: err.Error(), Fix: "check " + key + ".process and " + key + ".port"})
		} else if ok {
			rep.Add(Finding{Check: "host", OK: true, Detail: fmt.Sprintf("%s running, pid %d, since %s", h.Name, host.PID, host.Started.Format(time.RFC3339))})
		} else {
			rep.Add(hostNotFound(h, key, filepath.Join(stateDir, logFile), time.Now()))
		}
		logs := globFinding("host logs", h.Logs, h.DisplayName()+" may write no log file: when the watchdog restarts it, its output goes to STATE_DIR/"+logFile+"; or set "+key+".logs")
		rep.Add(foundNote(logs, cfg))
	}
}

// hostNotFound is the finding when no process matches the host: a note,
// or a problem when the host's log was written within hostLogFresh,
// since then the host runs and the watchdog cannot see it.
// key is the host's table in the config, hostLog the file its output goes
// to when the watchdog restarts it.
func hostNotFound(h config.Host, key, hostLog string, now time.Time) Finding {
	notRunning := Finding{Check: "host", Detail: fmt.Sprintf("%s is not running (no process matches %s)", h.Name, lookedFor(h))}
	path, written, ok := newestLog(h.Logs, hostLog)
	if !ok || now.Sub(written) > hostLogFresh {
		return notRunning
	}
	return Finding{Check: "host",
		Detail: fmt.Sprintf("no process matches %s, yet %s's log %s was written %s: it probably runs under another name",
			lookedFor(h), h.Name, path, ago(now.Sub(written))),
		Fix: fmt.Sprintf("set %s.process to %s's executable or script name as `ps -o args` shows it "+
			"(the first word's base name, or after node, python, bun or deno the script's, without .js/.py), "+
			"or %s.port to the port it listens on", key, h.Name, key),
	}
}

// lookedFor says what the process watcher looks for.
func lookedFor(h config.Host) string {
	switch {
	case h.Port == 0:
		return fmt.Sprintf("process %q", h.Process)
	case h.Process == "":
		return fmt.Sprintf("port %d", h.Port)
	}
	return fmt.Sprintf("process %q or port %d", h.Process, h.Port)
}

// newestLog is the most recently written of the files globs match and the
// file extra (which may not exist), with its time.
func newestLog(globs []string, extra string) (path string, written time.Time, ok bool) {
	files := []string{extra}
	for _, g := range globs {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if !ok || fi.ModTime().After(written) {
			path, written, ok = f, fi.ModTime(), true
		}
	}
	return path, written, ok
}

// ago says how long ago d was, to the second.
func ago(d time.Duration) string {
	if d < time.Second {
		return "less than a second ago"
	}
	return d.Round(time.Second).String() + " ago"
}

// foundNote is f as a note when the config is the machine as found: a log
// a found host or server does not write is no problem of the user's, who
// has no config to set it in.
func foundNote(f Finding, cfg config.Config) Finding {
	if cfg.Found != nil && !f.OK {
		f.Fix = ""
	}
	return f
}
