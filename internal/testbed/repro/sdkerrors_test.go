package repro

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwatchdog/watchdog/internal/testbed/repo"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tailbuf"
	"github.com/mcpwatchdog/watchdog/internal/testbed/tsserver"
)

// TestSDKErrorShapes runs the client patch's session-loss predicate on the real
// errors both TypeScript SDK client lines (1.x and 2.x, testdata/sdkerrors)
// raise against real servers, in the client's own process, so a shape the
// JSON rows of TestSessionLostPredicate miss (a getter, a prototype) or an SDK
// upgrade that changes one fails here. Each subtest is one SDK line against
// one server of its own, since losing a session is done to the whole server.
func TestSDKErrorShapes(t *testing.T) {
	t.Parallel()
	dir := sdkErrorsDir(t)
	pred := predicateModule(t)
	for _, sdk := range []string{"v1", "v2"} {
		t.Run("go/"+sdk, func(t *testing.T) {
			t.Parallel()
			runGoServerSteps(t, sdk, dir, pred)
		})
		for _, mode := range []tsserver.Mode{tsserver.Stateful, tsserver.Quirk} {
			t.Run("ts-"+string(mode)+"/"+sdk, func(t *testing.T) {
				t.Parallel()
				runTSServerSteps(t, sdk, mode, dir, pred)
			})
		}
	}
}

// runGoServerSteps: the Go SDK server answers the GET stream 404 throughout (the
// quirk), then a tool error, a client-side timeout, a 500 and a lost session.
func runGoServerSteps(t *testing.T, sdk, dir, pred string) {
	g := newQuirkyGoServer(t)
	c := startCapture(t, sdk, dir, g.srv.URL+"/mcp", pred)
	c.check(stepCmd{Step: "get404", Op: "connect", Onerror: 1},
		expect{match: "Failed to open SSE stream", shape: getShape(sdk, 404), onerror: true})
	c.check(echoStep("echo"), expect{result: "ok"})
	c.check(stepCmd{Step: "toolerror", Op: "call", Tool: "fail"}, expect{result: "isError"})
	c.check(stepCmd{Step: "timeout", Op: "call", Tool: "slow", TimeoutMs: 300},
		expect{match: "timed out", shape: timeoutShape(sdk), thrown: true})
	g.fail500.Store(true)
	step500 := echoStep("500")
	step500.Onerror = 1
	c.check(step500, expect{match: "Error POSTing to endpoint", shape: postShape(sdk, 500), thrown: true, onerror: true})
	g.fail500.Store(false)
	g.restart()
	c.check(lostStep(), expect{match: "Error POSTing to endpoint", lost: true, shape: postShape(sdk, 404), thrown: true, onerror: true})
	c.check(stepCmd{Step: "close", Op: "close"}, expect{tolerate: true})
}

// runTSServerSteps: the TypeScript SDK server forgets every session, and the next
// POST meets its unknown-session answer (404 when stateful, 400 "No valid session
// ID provided" in quirk mode). The GET stream the forget ends may fail too once the
// client reconnects it; any such error must not count as a loss.
func runTSServerSteps(t *testing.T, sdk string, mode tsserver.Mode, dir, pred string) {
	s := tsserver.Start(t, tsserver.Options{Mode: mode})
	c := startCapture(t, sdk, dir, s.URL(), pred)
	c.check(stepCmd{Step: "connect", Op: "connect"}, expect{})
	c.check(echoStep("echo"), expect{result: "ok"})
	s.Forget(t)
	status := 404
	if mode == tsserver.Quirk {
		status = 400
	}
	c.check(lostStep(), expect{match: "Error POSTing to endpoint", lost: true, shape: postShape(sdk, status), thrown: true, onerror: true})
	c.check(stepCmd{Step: "close", Op: "close"}, expect{tolerate: true})
}

func echoStep(name string) stepCmd {
	return stepCmd{Step: name, Op: "call", Tool: "echo", Args: map[string]any{"text": "hi"}}
}

