package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// idleFigures is one idle measurement: CPU as a share of one core, resident
// memory at the end, and wakeups: the context switches of all the
// process's threads, per minute.
type idleFigures struct {
	cpuPct         float64
	rssKB          int64
	anonKB, fileKB int64 // rssKB by kind (RssAnon, RssFile)
	wakeupsPerMin  float64
	majorFaults    int64   // pages read back from disk during the window (majorFaults)
	stealPct       float64 // the machine's CPU time its host took for others (stolenCPU), share of all its CPUs
	// childPct is the CPU of the processes the daemon started and waited
	// for during the window, as a share of one core (10 ms ticks).
	childPct float64
}

// idleGoal is the goal of an idle row, where the issue set one.
type idleGoal struct {
	cpuPct float64
	rssMB  int64
}

var idleGoals = map[[2]int]idleGoal{
	{20, 2}:   {cpuPct: 0.05, rssMB: 16},
	{200, 50}: {cpuPct: 0.1, rssMB: 24},
}

// idle: the daemon follows files and watches stores that do not change;
// its servers do not answer (nothing listens on their ports), as servers
// that have been down for hours would not.
func (b *bench) idle(ctx context.Context, files, servers int, window time.Duration) error {
	f, err := b.measureIdle(ctx, files, servers, window)
	if err != nil {
		return err
	}
	g, ok := idleGoals[[2]int{files, servers}]
	goal, met := "none set", "—"
	if ok {
		goal = fmt.Sprintf("CPU ≤ %.2f%%, RSS ≤ %d MB", g.cpuPct, g.rssMB)
		met = verdict(f.cpuPct <= g.cpuPct && f.rssKB <= g.rssMB<<10)
	}
	fmt.Printf("| headless idle %s (after %s running), %d files, %d servers | CPU %.3f%%, RSS %.1f MB (anon %.1f, file %.1f), %.0f wakeups/min, %d pages read back, machine's CPU stolen %.1f%% | %s | %s |\n",
		window, b.settle, files, servers, f.cpuPct, mb(f.rssKB), mb(f.anonKB), mb(f.fileKB), f.wakeupsPerMin, f.majorFaults, f.stealPct, goal, met)
	return nil
}

// growth measures idle at every pair of server and file counts and prints
// a table of its own: CPU, RSS and wakeups per pair, and whether the cost
// of the largest grows no faster than the counts do (linear).
func (b *bench) growth(ctx context.Context, window time.Duration) error {
	serverCounts, fileCounts := []int{2, 10, 50, 200}, []int{20, 200, 2000}
	fmt.Println("| files \\ servers | " + joinInts(serverCounts, " | ") + " |")
	fmt.Println("|---" + strings.Repeat("|---", len(serverCounts)) + "|")
	var base, top idleFigures
	for _, files := range fileCounts {
		row := fmt.Sprintf("| %d |", files)
		for _, servers := range serverCounts {
			f, err := b.measureIdle(ctx, files, servers, window)
			if err != nil {
				return err
			}
			row += fmt.Sprintf(" %.3f%%, %.1f MB, %.0f/min |", f.cpuPct, mb(f.rssKB), f.wakeupsPerMin)
			switch {
			case files == fileCounts[0] && servers == serverCounts[0]:
				base = f
			case files == fileCounts[len(fileCounts)-1] && servers == serverCounts[len(serverCounts)-1]:
				top = f
			}
		}
		fmt.Println(row)
	}
	// Linear: the largest costs no more per unit of size than the smallest.
	scale := float64(fileCounts[len(fileCounts)-1]+serverCounts[len(serverCounts)-1]) / float64(fileCounts[0]+serverCounts[0])
	linear := top.cpuPct <= base.cpuPct*scale && float64(top.rssKB) <= float64(base.rssKB)*scale
	fmt.Printf("\nGrowth from %d files + %d servers to %d + %d (%.0f× the size): CPU %.1f×, RSS %.1f×, wakeups %.1f×; no worse than linear: %s\n",
		fileCounts[0], serverCounts[0], fileCounts[len(fileCounts)-1], serverCounts[len(serverCounts)-1], scale,
		top.cpuPct/max(base.cpuPct, 1e-9), float64(top.rssKB)/float64(max(base.rssKB, 1)), top.wakeupsPerMin/max(base.wakeupsPerMin, 1e-9), verdict(linear))
	return nil
}

func mb(kb int64) float64 { return float64(kb) / 1024 }

func joinInts(ns []int, sep string) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, sep)
}

