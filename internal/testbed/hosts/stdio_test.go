package hosts

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
)

// The stdio crash cells: each host runs the rig's stdio server (the
// TypeScript SDK over stdio, one echo tool), configured its own way; the
// stand-in model calls the tool stdioCalls times, stdioGap apart, and
// the server's newest process is killed -9 after the first and the second
// result. A cell says how many calls worked, how often the server was
// started, and what the model was told after the kill.
const (
	stdioCalls = 4
	stdioKills = 2 // after the 1st and the 2nd result
	stdioGap   = 2500 * time.Millisecond
)

// stdioWant is what a host's cell must measure.
type stdioWant struct {
	ok, starts int
	// told are words a failed call's result must carry (what the model
	// was told after the kill); "" when every call works.
	told string
}

// stdioHost is one host of the stdio cells: how its config names the
// stdio server (its own way), how it runs a prompt, and what it did when
// measured by hand on 2026-12-07.
type stdioHost struct {
	prof    host.Profile
	version func(t *testing.T) string
	// prepare writes the host's config of the rig's stdio server (its
	// recipe's stdio twin, or its own CLI's mcp add); start runs one
	// prompt on that config as it is then.
	prepare, start func(t *testing.T, r *Rig)
	straight       stdioWant
	// deferred: the host offers its MCP tools through a tool search of
	// its own (Qwen Code), never by name in a request.
	deferred bool
}

// adoptedWant is the goal of every adopted cell: `watchdog stdio` starts
// the server again after each kill, and the host never knows.
var adoptedWant = stdioWant{ok: stdioCalls, starts: 1 + stdioKills}

// stdioHosts are the hosts of the stdio cells.
func stdioHosts() []stdioHost {
	return []stdioHost{
		{prof: host.CodexCLI(), version: func(t *testing.T) string { return MustCodex(t).Version },
			prepare: func(t *testing.T, r *Rig) {
				writeStdioRecipe(t, r, MustCodex(t).Recipe, "config.toml", codexConfig(r.Home))
			},
			start:    func(t *testing.T, r *Rig) { r.StartCodex(MustCodex(t), "") },
			straight: stdioWant{ok: 1, starts: 1, told: "Transport closed"}},
		{prof: host.GeminiCLI(), version: func(t *testing.T) string { return MustGemini(t).Version },
			prepare: func(t *testing.T, r *Rig) {
				writeStdioRecipe(t, r, MustGemini(t).Recipe, "settings.json", geminiSettings(r.Home))
			},
			start:    func(t *testing.T, r *Rig) { r.StartGemini(MustGemini(t), "") },
			straight: stdioWant{ok: 1, starts: 1, told: "Not connected"}},
		{prof: host.ClaudeCode(), version: func(t *testing.T) string { return MustClaude(t).Version },
			prepare: func(t *testing.T, r *Rig) {
				writeStdioRecipe(t, r, MustClaude(t).Recipe, "claude.json", claudeConfig(r.Home))
			},
			start:    func(t *testing.T, r *Rig) { r.StartClaude(MustClaude(t), "") },
			straight: stdioWant{ok: 4, starts: 3}},
		{prof: host.DSH(), version: func(t *testing.T) string { return MustDSH(t).Version },
			prepare: func(t *testing.T, r *Rig) {
				if err := WriteDSHProfile(MustDSH(t), r.cliOptions(""), "headless"); err != nil {
					t.Fatal(err)
				}
			},
			start:    func(t *testing.T, r *Rig) { r.StartDSH(MustDSH(t), "") },
			straight: stdioWant{ok: 4, starts: 3}},
		stdioCLIHost(Opencode(), stdioWant{ok: 1, starts: 1, told: "Not connected"}, false),
		stdioCLIHost(Copilot(), stdioWant{ok: 1, starts: 1, told: "does not exist"}, false),
		stdioCLIHost(Cline(), stdioWant{ok: 1, starts: 1, told: "is not connected"}, false),
		stdioCLIHost(Qwen(), stdioWant{ok: 2, starts: 3, told: "may have completed"}, true),
	}
}

// stdioCLIHost is a command line host run per prompt: its own CLI's mcp
// add registers the stdio server (opencode's asks in a wizard: its file).
func stdioCLIHost(h CLIHost, straight stdioWant, deferred bool) stdioHost {
	return stdioHost{prof: h.Prof, version: func(t *testing.T) string { return mustInstalled(t, h).version },
		prepare:  func(t *testing.T, r *Rig) { r.PrepareCLIHost(mustInstalled(t, h), "") },
		start:    func(t *testing.T, r *Rig) { r.StartCLIHost(mustInstalled(t, h)) },
		straight: straight, deferred: deferred}
}

// writeStdioRecipe writes the host's config file from its recipe's stdio
// twin (config-stdio.toml for config.toml), naming the rig's stdio server.
func writeStdioRecipe(t *testing.T, r *Rig, dir, name, file string) {
	t.Helper()
	if err := writeRecipe(dir, name, file, r.cliOptions("")); err != nil {
		t.Fatal(err)
	}
}