// lostStep waits for the onerror report too: the SDK calls onerror before it
// rethrows, but the test must not depend on that order.
func lostStep() stepCmd {
	s := echoStep("lost")
	s.Onerror = 1
	return s
}

// shape is an error's class and fields as the SDK source builds it; code and
// status are what JSON decoding gives (float64, string or nil).
type shape struct {
	class        string
	code, status any
}

// postShape: 1.x StreamableHTTPError carries the HTTP status as a numeric .code;
// 2.x SdkHttpError has a string .code and the status behind a .status getter.
func postShape(sdk string, status int) shape {
	if sdk == "v1" {
		return shape{"StreamableHTTPError", float64(status), nil}
	}
	return shape{"SdkHttpError", "CLIENT_HTTP_NOT_IMPLEMENTED", float64(status)}
}

func getShape(sdk string, status int) shape {
	if sdk == "v1" {
		return shape{"StreamableHTTPError", float64(status), nil}
	}
	return shape{"SdkHttpError", "CLIENT_HTTP_FAILED_TO_OPEN_STREAM", float64(status)}
}

// timeoutShape: 1.x McpError -32001; 2.x SdkError REQUEST_TIMEOUT.
func timeoutShape(sdk string) shape {
	if sdk == "v1" {
		return shape{"McpError", float64(-32001), nil}
	}
	return shape{"SdkError", "REQUEST_TIMEOUT", nil}
}

// expect is what one step must produce. Errors whose message contains match are
// the step's own: each must have the shape and get the verdict lost. Without a
// match the step must raise no error at all (unless tolerate: the closing step
// may still see the stream reconnects of a forgotten session, which must then
// not count as a loss). result is how the call must return: "ok", "isError",
// or "" for not at all.
type expect struct {
	match           string
	lost            bool
	shape           shape
	thrown, onerror bool
	result          string
	tolerate        bool
}

// record is one line capture.mjs prints: an error, a call's result, or the end
// of a step.
type record struct {
	SDK       string `json:"sdk"`
	Step      string `json:"step"`
	Where     string `json:"where"` // onerror, thrown or result
	ClassName string `json:"className"`
	Code      any    `json:"code"`
	Status    any    `json:"status"`
	Message   string `json:"message"`
	Lost      any    `json:"lost"` // a bool, or why the predicate threw
	IsError   bool   `json:"isError"`
	Done      string `json:"done"`
}

// stepCmd is one step as capture.mjs reads it from stdin.
type stepCmd struct {
	Step      string         `json:"step"`
	Op        string         `json:"op"`
	Tool      string         `json:"tool,omitempty"`
	Args      map[string]any `json:"args,omitempty"`
	TimeoutMs int            `json:"timeoutMs,omitempty"`
	Onerror   int            `json:"onerror,omitempty"`
}

// check runs one step and holds its records to e.
func (c *capture) check(cmd stepCmd, e expect) {
	c.t.Helper()
	var thrown, onerror bool
	results := c.run(cmd)
	for _, r := range results {
		if r.Where == "result" {
			continue
		}
		if e.match == "" || !strings.Contains(r.Message, e.match) {
			if e.match == "" && !e.tolerate || r.Lost != false {
				c.t.Errorf("%s: unexpected error %+v", cmd.Step, r)
			}
			continue
		}
		thrown = thrown || r.Where == "thrown"
		onerror = onerror || r.Where == "onerror"
		if r.Lost != e.lost || (shape{r.ClassName, r.Code, r.Status}) != e.shape {
			c.t.Errorf("%s: got %+v, want lost=%v %+v", cmd.Step, r, e.lost, e.shape)
		}
	}
	if thrown != e.thrown || e.onerror && !onerror {
		c.t.Errorf("%s: thrown=%v onerror=%v, want thrown=%v onerror=%v", cmd.Step, thrown, onerror, e.thrown, e.onerror)
	}
	checkResult(c.t, cmd.Step, results, e.result)
}

