package demoserver

import (
	"context"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// EchoInput is the echo tool's argument.
type EchoInput struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

// EchoOutput is the echo tool's structured result.
type EchoOutput struct {
	Text string `json:"text"`
}

// CountOutput is the count tool's structured result.
type CountOutput struct {
	Count int64 `json:"count"`
}

// newMCPServer builds the SDK server with the demo tools and the hook that
// sees sessions being created.
func (s *Server) newMCPServer() *mcp.Server {
	var opts *mcp.ServerOptions
	if s.opts.ModernOnly {
		opts = &mcp.ServerOptions{SupportedProtocolVersions: []string{modernOnlyVersion}}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: ServerName, Version: "1.0.0"}, opts)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Returns its text argument."}, s.echoTool)
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "Counts its own executions on this server."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, CountOutput, error) {
			n := s.counter.Add(1)
			return textResult(strconv.FormatInt(n, 10)), CountOutput{Count: n}, nil
		})
	srv.AddReceivingMiddleware(s.watchInitialize)
	return srv
}

// echoTool answers with its argument and reports the execution.
func (s *Server) echoTool(_ context.Context, req *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, EchoOutput, error) {
	if s.opts.OnEvent != nil {
		s.evMu.Lock()
		s.emit(Event{Kind: EventCall, ID: req.Session.ID(), Text: in.Text, At: s.opts.Now()})
		s.evMu.Unlock()
	}
	return textResult(in.Text), EchoOutput(in), nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// watchInitialize registers a session once its initialize succeeded: only
// then are both its id and its client name known.
func (s *Server) watchInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "initialize" || err != nil {
			return res, err
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.ID() != "" {
			s.sessionCreated(ss)
		}
		return res, err
	}
}

// startSession records a new session, logs it and reports it; false when id
// was live already.
func (s *Server) startSession(id, client string) bool {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if !s.tracker.add(id, client) {
		return false
	}
	// The event (the tests' ground truth) before the log and the store
	// (what the watchdog reads): a kill between them must never leave the
	// watchdog knowing more than the truth.
	s.emit(Event{Kind: EventStart, ID: id, Client: client, At: s.opts.Now()})
	s.log.info(msgCreated, "session_id", id, "client", client)
	s.logger.Debug("demo session created", "session", mask.ID(id), "client", client)
	s.tracker.changed()
	return true
}

// sessionCreated tracks ss and starts the goroutine that notices its end.
func (s *Server) sessionCreated(ss *mcp.ServerSession) {
	id := ss.ID()
	client := ""
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		client = p.ClientInfo.Name
	}
	s.mu.Lock()
	if s.closed {
		// Shutting down: Close's last sweep closes it. Closing it here would
		// wait on this very request.
		s.mu.Unlock()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	if !s.startSession(id, client) {
		s.wg.Done()
		return // a repeated initialize on a live session
	}
	go func() {
		defer s.wg.Done()
		_ = ss.Wait() // returns once the SDK closed the session, for any reason
		s.endSession(id)
	}()
}
