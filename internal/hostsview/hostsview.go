// Package hostsview is `watchdog hosts` as a document: every host found,
// its files (each a scope the host reads) and each server's protection,
// built from what internal/host/find found and internal/host/judge judged, and written for a
// person or as JSON. It does no I/O but the writing.
package hostsview

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/find"
	"github.com/mcpwatchdog/watchdog/internal/host/judge"
	"github.com/mcpwatchdog/watchdog/internal/mask"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// Doc is `watchdog hosts --json`.
type Doc struct {
	Hosts []Host `json:"hosts"`
}

// Host is one host found.
type Host struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
	PID     int32  `json:"pid,omitempty"`
	// OnLoss is what the host does after each answer a server gives for
	// a lost session.
	OnLoss OnLoss `json:"on_loss"`
	// OnStdioDeath is what the host does when one of its stdio servers
	// dies.
	OnStdioDeath OnStdioDeath `json:"on_stdio_death"`
	// OneShot: the host runs one process per prompt.
	OneShot bool     `json:"one_shot,omitempty"`
	Files   []File   `json:"files"`
	Servers []Server `json:"servers"`
}

// OnLoss is a host's behaviour table: per answer (a 404 with a JSON-RPC
// error, a plain-text 404, a 400) what it does: stuck, hangs,
// reinitializes (the call that met the loss fails), retries, or unknown.
type OnLoss struct {
	NotFoundRPC  string `json:"404_json_rpc"`
	NotFoundText string `json:"404_text"`
	BadRequest   string `json:"400"`
	// Measured is the host's version it was measured on; absent when the
	// table comes from its sources (Note says whence).
	Measured string `json:"measured,omitempty"`
	Note     string `json:"note,omitempty"`
}

// onLossOf is a profile's behaviour as the document says it.
func onLossOf(b host.Behaviour) OnLoss {
	word := func(r host.Reaction) string {
		if r == host.Unknown {
			return "unknown"
		}
		return string(r)
	}
	return OnLoss{NotFoundRPC: word(b.On(host.NotFoundRPC)), NotFoundText: word(b.On(host.NotFoundText)), BadRequest: word(b.On(host.BadRequest)),
		Measured: b.Measured, Note: b.Note}
}

// OnStdioDeath is what a host does when its stdio server dies: stuck (it
// never starts it again), reinitializes (it starts it again at the next
// call, and fails that call), retries (it starts it again, and the next
// call works), or unknown (taken as stuck).
type OnStdioDeath struct {
	Reaction string `json:"reaction"`
	Words    string `json:"words"`
	// Measured is the host's version it was measured on; absent when
	// nobody measured it (Note says so).
	Measured string `json:"measured,omitempty"`
	Note     string `json:"note,omitempty"`
}

func onStdioDeathOf(st host.StdioReaction) OnStdioDeath {
	return OnStdioDeath{Reaction: st.Word(), Words: st.Words(), Measured: st.Measured, Note: st.Note}
}

// line is the reaction as the listing says it.
func (o OnStdioDeath) line() string {
	if o.Measured != "" {
		return o.Words + " (measured on " + o.Measured + ")"
	}
	return o.Words
}