// TestStdioCrash measures each host's stdio crash cells: straight (the
// host alone, which must measure what it did by hand: a host that changed
// is news) and, under -hosts.matrix (make hosts), adopted (the host's
// entry through `watchdog stdio`, after `watchdog hosts adopt`: the goal,
// every call works and the server is started again after each kill).
// `make test` runs the straight cells.
func TestStdioCrash(t *testing.T) {
	t.Parallel()
	for _, h := range stdioHosts() {
		t.Run(h.prof.Name, func(t *testing.T) {
			t.Parallel()
			report.host(h.prof.Name + " " + h.version(t))
			t.Run("straight", func(t *testing.T) {
				t.Parallel()
				report.addStdio(measureStdio(t, h, false))
			})
			if *matrix {
				t.Run("adopted", func(t *testing.T) {
					t.Parallel()
					report.addStdio(measureStdio(t, h, true))
				})
			}
		})
	}
}

// stdioRow is one measured stdio cell.
type stdioRow struct {
	host, setup string
	ok, starts  int
	told        []string // the failed calls' results, in order
	left        int      // processes of the server (or its supervisor) left after the host exited
}

// measureStdio measures h's cell, straight or adopted, and checks it.
func measureStdio(t *testing.T, h stdioHost, adopted bool) stdioRow {
	stdioSlots <- struct{}{} // two hosts at a time: what a host does within stdioGap is timed
	defer func() { <-stdioSlots }()
	r := NewStdioRig(t)
	h.prepare(t, r)
	got := stdioRow{host: h.prof.Name, setup: "straight"}
	want := h.straight
	var a *stdioAdoption
	if adopted {
		got.setup, want = "adopted", adoptedWant
		a = adoptStdio(t, r, h.prof)
	}
	before := len(r.Stdio.Starts()) // the host's own CLI may have started it
	h.start(t, r)
	awaitTool(t, r, h.deferred)
	for i := 1; i <= stdioCalls; i++ {
		if i > 1 {
			time.Sleep(stdioGap) // the model taking its time: what a host does meanwhile is the point
		}
		text := fmt.Sprintf("stdio-%d", i)
		res, ok := r.Call(text)
		if ok {
			got.ok++
		} else {
			got.told = append(got.told, res.Content)
		}
		if n := r.Stdio.Ran(text); n > 1 || ok && n != 1 {
			t.Errorf("call %q (worked: %v) ran %d times on the server", text, ok, n)
		}
		if i <= stdioKills {
			pid, err := r.Stdio.KillNewest()
			t.Logf("after call %d: kill -9 %d: %v", i, pid, err)
		}
	}
	r.Finish()
	got.starts = len(r.Stdio.Starts()) - before
	got.left = leftBehind(r)
	t.Logf("verdict: %s, %s: %d of %d calls ok, %d starts, told %q, %d processes left", h.prof.Name, got.setup,
		got.ok, stdioCalls, got.starts, got.told, got.left)
	checkStdio(t, got, want)
	if a != nil {
		a.check(t, r, got)
	}
	return got
}

// stdioSlots bounds the stdio cells running at once (test-only state, as
// report is): a cell measures what a host does within stdioGap of a
// kill, which a machine busy with many hosts booting stretches.
var stdioSlots = make(chan struct{}, 2)

// stdioWarmup bounds the wait for a host to offer the tool, and
// stdioWarmupPace paces the calls made meanwhile (a model takes its time).
const (
	stdioWarmup     = 30 * time.Second
	stdioWarmupPace = time.Second
)

// awaitTool waits for the host to offer the server's tool before the
// measured calls: a host may ask the model before its server answered
// (Codex CLI does, when node takes its time to start). Only a call answers
// a request of the conversation without ending it, so each request that
// does not offer the tool is answered with a call of it (the host says it
// has no such tool); its next one comes once it has listed the server's
// tools. A call that works ends the wait too: the host had the tool
// behind a search of its own. A host that always defers its MCP tools
// (a tool search) is taken as is.
func awaitTool(t *testing.T, r *Rig, deferred bool) {
	t.Helper()
	deadline := time.Now().Add(stdioWarmup)
	for i := 1; ; i++ {
		tools, err := r.Model.Asking(bootWithin, r.exited())
		if err != nil {
			r.hostFailed(err)
		}
		if deferred || slices.ContainsFunc(tools, func(n string) bool { return offers(n, r.tool) }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the host did not offer %s in %v (%d requests); it offered %v", r.tool, stdioWarmup, i, tools)
		}
		time.Sleep(stdioWarmupPace)
		res, ok := r.Call(fmt.Sprintf("warmup-%d", i))
		t.Logf("the host did not offer %s by name (it offered %v); a call of it was answered %q", r.tool, tools, res.Content)
		if ok { // it has the tool, behind a search of its own (Claude Code's ToolSearch, at times)
			return
		}
	}
}

// offers says whether a tool a request offers, named name, is tool: that
// one, or the namespace it is in (Codex CLI offers mcp__demo, whose
// echo it calls mcp__demo/echo).
func offers(name, tool string) bool { return name == tool || strings.HasPrefix(tool, name+"/") }

