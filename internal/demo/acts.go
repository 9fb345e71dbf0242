package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpwatchdog/watchdog/healer"
	"github.com/mcpwatchdog/watchdog/internal/demoserver"
	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// waitLimit bounds each thing an act waits for beyond the timeouts it
// plays with: generous, for a loaded machine.
const waitLimit = 20 * time.Second

// act1: keep-warm holds an idle session across three idle timeouts.
func (s *stage) act1(ctx context.Context, a Act) Act {
	s.n.plain("")
	s.n.say("act 1: keep-warm holds the session across three idle timeouts (%s each)", s.idle)
	from := s.tail.Len()
	if err := s.sup.Connect(ctx); err != nil {
		return fail(a, "the client could not connect: %v", err)
	}
	id := s.sup.SessionID()
	s.n.say("client: connected as %s, session %s; from now on it makes no calls", clientName(), mask.ID(id))
	wctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	if _, err := s.tail.Wait(wctx, from, "the watchdog's first keep-warm ping", keepWarmOf(id)); err != nil {
		return fail(a, "%v", err)
	}
	hold := 3*s.idle + s.idle/2
	s.n.say("client: idle for %s, three and a half idle timeouts", hold)
	if err := sleep(ctx, hold); err != nil {
		return fail(a, "interrupted")
	}
	if e, ok := endedOf(s.srv, id); ok {
		return fail(a, "the server ended the session (%s) although it was kept warm", e.Reason)
	}
	pings := 0
	for _, r := range s.tail.Since(from) {
		if keepWarmOf(id)(r) {
			pings++
		}
	}
	if pings < 3 {
		return fail(a, "only %d keep-warm pings in the journal, want one per idle timeout at least", pings)
	}
	res, err := s.sup.Call(ctx, "still there?")
	if err != nil {
		return fail(a, "the call after the idle spell failed: %v", err)
	}
	if res.Session != id {
		return fail(a, "the call ran on a new session %s, not the kept one", mask.ID(res.Session))
	}
	s.n.say("client: a tool call after %s idle succeeds on the SAME session %s", hold, mask.ID(id))
	a.OK = true
	a.Evidence = fmt.Sprintf("idle %s (timeout %s), %d keep-warm pings, same session answered", hold, s.idle, pings)
	return a
}

// act2: with keep-warm paused the session expires; the watchdog detects it,
// notifies, triggers the client's recovery, and the next call succeeds.
func (s *stage) act2(ctx context.Context, a Act) Act {
	s.n.plain("")
	s.n.say("act 2: keep-warm paused, the session expires, the watchdog heals it before the next call")
	s.n.say("pausing keep-warm: restarting the watchdog with keep_warm = false for %s", ServerName)
	if err := s.stopDaemon(); err != nil {
		return fail(a, "stopping the watchdog: %v", err)
	}
	if err := s.startDaemon(ctx, false); err != nil {
		return fail(a, "%v", err)
	}
	id, from := s.sup.SessionID(), s.mark()
	if id == "" {
		return fail(a, "the client has no session to lose")
	}
	s.n.say("client: idle on session %s; the server ends it after %s", mask.ID(id), s.idle)
	ended, err := waitEnded(ctx, s.srv, id, 3*s.idle+waitLimit)
	if err != nil {
		return fail(a, "%v", err)
	}
	s.n.say("server: ended session %s (%s, idle %s)", mask.ID(id), ended.Reason, ended.Idle.Round(time.Millisecond))
	return s.healed(ctx, a, from, id, ended.Ended, "expiry")
}

// act3: the server restarts and forgets its sessions.
func (s *stage) act3(ctx context.Context, a Act) Act {
	s.n.plain("")
	s.n.say("act 3: the server restarts and forgets every session (keep-warm cannot prevent this)")
	id, from := s.sup.SessionID(), s.mark()
	if id == "" {
		return fail(a, "the client has no session to lose")
	}
	s.srv.ForgetAll()
	ended, ok := endedOf(s.srv, id)
	if !ok {
		return fail(a, "the server did not end session %s", mask.ID(id))
	}
	s.n.say("server: restarted (simulated: it closed every session and rewrote its store empty); session %s is gone", mask.ID(id))
	return s.healed(ctx, a, from, id, ended.Ended, "the restart")
}

// mark is where the journal and the client stood before a loss.
type mark struct{ journal, reconnects, failed, notes int }

func (s *stage) mark() mark {
	return mark{journal: s.tail.Len(), reconnects: len(s.sup.Reconnects()), failed: s.sup.Failed(), notes: s.noteCount()}
}