// measureIdle starts the daemon on files logs and servers stores, lets it
// settle, and measures it over window.
func (b *bench) measureIdle(ctx context.Context, files, servers int, window time.Duration) (idleFigures, error) {
	dir, err := os.MkdirTemp(b.dir, "idle")
	if err != nil {
		return idleFigures{}, err
	}
	defer os.RemoveAll(dir)
	cfg, err := idleConfig(dir, files, servers)
	if err != nil {
		return idleFigures{}, err
	}
	d, err := b.start(ctx, cfg)
	if err != nil {
		return idleFigures{}, err
	}
	defer d.stop()
	time.Sleep(b.settle) // start-up work is not idle
	pid := d.cmd.Process.Pid
	s0, err := sampleIdle(pid)
	if err != nil {
		return idleFigures{}, err
	}
	select {
	case <-time.After(window):
	case <-ctx.Done():
		return idleFigures{}, ctx.Err()
	}
	s1, err := sampleIdle(pid)
	if err != nil {
		return idleFigures{}, err
	}
	_, rss, err := procStats(pid)
	if err != nil {
		return idleFigures{}, err
	}
	anon, file, err := rssSplit(pid)
	if err != nil {
		return idleFigures{}, err
	}
	el := s1.at.Sub(s0.at)
	return idleFigures{cpuPct: 100 * (s1.cpu - s0.cpu).Seconds() / el.Seconds(), rssKB: rss, anonKB: anon, fileKB: file,
		wakeupsPerMin: float64(s1.switches-s0.switches) / el.Minutes(), majorFaults: s1.majorFaults - s0.majorFaults,
		childPct: 100 * (s1.children - s0.children).Seconds() / el.Seconds(),
		stealPct: 100 * (s1.stolen - s0.stolen).Seconds() / el.Seconds() / float64(runtime.NumCPU())}, nil
}

// idleSample is a daemon's counters at one moment of an idle window.
type idleSample struct {
	at          time.Time
	cpu         time.Duration // its threads' (cpuTime)
	switches    int64         // contextSwitches
	children    time.Duration // childrenCPU
	majorFaults int64
	stolen      time.Duration // stolenCPU, the machine's
}

func sampleIdle(pid int) (s idleSample, err error) {
	s.at = time.Now()
	if s.cpu, err = cpuTime(pid); err != nil {
		return s, err
	}
	if s.switches, err = contextSwitches(pid); err != nil {
		return s, err
	}
	if s.children, err = childrenCPU(pid); err != nil {
		return s, err
	}
	if s.majorFaults, err = majorFaults(pid); err != nil {
		return s, err
	}
	s.stolen, err = stolenCPU()
	return s, err
}

// idleConfig writes files logs and servers empty stores under dir, and
// returns the config: files spread over the servers, each server at a port
// nothing listens on.
func idleConfig(dir string, files, servers int) (string, error) {
	cfg := hostTable
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o700); err != nil {
		return "", err
	}
	for s := range servers {
		var logs []string
		for f := s; f < files; f += servers {
			p := filepath.Join(dir, "logs", fmt.Sprintf("s%d-f%d.log", s, f))
			if _, err := appendLine(p, "INFO started"); err != nil {
				return "", err
			}
			// One glob a server, as configs name logs: 2,000 paths
			// spelled out pass the config file's 64 KiB limit.
			logs = []string{filepath.Join(dir, "logs", fmt.Sprintf("s%d-f*.log", s))}
		}
		store := filepath.Join(dir, fmt.Sprintf("store%d", s), "mcp-sessions.json")
		if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
			return "", err
		}
		if err := writeStore(store, ""); err != nil {
			return "", err
		}
		cfg += serverTable(fmt.Sprintf("s%d", s), fmt.Sprintf("http://127.0.0.1:%d/mcp", 20000+s), logs, store)
	}
	return cfg, nil
}

// cpuTime is the CPU time of all pid's threads, from schedstat
// (nanoseconds; /proc/PID/stat counts in 10 ms ticks, too coarse for an
// idle process over a minute).
func cpuTime(pid int) (time.Duration, error) {
	ns, err := sumThreads(pid, "schedstat", func(b []byte) int64 {
		if f := strings.Fields(string(b)); len(f) > 0 {
			v, _ := strconv.ParseInt(f[0], 10, 64)
			return v
		}
		return 0
	})
	return time.Duration(ns), err
}

// contextSwitches sums the voluntary and involuntary context switches of
// every thread of pid: each is a wakeup of that thread.
func contextSwitches(pid int) (int64, error) {
	return sumThreads(pid, "status", func(b []byte) int64 {
		return statusField(b, "voluntary_ctxt_switches:") + statusField(b, "nonvoluntary_ctxt_switches:")
	})
}

// sumThreads adds up what read finds in /proc/PID/task/*/<file>; a thread
// that ended meanwhile counts nothing.
func sumThreads(pid int, file string, read func([]byte) int64) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/%s", pid, file))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("threads of %d: %v", pid, err)
	}
	var n int64
	for _, t := range tasks {
		if b, err := os.ReadFile(t); err == nil {
			n += read(b)
		}
	}
	return n, nil
}