// File is one of a host's config files.
type File struct {
	Path  string `json:"path"`
	Scope string `json:"scope"`
	// Ignored says why the host does not read the file; Note what else
	// to know of its scope.
	Ignored string `json:"ignored,omitempty"`
	Note    string `json:"note,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Server is one server entry, in the file (and scope) it is in.
type Server struct {
	Name      string         `json:"name"`
	File      string         `json:"file"`
	Scope     string         `json:"scope"`
	Transport host.Transport `json:"transport"`
	URL       string         `json:"url,omitempty"` // redacted
	// Command is what a stdio entry runs (its arguments are not shown:
	// they may hold secrets).
	Command    string           `json:"command,omitempty"`
	Protection judge.Protection `json:"protection"`
	// LostAnswer is how the server answers a lost session, when known:
	// what its protection was judged by.
	LostAnswer host.Answer `json:"lost_answer,omitempty"`
	Upstream   string      `json:"upstream,omitempty"` // redacted
	Why        string      `json:"why"`
	Fix        string      `json:"fix,omitempty"`
	// Shadowed names the scopes whose entry of the same name the host
	// uses instead of this one there; "" when the host uses this one.
	Shadowed string `json:"shadowed_by,omitempty"`
}

// Build is the document of the hosts found, judged with facts (per host
// name); redact shows a URL without its credentials and proxy secret.
func Build(found []find.Found, facts map[string]judge.Facts, redact func(string) string) Doc {
	if redact == nil {
		redact = mask.URL
	}
	doc := Doc{Hosts: []Host{}}
	for _, f := range found {
		h := Host{Name: f.Profile.Name, Running: f.Running, PID: f.PID, OnLoss: onLossOf(f.Profile.Behaviour), OneShot: f.Profile.OneShot,
			OnStdioDeath: onStdioDeathOf(f.Profile.Behaviour.Stdio), Files: []File{}, Servers: []Server{}}
		for _, file := range f.Files {
			fd := File{Path: file.Path, Scope: file.Scope.String(), Ignored: file.Ignored, Note: file.Note}
			if file.Err != nil {
				fd.Error = file.Err.Error()
			}
			h.Files = append(h.Files, fd)
			for _, s := range file.Servers {
				v := judge.Protect(f.Profile, s, facts[f.Profile.Name])
				h.Servers = append(h.Servers, Server{Name: s.Name, File: file.Path, Scope: file.ScopeOf(f.Profile, s).String(),
					Transport: s.Transport, URL: redact(s.URL), Command: s.Command, Protection: v.Protection, LostAnswer: facts[f.Profile.Name].LostAnswer[s.URL],
					Upstream: redact(v.Upstream), Why: v.Why,
					Fix: v.Fix, Shadowed: f.ShadowedBy(file, s)})
			}
		}
		doc.Hosts = append(doc.Hosts, h)
	}
	return doc
}

// WriteText writes the document for a person. Everything that came from
// a file or a server is escaped (textsafe.Escape).
func (d Doc) WriteText(w io.Writer) {
	esc := textsafe.Escape
	if len(d.Hosts) == 0 {
		fmt.Fprintln(w, "no MCP host found on this machine (looked for: "+esc(strings.Join(host.Names(), ", "))+")")
		return
	}
	for _, h := range d.Hosts {
		state := "not running"
		if h.Running {
			state = fmt.Sprintf("running, pid %d", h.PID)
		}
		fmt.Fprintf(w, "%s (%s; after a lost session: %s)\n", esc(h.Name), state, h.OnLoss.summary())
		if h.hasStdio() {
			fmt.Fprintf(w, "  when a stdio server dies, it %s\n", esc(h.OnStdioDeath.line()))
		}
		for _, f := range h.Files {
			fmt.Fprintf(w, "  %s: %s\n", esc(f.Scope), esc(f.Path))
			for _, note := range []string{f.Error, f.Ignored, f.Note} {
				if note != "" {
					fmt.Fprintf(w, "    (%s)\n", esc(note))
				}
			}
			for _, s := range h.Servers {
				if s.File == f.Path {
					s.writeText(w, f.Scope)
				}
			}
		}
	}
}

func (s Server) writeText(w io.Writer, fileScope string) {
	esc := textsafe.Escape
	fmt.Fprintf(w, "    %-16s %-15s %-13s %s\n", esc(s.Name), s.Transport, s.Protection, esc(cmp.Or(s.URL, s.Command)))
	if s.Scope != fileScope {
		fmt.Fprintf(w, "    %16s %s scope\n", "", esc(s.Scope))
	}
	why := s.Why
	if s.Upstream != "" {
		why += ", for " + s.Upstream
	}
	fmt.Fprintf(w, "    %16s %s\n", "", esc(why))
	if s.Shadowed != "" {
		fmt.Fprintf(w, "    %16s not used in %s: the host takes the entry of the same name there\n", "", esc(s.Shadowed))
	}
	if s.Fix != "" {
		fmt.Fprintf(w, "    %16s mend it: %s\n", "", esc(s.Fix))
	}
}

// summary is the table on one line: "404 json-rpc retries, 404 text
// retries, 400 hangs (measured on 0.169.0)".
func (o OnLoss) summary() string {
	out := fmt.Sprintf("%s %s, %s %s, %s %s", host.NotFoundRPC, o.NotFoundRPC, host.NotFoundText, o.NotFoundText, host.BadRequest, o.BadRequest)
	if o.Measured != "" {
		return out + " (measured on " + o.Measured + ")"
	}
	return out + " (from its sources)"
}

// hasStdio reports whether the host has a stdio server in its files.
func (h Host) hasStdio() bool {
	for _, s := range h.Servers {
		if s.Transport == host.Stdio {
			return true
		}
	}
	return false
}