// healed checks the second half of acts 2 and 3 against the journal and
// the client: detected, notified, triggered, recovered, next call works.
func (s *stage) healed(ctx context.Context, a Act, from mark, id string, lostAt time.Time, cause string) Act {
	wctx, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	det, err := s.tail.Wait(wctx, from.journal, "the watchdog detecting the loss", lossOf(id))
	if err != nil {
		return fail(a, "%v", err)
	}
	detect := det.Time.Sub(lostAt)
	s.n.say("detected %s after %s (journal %s − server's end)", ms(detect), cause, det.Kind)
	if err := waitCond(wctx, func() bool { return s.notesSince(from.notes, "session lost") > 0 }); err != nil {
		return fail(a, "no notification of the loss: %v", err)
	}
	if _, err := s.tail.Wait(wctx, from.journal, "the watchdog triggering the client's recovery", kindStrategy(health.EvHealStarted, healer.StrategyClientRecovery)); err != nil {
		return fail(a, "%v", err)
	}
	rec, err := s.tail.Wait(wctx, from.journal, "the watchdog seeing the recovery", kindStrategy(health.EvRecovered, healer.StrategyClientRecovery))
	if err != nil {
		return fail(a, "%v", err)
	}
	recovery, _ := rec.Facts.(health.Recovery)
	took := recovery.Took
	r, ok := triggered(s.sup.Reconnects()[from.reconnects:])
	if !ok {
		return fail(a, "the client did not reconnect on the watchdog's trigger")
	}
	s.n.say("recovered %s after the loss was detected; the client had its new session %s after detection", ms(took), ms(r.Time.Sub(det.Time)))
	res, err := s.sup.Call(ctx, "after "+cause)
	if err != nil {
		return fail(a, "the next tool call failed: %v", err)
	}
	if res.Session == id {
		return fail(a, "the next call ran on the lost session")
	}
	if n := s.sup.Failed() - from.failed; n != 0 {
		return fail(a, "%d user calls failed", n)
	}
	s.n.say("client: the next tool call succeeds on the new session %s; no call failed", mask.ID(res.Session))
	a.OK = true
	a.Evidence = fmt.Sprintf("detected in %s, recovered in %s, next call ok, 0 failed calls", ms(detect), ms(took))
	return a
}

// triggered is the first reconnect the trigger caused.
func triggered(rs []Reconnect) (Reconnect, bool) {
	for _, r := range rs {
		if r.Reason == "trigger" {
			return r, true
		}
	}
	return Reconnect{}, false
}

func fail(a Act, format string, args ...any) Act {
	a.OK = false
	a.Failure = fmt.Sprintf(format, args...)
	return a
}

func keepWarmOf(id string) func(Record) bool {
	return func(r Record) bool {
		return r.Kind == health.EvKeepWarm && r.Server == ServerName && r.Session == mask.ID(id)
	}
}

// lossOf matches the watchdog's first word on the loss of session id.
func lossOf(id string) func(Record) bool {
	return func(r Record) bool {
		return (r.Kind == health.EvSessionExpired || r.Kind == health.EvSessionLost) && r.Server == ServerName && r.Session == mask.ID(id)
	}
}

func kindStrategy(kind health.EventKind, strategy health.Strategy) func(Record) bool {
	return func(r Record) bool {
		return r.Kind == kind && r.Server == ServerName && health.StrategyOf(r.Facts) == strategy
	}
}

func endedOf(srv *demoserver.Server, id string) (demoserver.EndedSession, bool) {
	for _, e := range srv.Ended() {
		if e.ID == id {
			return e, true
		}
	}
	return demoserver.EndedSession{}, false
}

// waitCond polls cond until it holds or ctx ends.
func waitCond(ctx context.Context, cond func() bool) error {
	for !cond() {
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return fmt.Errorf("%w: %w", errWait, err)
		}
	}
	return nil
}

// waitEnded polls the server until it ended id.
func waitEnded(ctx context.Context, srv *demoserver.Server, id string, limit time.Duration) (demoserver.EndedSession, error) {
	deadline := time.Now().Add(limit)
	for {
		if e, ok := endedOf(srv, id); ok {
			return e, nil
		}
		if time.Now().After(deadline) {
			return demoserver.EndedSession{}, fmt.Errorf("the server did not end session %s within %s", mask.ID(id), limit)
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return demoserver.EndedSession{}, err
		}
	}
}
