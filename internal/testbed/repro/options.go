package repro

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
)

// ServerKind selects the MCP server that loses the session.
type ServerKind string

const (
	// GoSDK is the Go SDK's StreamableHTTPHandler (internal/demoserver): an
	// idle session is closed by its SessionTimeout; an unknown id gets 404
	// "session not found".
	GoSDK ServerKind = "go-sdk"
	// TSSDK is the TypeScript SDK's stateful StreamableHTTPServerTransport
	// (testdata/tsservers/server.mjs): an unknown id gets 404 -32001
	// "Session not found".
	TSSDK ServerKind = "ts-sdk"
)

// ClientKind selects the dsh-mcp-client lib/index.js the host loads.
type ClientKind string

const (
	// StandIn is testdata/dshclient/lib/index.js, whose connection
	// supervisor is copied line for line from the real client.
	StandIn ClientKind = "stand-in"
	// Real is the npm package @deepseek-ai/dsh-mcp-client@0.1.0-rc.8 in
	// testdata/dshclient/real (fetched by scripts/deps-dshclient.sh), its
	// DSH-internal imports stubbed (testdata/dshclient/stubs).
	Real ClientKind = "real"
)

// LossMode is how the server loses the session.
type LossMode string

const (
	// LossIdle lets the server's idle timeout close the session.
	LossIdle LossMode = "idle"
	// LossForget closes every session at once, as a server restart would.
	LossForget LossMode = "forget"
)

// Verdict is the outcome of one run.
type Verdict string

const (
	// Stuck: no call succeeded within Options.RecoverWithin after the loss
	// was met (the unpatched client's bug).
	Stuck Verdict = "STUCK"
	// Recovered: a call succeeded on a new session.
	Recovered Verdict = "RECOVERED"
)

// Defaults for the zero Options.
const (
	DefaultServerName    = "nowledge-mem"
	DefaultIdleTimeout   = 1500 * time.Millisecond
	DefaultRecoverWithin = 2 * time.Second
	// probeEvery spaces the calls made after the first failed one.
	probeEvery = 100 * time.Millisecond
	// startWithin bounds a node process's start (loading the SDK is slow
	// on a loaded 2-core machine).
	startWithin = 60 * time.Second
	// callWithin bounds one tool call through the host.
	callWithin = 60 * time.Second
)

// ErrBadOptions is wrapped by Run's errors for options it cannot run.
var ErrBadOptions = errors.New("repro: bad options")

// Options configure one Run. The zero value runs the unpatched stand-in
// against the Go SDK server with an idle-timeout loss.
type Options struct {
	// Root is the repository root (holding go.mod and testdata/); "" finds
	// it upwards from the working directory.
	Root string
	// Node is the node binary; "" is "node" from PATH.
	Node string
	// Server is the MCP server; "" is GoSDK.
	Server ServerKind
	// Client is the client module; "" is StandIn.
	Client ClientKind
	// Patched applies the client patch (healer/clientpatch.Install) to a
	// copy of the module before the host loads it.
	Patched bool
	// NoRetry, with Patched, applies the first patch version (v1): the
	// fix and the trigger without the retry part, so the first call after
	// the loss fails as it did before issue 8.
	NoRetry bool
	// ToolCallTimeout is the client's toolCallTimeoutMs; zero keeps the
	// host's default (the client's 60 s).
	ToolCallTimeout time.Duration
	// Derive, with Client Real, turns the real lib/index.js into a build
	// the patch was not fitted to (internal/testbed/variants) before the
	// host loads it; Patched then applies with Force.
	Derive func(orig []byte) []byte
	// Reverted applies the patch and then reverts it (Patched must be
	// false): the client must be byte-identical to the original and STUCK.
	Reverted bool
	// Trigger stands in for the watchdog: on seeing the loss, Run writes
	// the recovery trigger (healer.WriteTrigger) and waits for the client's
	// beacon to show a new session before the first call. Needs Patched.
	Trigger bool
	// Loss is how the session is lost; "" is LossIdle.
	Loss LossMode
	// IdleTimeout is the server's session idle timeout with LossIdle; zero
	// is DefaultIdleTimeout. Unused with LossForget (sessions never idle out).
	IdleTimeout time.Duration
	// ReconnectInitial is the client's first reconnect delay; zero keeps
	// the client's own default (500 ms).
	ReconnectInitial time.Duration
	// RecoverWithin is how long after the first failed call a call must
	// succeed for RECOVERED; zero is DefaultRecoverWithin.
	RecoverWithin time.Duration
	// ConfirmWithin bounds the wait for the beacon's new session after the
	// trigger; zero is healer.TriggerConfirmWithin.
	ConfirmWithin time.Duration
	// ServerName is the client's serverName (tools are mcp__<name>__echo);
	// "" is DefaultServerName.
	ServerName string
	// Home is the host's HOME (trigger, beacon and patch backups live
	// under it); "" is a temp dir removed after the run.
	Home string
	// Logger receives progress; nil discards it. Session ids are masked.
	Logger *slog.Logger
	// Watchdog, when set, runs the real watchdog daemon on the run (Go SDK
	// server only: it watches the server's session store). Needs Patched;
	// the daemon, not Run, triggers the client's recovery on the loss.
	Watchdog WatchdogCommand
	// WatchdogState is the daemon's state dir (journal); "" is a temp dir.
	WatchdogState string
	// KillHost ends the run with a kill -9 of the host instead of a quit,
	// as a crash would: the client's beacon stays behind for the watchdog
	// to remove (Result.BeaconGoneAfter).
	KillHost bool
	// Proxy puts the watchdog's session-keeping proxy (healer/proxy)
	// between the host and the server: the host is given the proxy's URL.
	// With the unpatched client, no call after the loss may fail.
	Proxy bool
}

