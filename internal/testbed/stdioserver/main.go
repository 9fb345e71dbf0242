// Command stdioserver is a real MCP server over stdio (the Go SDK) for
// the stdio supervisor's tests, with tools that misbehave on purpose and
// modes for the bad children a supervisor must survive.
//
//	-pids FILE   append this process's pid to FILE at each start
//	-mode M      serve (default); bigline (a line of -size bytes to stdout first);
//	             bigjson (a notification of -size bytes first); garbage (lines that are no JSON-RPC to stdout first);
//	             noread (never reads stdin); exit (exits at once, status 3)
//	-version V   the serverInfo version it says (@FILE: read from FILE at start)
//	-listchanged declare tools.listChanged
//	-again-delay D  on every start but the first, wait D before serving
//
// Tools: echo {text}; stall-lists (every later tools/list read and left
// unanswered); crash (exits with status 3 mid-call, after a line on
// stderr); slow {ms}; freeze (stops the process: SIGSTOP, a hang);
// count (calls this process has served); child (starts a grandchild that
// sleeps, writing its pid to -pids with a g prefix); roots (asks the host
// for its roots: a server-to-host request).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	pids := flag.String("pids", "", "file to append this process's pid to")
	mode := flag.String("mode", "serve", "serve, bigline, garbage, noread or exit")
	size := flag.Int("size", 100<<20, "bytes of the bigline")
	version := flag.String("version", "1.0.0", "serverInfo version")
	listChanged := flag.Bool("listchanged", false, "declare tools.listChanged")
	again := flag.Duration("again-delay", 0, "on every start after the first (the pids file has a line), wait this long before serving")
	flag.Parse()
	if *again > 0 && *pids != "" {
		if b, err := os.ReadFile(*pids); err == nil && len(b) > 0 {
			time.Sleep(*again)
		}
	}
	if *pids != "" {
		appendLine(*pids, fmt.Sprint(os.Getpid()))
	}
	if file, ok := strings.CutPrefix(*version, "@"); ok {
		b, _ := os.ReadFile(file)
		*version = strings.TrimSpace(string(b))
	}
	switch *mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "stdioserver: exiting at once, as asked")
		os.Exit(3)
	case "noread":
		fmt.Fprintln(os.Stderr, "stdioserver: never reading stdin")
		select {}
	case "bigline":
		fmt.Fprint(os.Stdout, strings.Repeat("x", *size)+"\n")
	case "bigjson":
		fmt.Fprint(os.Stdout, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`+
			strings.Repeat("x", *size)+`"}}`+"\n")
	case "garbage":
		fmt.Fprintln(os.Stdout, "Server listening... (a log line on stdout)")
	}
	if err := serve(*pids, *version, *listChanged); err != nil {
		fmt.Fprintln(os.Stderr, "stdioserver:", err)
		os.Exit(1)
	}
}

func appendLine(file, line string) {
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

type textArg struct {
	Text string `json:"text"`
}

type msArg struct {
	MS int `json:"ms"`
}

func serve(pids, version string, listChanged bool) error {
	opts := &mcp.ServerOptions{}
	if listChanged {
		opts.Capabilities = &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "stdioserver", Version: version}, opts)
	addTools(srv, pids)
	addMisbehaving(srv)
	return srv.Run(context.Background(), &mcp.StdioTransport{})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// addTools adds the tools that behave.
func addTools(srv *mcp.Server, pids string) {
	calls := 0
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Returns its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a textArg) (*mcp.CallToolResult, any, error) {
			calls++
			return text(a.Text), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "Calls this process served."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			calls++
			return text(fmt.Sprint(calls)), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "roots", Description: "Asks the host for its roots."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			//lint:ignore SA1019 roots/list is the legacy era's server-to-host request the supervisor must relay
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, ",")), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "child", Description: "Starts a grandchild that sleeps."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "600")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			if pids != "" {
				appendLine(pids, fmt.Sprintf("g%d", cmd.Process.Pid))
			}
			return text(fmt.Sprint(cmd.Process.Pid)), nil, nil
		})
}

// addMisbehaving adds the tools that crash, hang or take their time.
func addMisbehaving(srv *mcp.Server) {
	// stall-lists: every later tools/list is read and never answered (the
	// process lives and answers the rest).
	var stalled atomic.Bool
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && stalled.Load() {
				fmt.Fprintln(os.Stderr, "stdioserver: holding a tools/list, unanswered")
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "stall-lists", Description: "Leaves every later tools/list unanswered."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			stalled.Store(true)
			return text("stalled"), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "crash", Description: "Exits mid-call (after noise bytes on stderr)."},
		func(_ context.Context, _ *mcp.CallToolRequest, a struct {
			Noise int `json:"noise,omitempty"`
		}) (*mcp.CallToolResult, any, error) {
			for line := strings.Repeat("x", 1023) + "\n"; a.Noise > 0; a.Noise -= len(line) {
				_, _ = os.Stderr.WriteString(line)
			}
			fmt.Fprintln(os.Stderr, "stdioserver: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "slow", Description: "Answers after ms milliseconds."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a msArg) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(a.MS) * time.Millisecond):
			case <-ctx.Done():
			}
			return text("slept"), nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "freeze", Description: "Stops this process (a hang) for good."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			// A process stopped by SIGSTOP can be continued from outside
			// (the kernel continues a process group it finds orphaned):
			// this one stops itself again, so it stays hung until killed.
			cont := make(chan os.Signal, 1)
			signal.Notify(cont, syscall.SIGCONT)
			for {
				_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
				<-cont
			}
		})
}
