// Package hostsview is `watchdog hosts` as a document: every host found,
// its files (each a scope the host reads) and each server's protection,
// built from what internal/host/find found and internal/host/judge judged, and written for a
// person or as JSON. It does no I/O but the writing.
package hostsview

import (
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
	Name    string         `json:"name"`
	Running bool           `json:"running"`
	PID     int32          `json:"pid,omitempty"`
	OnLoss  host.Behaviour `json:"on_loss"`
	Files   []File         `json:"files"`
	Servers []Server       `json:"servers"`
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
	Name       string           `json:"name"`
	File       string           `json:"file"`
	Scope      string           `json:"scope"`
	Transport  host.Transport   `json:"transport"`
	URL        string           `json:"url,omitempty"` // redacted
	Protection judge.Protection `json:"protection"`
	Upstream   string           `json:"upstream,omitempty"` // redacted
	Why        string           `json:"why"`
	Fix        string           `json:"fix,omitempty"`
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
		h := Host{Name: f.Profile.Name, Running: f.Running, PID: f.PID, OnLoss: f.Profile.OnLoss, Files: []File{}, Servers: []Server{}}
		for _, file := range f.Files {
			fd := File{Path: file.Path, Scope: file.Scope.String(), Ignored: file.Ignored, Note: file.Note}
			if file.Err != nil {
				fd.Error = file.Err.Error()
			}
			h.Files = append(h.Files, fd)
			for _, s := range file.Servers {
				v := judge.Protect(f.Profile, s, facts[f.Profile.Name])
				h.Servers = append(h.Servers, Server{Name: s.Name, File: file.Path, Scope: file.ScopeOf(f.Profile, s).String(),
					Transport: s.Transport, URL: redact(s.URL), Protection: v.Protection, Upstream: redact(v.Upstream), Why: v.Why,
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
		fmt.Fprintf(w, "%s (%s; on a lost session: %s)\n", esc(h.Name), state, h.OnLoss)
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
	fmt.Fprintf(w, "    %-16s %-15s %-13s %s\n", esc(s.Name), s.Transport, s.Protection, esc(s.URL))
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
