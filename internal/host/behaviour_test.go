package host

import (
	"strings"
	"testing"
)

// TestBehaviourPerAnswer: a host's table answers per kind of answer; an
// answer not known yet is the spec's 404, when both kinds agree.
func TestBehaviourPerAnswer(t *testing.T) {
	t.Parallel()
	mixed := Behaviour{React: map[Answer]Reaction{NotFoundRPC: Retries, NotFoundText: Stuck, BadRequest: Hangs}}
	tests := []struct {
		name  string
		b     Behaviour
		a     Answer
		want  Reaction
		heals bool
	}{
		{"Codex after a JSON-RPC 404", CodexCLI().Behaviour, NotFoundRPC, Retries, true},
		{"Codex after a plain 404", CodexCLI().Behaviour, NotFoundText, Retries, true},
		{"Codex after the 400 quirk", CodexCLI().Behaviour, BadRequest, Hangs, false},
		{"Codex, answer not known", CodexCLI().Behaviour, "", Retries, true},
		{"Qwen Code fails the call that met the loss", QwenCode().Behaviour, BadRequest, Reinitializes, true},
		{"Gemini CLI", GeminiCLI().Behaviour, NotFoundRPC, Stuck, false},
		{"the two 404s differ, answer not known", mixed, "", Unknown, false},
		{"a host nobody measured", Windsurf().Behaviour, NotFoundText, Unknown, false},
	}
	for _, tt := range tests {
		if got := tt.b.On(tt.a); got != tt.want || tt.b.Heals(tt.a) != tt.heals {
			t.Errorf("%s: On = %q, Heals = %v; want %q, %v", tt.name, got, tt.b.Heals(tt.a), tt.want, tt.heals)
		}
	}
	if got := CodexCLI().Behaviour.Healed(); got != "a 404 with a JSON-RPC error or a plain-text 404" {
		t.Errorf("Healed = %q", got)
	}
	if got := mixed.Summary(); got != "404 json-rpc: retries, 404 text: stuck, 400: hangs" {
		t.Errorf("Summary = %q", got)
	}
}

func TestAnswerOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		rpc    bool
		want   Answer
	}{{404, true, NotFoundRPC}, {404, false, NotFoundText}, {400, true, BadRequest}, {400, false, BadRequest}, {200, false, ""}, {0, false, ""}}
	for _, tt := range tests {
		a := AnswerOf(tt.status, tt.rpc)
		if a != tt.want || a != "" && (a.Status() != tt.status || AnswerOfStatus(a.Status(), a.Body()) != a) {
			t.Errorf("AnswerOf(%d, %v) = %q (status %d, body %q); want %q", tt.status, tt.rpc, a, a.Status(), a.Body(), tt.want)
		}
	}
}

func TestClientMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"opencode", "opencode", true}, {"opencode", "opencode-x", false},
		{QwenCode().ClientName, "qwen-cli-mcp-client-mem", true}, {QwenCode().ClientName, "qwen-cli", false},
		{"*", "anything", false}, {"", "", false},
	}
	for _, tt := range tests {
		if got := ClientMatch(tt.pattern, tt.name); got != tt.want {
			t.Errorf("ClientMatch(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
}

// TestLayoutOf: each file of a host is read through its own layout: a
// project's shared .mcp.json in Claude Code's shape, VS Code's own
// mcp.json (servers) beside Copilot CLI's file (mcpServers), Kilo Code's
// older files.
func TestLayoutOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p     Profile
		file  string
		table string
	}{
		{VSCode(), "/home/u/.config/Code/User/mcp.json", "servers"},
		{VSCode(), "/home/u/.copilot/mcp-config.json", "mcpServers"},
		{VSCode(), "/home/u/proj/.mcp.json", "mcpServers"},
		{VSCode(), "/home/u/proj/.vscode/mcp.json", "servers"},
		{KiloCode(), "/home/u/.config/kilo/kilo.jsonc", "mcp"},
		{KiloCode(), "/home/u/.kilocode/cli/global/settings/mcp_settings.json", "mcpServers"},
		{QwenCode(), "/home/u/proj/.mcp.json", "mcpServers"},
		{Continue(), "/home/u/.continue/mcpServers/a.json", "mcpServers"},
	}
	for _, tt := range tests {
		l := tt.p.LayoutOf(tt.file)
		got := ""
		if len(l.Tables) > 0 {
			got = l.Tables[0][0]
		}
		if got != tt.table {
			t.Errorf("%s: %s read through table %q, want %q", tt.p.Name, tt.file, got, tt.table)
		}
	}
	if l := Continue().LayoutOf("/home/u/.continue/config.yaml"); len(l.Lists) != 1 || l.NameKey != "name" {
		t.Errorf("Continue's config.yaml: %+v, want its list of servers", l)
	}
}

// TestStdioReactions: what each host does when its stdio server dies, as
// measured on 2026-12-07 (killed -9 between two calls); the others are
// taken as stuck and say nobody measured them.
func TestStdioReactions(t *testing.T) {
	t.Parallel()
	want := map[string]Reaction{"Codex CLI": Stuck, "Gemini CLI": Stuck, "opencode": Stuck, "Copilot CLI": Stuck, "Cline": Stuck,
		"Qwen Code": Reinitializes, "DSH": Retries, "Claude Code": Retries}
	for _, p := range Profiles() {
		st := p.Behaviour.Stdio
		r, measured := want[p.Name]
		switch {
		case measured && (st.On != r || st.Measured == ""):
			t.Errorf("%s: stdio %+v; want %q, measured", p.Name, st, r)
		case !measured && (st.On != Unknown || st.Measured != "" || !strings.Contains(st.Note, "not measured")):
			t.Errorf("%s: stdio %+v; want not measured, taken as stuck", p.Name, st)
		case st.Heals() != (r == Retries || r == Reinitializes):
			t.Errorf("%s: Heals() = %v", p.Name, st.Heals())
		}
	}
	for r, words := range map[Reaction]string{Stuck: "never starts it again", Reinitializes: "fails that call", Retries: "the next call works",
		Unknown: "taken as stuck"} {
		if got := (StdioReaction{On: r}).Words(); !strings.Contains(got, words) {
			t.Errorf("%q: %q, want it to say %q", r, got, words)
		}
	}
}
