package soak

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/fsutil"
)

// runFaults applies the schedule, each fault in its own goroutine at its
// time (one at a time per target), and returns once all are done.
func (w *world) runFaults(plan []Fault, seed uint64) {
	var wg sync.WaitGroup
	for _, f := range plan {
		time.Sleep(time.Until(w.start.Add(f.At)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.apply(f, seed); err != nil {
				w.mu.Lock()
				w.faultErrs = append(w.faultErrs, fmt.Sprintf("%s %s at %s: %v", f.Kind, f.Server, f.At.Round(time.Millisecond), err))
				w.mu.Unlock()
			}
			w.mu.Lock()
			w.faults[f.Kind]++
			w.mu.Unlock()
		}()
	}
	wg.Wait()
}

func (w *world) apply(f Fault, seed uint64) error {
	switch f.Kind {
	case FaultServerKill:
		return w.killServer(f)
	case FaultLogRotate:
		return w.rotate(f)
	case FaultStoreRewrite:
		return w.rewriteStore(f)
	case FaultHostKill:
		w.killHost(f, seed)
	case FaultWatchdogKill:
		w.killWatchdog()
	case FaultProxyKill:
		return w.killProxy()
	case FaultClockJump:
		return w.jumpClock(f)
	case FaultJournalFail:
		return w.failJournal(f)
	}
	return nil
}

func (w *world) killServer(f Fault) error {
	mu := w.srvMu[f.Server]
	mu.Lock()
	defer mu.Unlock()
	s := w.servers[f.Server]
	s.kill()
	span := Span{From: time.Now()}
	up := w.startLate(f.Server, span.From) // a host starts while the server is down
	time.Sleep(f.Pause)
	if err := s.start(w.bins.demoserver); err != nil {
		up(time.Now())
		return err
	}
	span.To = time.Now()
	up(span.To)
	w.mu.Lock()
	w.serverDown[f.Server] = append(w.serverDown[f.Server], span)
	w.mu.Unlock()
	return nil
}

// rotate rotates a server's log the way logrotate and people do.
func (w *world) rotate(f Fault) error {
	mu := w.srvMu[f.Server]
	mu.Lock()
	defer mu.Unlock()
	path := w.servers[f.Server].log
	old := fmt.Sprintf("%s.%d", path, time.Now().UnixNano())
	switch f.Mode {
	case "rename_create":
		if err := os.Rename(path, old); err != nil {
			return err
		}
		return createEmpty(path)
	case "copytruncate":
		if err := copyFile(path, old); err != nil {
			return err
		}
		return os.Truncate(path, 0)
	case "truncate":
		return os.Truncate(path, 0)
	case "delete_recreate":
		if err := os.Remove(path); err != nil {
			return err
		}
		return createEmpty(path)
	}
	return fmt.Errorf("unknown rotation %q", f.Mode)
}

func createEmpty(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// rewriteStore rewrites a server's store with its own content, as a backup
// or sync tool might: atomically, or in place in two halves with a pause
// between them (a reader may see the file empty or cut in half). Never
// across a kill and restart of its server: the view it read would then
// replace the new server's empty store, sessions the kill took would look
// alive on the new server, and their end would be judged by idle time
// (soak run 30).
func (w *world) rewriteStore(f Fault) error {
	mu := w.srvMu[f.Server]
	mu.Lock()
	defer mu.Unlock()
	path := w.servers[f.Server].store
	if f.Mode == "atomic" {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		// Give up rather than put back an older view the server replaced.
		if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, b) {
			return nil
		}
		return fsutil.WriteAtomic(path, b, 0o600)
	}
	file, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer file.Close()
	b, err := io.ReadAll(file)
	if err != nil {
		return err
	}
	if err := file.Truncate(0); err != nil {
		return err
	}
	half := len(b) / 2
	if _, err := file.WriteAt(b[:half], 0); err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond)
	_, err = file.WriteAt(b[half:], int64(half))
	return err
}

func (w *world) killHost(f Fault, seed uint64) {
	w.hostMu.Lock()
	defer w.hostMu.Unlock()
	w.host.kill()
	w.mu.Lock()
	w.hostRuns[len(w.hostRuns)-1].To = time.Now()
	w.mu.Unlock()
	time.Sleep(f.Pause)
	w.startHost(seed + uint64(f.At))
}

// killWatchdog kills the daemon -9, preferably while an incident is open,
// checks the journal it left before its supervisor starts it again, and
// waits until the new one answers. The supervisor holds the proxies'
// sockets meanwhile: calls through them wait instead of failing.
func (w *world) killWatchdog() {
	w.wdMu.Lock()
	defer w.wdMu.Unlock()
	deadline := time.Now().Add(3 * time.Second)
	for !w.journal.openIncident() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	mid := w.journal.openIncident()
	var err error
	span := Span{From: w.wd.kill(func() { err = checkWhole(w.journal.path) })}
	if rerr := w.wd.waitReady(); rerr != nil {
		w.t.Error(rerr)
	}
	span.To = time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wdDown = append(w.wdDown, span)
	w.jChecks++
	if err != nil {
		w.jProblems = append(w.jProblems, err.Error())
	}
	if mid {
		w.midIncid++
	}
}

// killProxy kills the proxy process -9 and waits until it serves again
// (its supervisor held the proxies' sockets meanwhile).
func (w *world) killProxy() error {
	w.wdMu.Lock()
	defer w.wdMu.Unlock()
	span, err := w.wd.killProxy()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.proxyDown = append(w.proxyDown, span)
	return err
}

// jumpClock moves the daemon's wall clock ahead, then back.
func (w *world) jumpClock(f Fault) error {
	if err := fsutil.WriteAtomic(w.skewFile, []byte(f.Jump.String()), 0o600); err != nil {
		return err
	}
	time.Sleep(f.Pause)
	return fsutil.WriteAtomic(w.skewFile, []byte("0s"), 0o600)
}

// failJournal makes every journal write of the daemon fail for f.Pause
// (the daemon's debug fault file), then lets it write again: what it held
// must come out in order, followed by a warning.
func (w *world) failJournal(f Fault) error {
	w.jfMu.Lock()
	defer w.jfMu.Unlock()
	span := Span{From: time.Now()}
	if err := os.WriteFile(w.jFault, []byte("soak: journal writes fail\n"), 0o600); err != nil {
		return err
	}
	time.Sleep(f.Pause)
	err := os.Remove(w.jFault)
	span.To = time.Now()
	w.mu.Lock()
	w.jFaults = append(w.jFaults, span)
	w.mu.Unlock()
	return err
}