func (o Options) withDefaults() (Options, error) {
	if o.Server == "" {
		o.Server = GoSDK
	}
	if o.Client == "" {
		o.Client = StandIn
	}
	if o.Loss == "" {
		o.Loss = LossIdle
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.RecoverWithin == 0 {
		o.RecoverWithin = DefaultRecoverWithin
	}
	if o.ConfirmWithin == 0 {
		o.ConfirmWithin = healer.TriggerConfirmWithin
	}
	if o.Proxy && (o.Patched || o.Trigger || o.Watchdog != nil) {
		return o, fmt.Errorf("%w: the proxy is shown with the unpatched client alone", ErrBadOptions)
	}
	if o.Watchdog != nil && (o.Server == TSSDK || !o.Patched) {
		return o, fmt.Errorf("%w: a watchdog run needs the Go SDK server (its session store) and a patched client", ErrBadOptions)
	}
	if o.ServerName == "" {
		o.ServerName = DefaultServerName
	}
	if o.Node == "" {
		o.Node = "node"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, o.validate()
}

func (o Options) validate() error {
	switch {
	case o.Server != GoSDK && o.Server != TSSDK:
		return fmt.Errorf("%w: server %q (want %s or %s)", ErrBadOptions, o.Server, GoSDK, TSSDK)
	case o.Client != StandIn && o.Client != Real:
		return fmt.Errorf("%w: client %q (want %s or %s)", ErrBadOptions, o.Client, StandIn, Real)
	case o.Loss != LossIdle && o.Loss != LossForget:
		return fmt.Errorf("%w: loss %q (want %s or %s)", ErrBadOptions, o.Loss, LossIdle, LossForget)
	case o.Trigger && !o.Patched:
		return fmt.Errorf("%w: the trigger needs the patched client", ErrBadOptions)
	case o.Derive != nil && o.Client != Real:
		return fmt.Errorf("%w: a derived build is derived from the real client", ErrBadOptions)
	case o.NoRetry && !o.Patched:
		return fmt.Errorf("%w: no-retry is a patch version: it needs the patched client", ErrBadOptions)
	case o.IdleTimeout < 0 || o.ReconnectInitial < 0 || o.RecoverWithin < 0 || o.ConfirmWithin < 0 || o.ToolCallTimeout < 0:
		return fmt.Errorf("%w: negative duration", ErrBadOptions)
	}
	return nil
}

// tool is the public name of the server's echo tool in the host.
func (o Options) tool() string { return o.toolNamed("echo") }

// toolNamed is the public name of one of the server's tools in the host.
func (o Options) toolNamed(name string) string { return "mcp__" + o.ServerName + "__" + name }

// patchVersion is the clientpatch version o applies.
func (o Options) patchVersion() string {
	if o.NoRetry {
		return "v1"
	}
	return "" // the current one
}
