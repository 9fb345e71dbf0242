package stdio

import (
	"io"
	"os"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/proxywire"
)

// Options are what Run supervises and where it relays. Command is
// required; every other zero value has the meaning its field documents.
type Options struct {
	// Command is the server's argv, as the host would have run it.
	Command []string
	// Env is the server's environment; nil: this process's (the host's).
	Env []string
	// Dir is the server's working directory; "": this process's.
	Dir string
	// Server and Host name the server and its host in what is said
	// ("opencode: filesystem ..."); "": the command's base name, no host.
	Server, Host string
	// Stdin and Stdout are the host's side of the pipes; Stderr gets the
	// server's stderr, passed through, and the supervisor's own words.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Report, when set, is told each thing that happened (a start, an
	// exit, a restart, a failed call); it must not block.
	Report func(proxywire.Stdio)
	// Trim: let go of resident memory a relay does not use (memtrim): the
	// binary's pages package init mapped, 2 s after the start and each
	// minute after, and the heap a burst of messages grew. For a process
	// of its own (`watchdog stdio`), not a test's.
	Trim bool
	// StateDir, when set, is the daemon's state directory: Run listens
	// there for it (Link) and tells it what Report is told. A socket that
	// cannot be made is said on Stderr; the server runs all the same.
	StateDir string
	// Signals, when set, are signals the host sent the supervisor: each
	// is passed on to the server; an interrupt, terminate, hangup or quit
	// also means the host is ending it, so its exit is not healed.
	Signals <-chan os.Signal
	// RestartHung: a server that leaves a request and a ping unanswered
	// (Limits.HangAfter, then Limits.PingWait) is killed and started again;
	// false: it is only said.
	RestartHung bool
	// Limits; nil: DefaultLimits.
	Limits *Limits
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// Limits bound what the supervisor waits for and how often it restarts.
type Limits struct {
	// CrashLoop exits within CrashWindow stop the restarts; a request then
	// gets an error naming the server and its last stderr line, until the
	// window has passed since the last exit, when one more start is tried.
	CrashLoop   int
	CrashWindow time.Duration
	// Backoff is the wait before the second restart of a window, doubled
	// for each further one up to MaxBackoff; the first is at once.
	Backoff, MaxBackoff time.Duration
	// RestartWait is how long a request waits for a restart under way
	// before it gets an error.
	RestartWait time.Duration
	// StartWait is how long a new run has to answer the replayed
	// initialize (a server that npx fetches takes seconds); past it the
	// run is killed, and that counts as an exit.
	StartWait time.Duration
	// HangAfter: a request unanswered this long gets the server a ping;
	// PingWait unanswered, the server is said to hang.
	HangAfter, PingWait time.Duration
	// WriteWait is how long a message may wait for the server to read
	// it; a server that reads nothing for that long gets the message's
	// request an error, not a host blocked on it.
	WriteWait time.Duration
	// Grace is how long the server has to exit after its stdin is closed
	// (the host went), and again after SIGTERM, before SIGKILL.
	Grace time.Duration
	// Whole is the longest message handled whole; a longer one is relayed
	// in pieces as it arrives, in bounded memory.
	Whole int
}

// The defaults: systemd's StartLimitBurst is 5 in 10 s; a server started
// by npx takes seconds to come up, so its window is longer.
const (
	DefaultCrashLoop   = 5
	DefaultCrashWindow = 60 * time.Second
	DefaultBackoff     = 250 * time.Millisecond
	DefaultMaxBackoff  = 4 * time.Second
	DefaultRestartWait = 30 * time.Second
	DefaultStartWait   = 60 * time.Second
	DefaultHangAfter   = 30 * time.Second
	DefaultPingWait    = 5 * time.Second
	DefaultWriteWait   = 30 * time.Second
	DefaultGrace       = 2 * time.Second
	DefaultWhole       = 1 << 20
)

// DefaultLimits are the limits Run uses when Options.Limits is nil.
func DefaultLimits() Limits {
	return Limits{CrashLoop: DefaultCrashLoop, CrashWindow: DefaultCrashWindow, Backoff: DefaultBackoff,
		MaxBackoff: DefaultMaxBackoff, RestartWait: DefaultRestartWait, StartWait: DefaultStartWait, HangAfter: DefaultHangAfter,
		PingWait: DefaultPingWait, WriteWait: DefaultWriteWait, Grace: DefaultGrace, Whole: DefaultWhole}
}

// filled is l with each zero field set to its default.
func (l Limits) filled() Limits {
	d := DefaultLimits()
	pick := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	if l.CrashLoop <= 0 {
		l.CrashLoop = d.CrashLoop
	}
	if l.Whole <= 0 {
		l.Whole = d.Whole
	}
	pick(&l.CrashWindow, d.CrashWindow)
	pick(&l.Backoff, d.Backoff)
	pick(&l.MaxBackoff, d.MaxBackoff)
	pick(&l.RestartWait, d.RestartWait)
	pick(&l.StartWait, d.StartWait)
	pick(&l.HangAfter, d.HangAfter)
	pick(&l.PingWait, d.PingWait)
	pick(&l.WriteWait, d.WriteWait)
	pick(&l.Grace, d.Grace)
	return l
}