// checkResult: a tool's error result is returned, never thrown.
func checkResult(t *testing.T, step string, rs []record, want string) {
	t.Helper()
	var got []string
	for _, r := range rs {
		if r.Where == "result" {
			got = append(got, map[bool]string{false: "ok", true: "isError"}[r.IsError])
		}
	}
	if strings.Join(got, ",") != want {
		t.Errorf("%s: results %q, want %q", step, got, want)
	}
}

// capture is one capture.mjs process: one SDK line against one server.
type capture struct {
	t      *testing.T
	sdk    string
	stdin  io.WriteCloser
	lines  chan string // stdout, closed when the process ends
	stderr *tailbuf.Buffer
}

// stepTimeout bounds one step; the slowest (a reconnect after a forget) takes
// well under a second.
const stepTimeout = 30 * time.Second

func startCapture(t *testing.T, sdk, dir, url, pred string) *capture {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "node", "capture.mjs", sdk, url, pred)
	cmd.Dir = dir
	c := &capture{t: t, sdk: sdk, lines: make(chan string, 64), stderr: &tailbuf.Buffer{Max: 64 << 10}}
	cmd.Stderr = c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("node: %v", err)
	}
	c.stdin = stdin
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("capture.mjs %s stderr:\n%s", sdk, c.stderr)
		}
	})
	return c
}

// run sends one step and returns the records printed until its end.
func (c *capture) run(cmd stepCmd) []record {
	c.t.Helper()
	b, _ := json.Marshal(cmd)
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("%s: write step: %v", cmd.Step, err)
	}
	timer := time.NewTimer(stepTimeout)
	defer timer.Stop()
	var out []record
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("%s: capture.mjs exited\n%s", cmd.Step, c.stderr)
			}
			var r record
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				c.t.Fatalf("%s: capture.mjs printed %q: %v", cmd.Step, line, err)
			}
			if r.Done == cmd.Step {
				return out
			}
			c.t.Logf("%s %s: %s", c.sdk, cmd.Step, line) // the observed objects, for -v
			out = append(out, r)
		case <-timer.C:
			c.t.Fatalf("%s: no end within %v\n%s", cmd.Step, stepTimeout, c.stderr)
		}
	}
}

// quirkyGoServer is the real Go SDK StreamableHTTPHandler behind a middleware that
// answers every GET 404 (the quirk: the stream fails while the session lives)
// and, while fail500 is set, every POST 500. restart swaps in a fresh handler,
// so the real one answers the old session 404 "session not found".
type quirkyGoServer struct {
	srv     *httptest.Server
	mcp     *mcp.Server
	inner   atomic.Pointer[http.Handler]
	fail500 atomic.Bool
}

func newQuirkyGoServer(t *testing.T) *quirkyGoServer {
	t.Helper()
	g := &quirkyGoServer{mcp: newErrorsMCPServer()}
	g.restart()
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

// restart forgets every session, as a server restart would.
func (g *quirkyGoServer) restart() {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.mcp }, nil)
	g.inner.Store(&h)
}

func (g *quirkyGoServer) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet:
		http.Error(w, "Not Found", http.StatusNotFound)
	case r.Method == http.MethodPost && g.fail500.Load():
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	default:
		(*g.inner.Load()).ServeHTTP(w, r)
	}
}

// newErrorsMCPServer has echo, fail (an error result, which the SDK returns
// rather than throws) and slow (outlives the client's timeout; the client's
// cancellation, or at worst 5 s, ends it so the server can close).
func newErrorsMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "sdkerrors", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it failed"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow"}}}, nil, nil
	})
	return s
}

// sdkErrorsDir is testdata/sdkerrors; it fails the test (never skips) when its
// npm packages are missing.
func sdkErrorsDir(t *testing.T) string {
	t.Helper()
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "testdata", "sdkerrors")
	for _, pkg := range []string{"sdk", "client"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "package.json")); err != nil {
			t.Fatalf("%v; run `make deps` (scripts/deps-node.sh installs testdata/sdkerrors)", err)
		}
	}
	return dir
}
