package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// internalPrefix starts the id of every request the supervisor itself
// sends a run (a replayed initialize, a ping): their answers are its own,
// never the host's.
const internalPrefix = `"watchdog-stdio-`

// ask sends run c a request of the supervisor's own, made from line with
// its id replaced, and waits for the answer (bounded by wait).
func (s *Supervisor) ask(c *child, line []byte, kind string, wait time.Duration) ([]byte, error) {
	f := scan(line)
	if f.ID == nil {
		return nil, errors.New("a request without an id")
	}
	s.mu.Lock()
	s.seq++
	id := internalPrefix + kind + "-" + strconv.Itoa(s.seq) + `"`
	ch := make(chan []byte, 1)
	s.internal[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.internal, id)
		s.mu.Unlock()
	}()
	req := make([]byte, 0, len(line)+len(id))
	req = append(append(append(req, line[:f.idAt]...), id...), line[f.idEnd:]...)
	if err := c.write(req); err != nil {
		return nil, fmt.Errorf("could not send it %s: %w", kind, err)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case a := <-ch:
		return a, nil
	case <-t.C:
		return nil, fmt.Errorf("it did not answer %s within %s", kind, wait)
	case <-c.exited:
		return nil, fmt.Errorf("it exited before it answered %s", kind)
	}
}

// internalAnswer takes an answer to one of the supervisor's own requests.
func (s *Supervisor) internalAnswer(f fields, line []byte) bool {
	if !bytes.HasPrefix(f.ID, []byte(internalPrefix)) {
		return false
	}
	s.mu.Lock()
	ch := s.internal[string(f.ID)]
	s.mu.Unlock()
	if ch != nil {
		select {
		case ch <- bytes.Clone(line):
		default:
		}
	}
	return true
}

// replay opens the host's session on a new run: its initialize (the
// answer kept by the supervisor, never shown to the host), then its
// initialized. It says how the server came back when that differs from
// the first run's answer ("" when it does not).
func (s *Supervisor) replay(c *child, sess *session) (changed string, answer []byte, err error) {
	if sess == nil || !sess.answered {
		// No session yet, or the host's initialize is itself in flight:
		// it is sent again as a call.
		return "", nil, nil
	}
	answer, err = s.ask(c, sess.initialize, "initialize", s.lim.StartWait)
	if err != nil {
		return "", nil, err
	}
	if f := scan(answer); f.Error {
		return "", nil, fmt.Errorf("it refused the host's initialize again: %s", clip(answer))
	}
	if sess.initialized != nil {
		if err := c.write(bytes.Clone(sess.initialized)); err != nil {
			return "", nil, fmt.Errorf("could not send it notifications/initialized: %w", err)
		}
	}
	return differs(sess.answer, answer), answer, nil
}

// initResult is what of an initialize answer the host depends on.
type initResult struct {
	Result struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	} `json:"result"`
}

func parseInit(line []byte) (initResult, bool) {
	var r initResult
	return r, line != nil && json.Unmarshal(line, &r) == nil
}

// differs says how the new answer differs from the first one: another
// version, protocol or capabilities; "" when it does not (or either is
// not known).
func differs(first, now []byte) string {
	a, ok1 := parseInit(first)
	b, ok2 := parseInit(now)
	if !ok1 || !ok2 {
		return ""
	}
	var diffs []string
	x, y := a.Result, b.Result
	if x.ServerInfo != y.ServerInfo {
		diffs = append(diffs, fmt.Sprintf("as %s %s (was %s %s)", y.ServerInfo.Name, y.ServerInfo.Version, x.ServerInfo.Name, x.ServerInfo.Version))
	}
	if x.ProtocolVersion != y.ProtocolVersion {
		diffs = append(diffs, fmt.Sprintf("speaking protocol %s (was %s)", y.ProtocolVersion, x.ProtocolVersion))
	}
	if !sameJSON(x.Capabilities, y.Capabilities) {
		diffs = append(diffs, fmt.Sprintf("with other capabilities: %s (was %s)", clip(y.Capabilities), clip(x.Capabilities)))
	}
	return strings.Join(diffs, ", ")
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// tellListsChanged sends the host the list_changed notifications the new
// run's capabilities allow, so it asks for fresh lists: a server started
// again may offer other tools than the one that died.
func (s *Supervisor) tellListsChanged(answer []byte) {
	r, ok := parseInit(answer)
	if !ok {
		return
	}
	var caps map[string]struct {
		ListChanged bool `json:"listChanged"`
	}
	if json.Unmarshal(r.Result.Capabilities, &caps) != nil {
		return
	}
	for _, what := range []string{"tools", "prompts", "resources"} {
		if caps[what].ListChanged {
			msg := []byte(`{"jsonrpc":"2.0","method":"notifications/` + what + `/list_changed"}`)
			if err := s.hostOut.line(msg); err != nil {
				s.hostGone()
				return
			}
		}
	}
}

// clip is b cut to a length a sentence can carry.
func clip(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