// checkStdio checks a cell against what it must measure.
func checkStdio(t *testing.T, got stdioRow, want stdioWant) {
	t.Helper()
	if got.ok != want.ok || got.starts != want.starts {
		t.Errorf("%s, %s: %d of %d calls ok, %d server starts; want %d ok, %d starts (what the model was told: %q)",
			got.host, got.setup, got.ok, stdioCalls, got.starts, want.ok, want.starts, got.told)
	}
	if want.told != "" && !slices.ContainsFunc(got.told, func(s string) bool { return strings.Contains(s, want.told) }) {
		t.Errorf("%s, %s: after the kill the model was told %q; want words %q", got.host, got.setup, got.told, want.told)
	}
}

// stdioLinger bounds the wait for the server's processes to go once the
// host exited (a host may end its server a moment after its own exit).
const stdioLinger = 5 * time.Second

// leftBehind waits up to stdioLinger for the processes carrying the
// server's command line to go, and counts those that did not.
func leftBehind(r *Rig) int {
	deadline := time.Now().Add(stdioLinger)
	for len(r.Stdio.Processes()) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond) // polling /proc for the pids to go
	}
	return len(r.Stdio.Processes())
}

// addStdio adds a stdio cell to the report.
func (tb *table) addStdio(r stdioRow) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.stdio = append(tb.stdio, r)
}

// writeStdio renders the stdio cells as a table of their own.
func (tb *table) writeStdio(b *strings.Builder) {
	if len(tb.stdio) == 0 {
		return
	}
	rows := slices.Clone(tb.stdio)
	slices.SortFunc(rows, func(a, b stdioRow) int {
		return cmp.Or(strings.Compare(a.host, b.host), -strings.Compare(a.setup, b.setup))
	})
	fmt.Fprintf(b, "\n## stdio servers: a crash\n\nThe TypeScript SDK's server over stdio (one echo tool), in each host's own config; "+
		"%d calls %v apart, the server's newest process killed -9 after the 1st and the 2nd result. "+
		"Straight: the host alone; adopted: its entry through `watchdog stdio` after `watchdog hosts adopt`.\n\n", stdioCalls, stdioGap)
	b.WriteString("| Host | Setup | Calls ok | Server starts | Left running after the host | What the model was told after the kill |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %d of %d | %d | %d | %s |\n", r.host, r.setup, r.ok, stdioCalls, r.starts, r.left, toldCell(r.told))
	}
}

// toldCell is what the model was told after the kill, for the table: the
// first failed call's text, and the last when it says something else.
func toldCell(told []string) string {
	if len(told) == 0 {
		return "the echo, every call"
	}
	first, last := toldText(told[0]), toldText(told[len(told)-1])
	if last == first {
		return first
	}
	return first + ", then " + last
}

// sdkMessage is the SDK's error message inside a host's JSON of it
// (Gemini CLI's functionResponse), escaped once or more.
var sdkMessage = regexp.MustCompile(`message\\*"\s*:\s*\\*"([^"\\]+)`)

// toldText is a failed call's text for the table: without Codex CLI's
// frame (its wall time, its stack), the SDK's message alone where a host
// wraps it in JSON of its own, on one line, short.
func toldText(s string) string {
	if out, ok := strings.CutPrefix(s, "Wall time:"); ok {
		_, s, _ = strings.Cut(out, "\nOutput:")
	}
	s, _, _ = strings.Cut(s, "\n\nStack backtrace")
	if m := sdkMessage.FindStringSubmatch(s); m != nil {
		s = "… " + m[1]
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return "`" + strings.NewReplacer("|", "\\|", "`", "'").Replace(s) + "`"
}

// The stdio table says what the model was told as the host's user would
// read it: Codex CLI's frame and Gemini CLI's JSON taken off, a second
// text only when it says something else.
func TestStdioToldCell(t *testing.T) {
	t.Parallel()
	codex := func(took string) string {
		return "Wall time: " + took + " seconds\nOutput:tool call error: tool call failed for `demo/echo`\n\nCaused by:\n    Transport closed\n\nStack backtrace:\n   0: <unknown>"
	}
	gemini := func(text string) string {
		return `{"error":"MCP tool 'echo' reported tool error for function call: {\"name\":\"echo\",\"args\":{\"text\":\"` + text +
			`\"}} with response: [{\"functionResponse\":{\"name\":\"echo\",\"response\":{\"error\":{\"message\":\"Not connected\",\"isError\":true}}}}]"}`
	}
	for _, c := range []struct {
		told []string
		want string
	}{
		{nil, "the echo, every call"},
		{[]string{codex("0.1047"), codex("0.0399")}, "`tool call error: tool call failed for 'demo/echo' Caused by: Transport closed`"},
		{[]string{gemini("stdio-2"), gemini("stdio-4")}, "`… Not connected`"},
		{[]string{"Not connected", "Tool 'x' | gone"}, "`Not connected`, then `Tool 'x' \\| gone`"},
	} {
		if got := toldCell(c.told); got != c.want {
			t.Errorf("toldCell(%q) = %s; want %s", c.told, got, c.want)
		}
	}
}
