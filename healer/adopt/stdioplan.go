package adopt

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	hostjudge "github.com/mcpwatchdog/watchdog/internal/host/judge"
)

// wrapPlan is what adopt does for one stdio entry: the wrapper it
// writes (or keeps), and the entry's command pointed at it.
type wrapPlan struct {
	path   string // the wrapper's, absolute
	script []byte
	// command is the server's own; literal its bytes in the host's file
	// ("" when not known: release writes a literal of command).
	command, literal string
	// edit: the entry's command becomes path (else it names it already).
	edit bool
}

// judgeStdio decides what adopt does with a stdio entry: wrap it, mend
// its wrapper, keep it, or leave it (and why).
func judgeStdio(o *Options, st *state, p pick) pick {
	s, file := p.server, st.files[p.file].snap.Path
	named := slices.Contains(o.Servers, s.Name)
	refuse := func(why string) pick {
		p.why = why
		return refuseIfNamed(st, p, named, "")
	}
	switch {
	case hostjudge.RunsWatchdogStdio(s):
		p.why = "it runs under `watchdog stdio` already"
		return p
	case s.Command == "":
		p.quiet = !named // nothing to say of an entry that runs nothing adopt can name
		return refuse("the entry names no command adopt can run under `watchdog stdio`: give it one, then adopt again")
	case !s.CommandEditable:
		return refuse("its command is written in a way adopt cannot rewrite in place (a YAML block, or a value over several lines): write it on one line, then adopt again")
	case o.watchdogErr != nil:
		return refuse(fmt.Sprintf("the watchdog's own binary cannot be found (%v), and a wrapper must name it: run adopt from the installed watchdog", o.watchdogErr))
	}
	cmd, lit, wrapperAt, why := wrappedBy(o, st, file, s)
	switch {
	case why != "":
		return refuse(why)
	case wrapperAt == "":
		path := wrapperPath(o.stateAbs, o.Host.Name, s.Name, file, s.CommandPath)
		p.verdict, p.wrap = wrapIt, &wrapPlan{path: path, script: o.wrapper(s.Name, s.Command).script(),
			command: s.Command, literal: s.CommandLiteral, edit: true}
		return p
	}
	want := o.wrapper(s.Name, cmd).script()
	cur, err := readWrapper(wrapperAt)
	if err != nil {
		return refuse(fmt.Sprintf("its wrapper %s cannot be read: %v; make it a file adopt can read, or remove it, then adopt again", wrapperAt, err))
	}
	p.wrap = &wrapPlan{path: wrapperAt, script: want, command: cmd, literal: lit}
	switch wd, _, _ := parseWrapper(cur); {
	case bytes.Equal(cur, want):
		p.verdict = wrapped
	case cur == nil:
		p.verdict, p.why = rewrap, "repaired: its wrapper was gone (the host could not start the server)"
	case wd != o.Watchdog && !executable(wd):
		p.verdict, p.why = rewrap, "repaired: its wrapper ran the watchdog at "+wd+", which is gone (the server ran unsupervised)"
	default:
		p.verdict, p.why = rewrap, "repaired: its wrapper was out of date"
	}
	return p
}

// wrappedBy says, for an entry whose command names a wrapper, the
// server's own command and its literal (from adopt's record, its history
// of released entries, or the wrapper itself) and the wrapper's path;
// wrapper "" when the command is no wrapper; why when it is one adopt
// cannot take back.
func wrappedBy(o *Options, st *state, file string, s hostfile.Server) (cmd, lit, wrapper, why string) {
	if rs, ok := st.rec.find(o.Host.Name, file, s.CommandPath, ""); ok && rs.Wrapper == s.Command {
		return rs.Command, rs.Literal, rs.Wrapper, ""
	}
	if rs, ok := st.rec.wasReleased(o.Host.Name, file, s.CommandPath, ""); ok && rs.Wrapper == s.Command {
		return rs.Command, rs.Literal, rs.Wrapper, ""
	}
	if !filepath.IsAbs(s.Command) {
		return "", "", "", ""
	}
	data, _ := readWrapper(s.Command)
	_, own, isWrapper := parseWrapper(data)
	ours := inWrappers(o.stateAbs, s.Command)
	switch {
	case isWrapper && ours:
		return own, "", s.Command, ""
	case isWrapper:
		return "", "", "", fmt.Sprintf("its command at %s line %d is a wrapper of another watchdog state directory (%s): release it with that --state-dir",
			file, s.CommandLine, s.Command)
	case ours:
		return "", "", "", fmt.Sprintf("its command at %s line %d names a watchdog wrapper, %s, that is gone and that adopt's record does not know: "+
			"put the server's own command back there, then adopt again", file, s.CommandLine, s.Command)
	}
	return "", "", "", ""
}

// wrapper is the wrapper of the host's stdio server named server, whose
// own command is command.
func (o *Options) wrapper(server, command string) wrapper {
	return wrapper{host: o.Host.Name, server: server, watchdog: o.Watchdog, stateDir: o.stateAbs, command: command}
}

// planWrap plans one wrapped entry: its wrapper written, its command
// rewritten, and the record.
func (ch *change) planWrap(o *Options, st *state, p pick) {
	w := p.wrap
	if p.verdict == rewrap || p.verdict == wrapIt {
		ch.wrappers = append(ch.wrappers, wrapperWrite{path: w.path, data: w.script, server: p.server.Name, file: st.files[p.file].snap.Path})
	}
	if w.edit {
		ch.edits[p.file] = append(ch.edits[p.file], fileEdit{Edit: hostfile.Edit{Path: p.server.CommandPath, From: p.server.Command, To: w.path},
			name: p.server.Name, back: p.server.CommandLiteral})
	}
	file := st.files[p.file].snap.Path
	if rs, ok := st.rec.find(o.Host.Name, file, p.server.CommandPath, ""); ok && p.verdict == wrapped && rs.Wrapper == w.path && rs.Name == p.server.Name {
		return // recorded as it is
	}
	st.rec.put(o.Host.Name, file, "", ServerRecord{Name: p.server.Name, Path: p.server.CommandPath, Command: w.command, Literal: w.literal, Wrapper: w.path})
}

// wrapLine says what became of a wrapped entry.
func (p pick) wrapLine() string {
	line := p.server.Name + ": "
	switch p.verdict {
	case wrapped:
		return line + "already runs under `watchdog stdio`"
	case rewrap:
		line += p.why + "; "
	}
	return line + "now runs under `watchdog stdio`, which starts it again when it dies (its command is the wrapper " + p.wrap.path + ")"
}
