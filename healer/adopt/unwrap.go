package adopt

import (
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
)

// unwrapOne decides for one wrapped stdio entry: its own command put
// back byte for byte where the entry still names its wrapper, forgotten,
// or left (a command the user changed since is named and kept). Its
// wrapper goes once nothing refers to it.
func (ch *change) unwrapOne(o *Options, st *state, file string, rs ServerRecord) {
	say := func(format string, args ...any) {
		ch.res.Lines = append(ch.res.Lines, rs.Name+": "+fmt.Sprintf(format, args...))
	}
	forget := func() {
		st.rec.forget(o.Host.Name, file, rs.Path)
		ch.unwrap = append(ch.unwrap, wrapperWrite{path: rs.Wrapper, server: rs.Name, file: file})
	}
	force := "`watchdog hosts release " + shellWord(o.Host.Name) + " --server " + shellWord(rs.Name) + " --force` forgets it"
	fi := st.fileOf(file)
	f := st.files[fi]
	if f.err != nil {
		if o.Force {
			st.rec.forget(o.Host.Name, file, rs.Path) // its file may still name the wrapper: it stays
			say("forgotten (--force): %v; its wrapper %s stays", f.err, rs.Wrapper)
		} else {
			say("left as it is: %v; fix the file and release again, or %s", f.err, force)
		}
		return
	}
	cur, now, ok := hostfile.ValueAt(f.servers, rs.Path)
	switch {
	case !ok:
		forget()
		say("gone from %s: nothing to put back", file)
	case now == rs.Wrapper:
		forget()
		ch.edits[fi] = append(ch.edits[fi], fileEdit{Edit: hostfile.Edit{Path: rs.Path, From: now, To: rs.Command, Literal: rs.Literal},
			name: rs.Name, back: cur.CommandLiteral})
		say("back to its own command, %s", rs.Command)
	case now == rs.Command:
		forget()
		say("already back to its own command")
	case o.Force:
		forget()
		say("left alone: its command at %s line %d was changed since adopt (to %s); forgotten (--force)", file, cur.CommandLine, now)
	default:
		say("left alone: its command at %s line %d was changed since adopt (to %s); the record keeps it: %s", file, cur.CommandLine, now, force)
	}
}

// commandWrittenBack plans putting back the command of a stdio entry
// released before that names its wrapper again (the host wrote back a
// copy it read before that release), and reports whether it did.
func (ch *change) commandWrittenBack(o *Options, st *state, fi int, s hostfile.Server) bool {
	file := st.files[fi].snap.Path
	if s.Command == "" {
		return false
	}
	if _, active := st.rec.find(o.Host.Name, file, s.CommandPath, ""); active {
		return false
	}
	rs, ok := st.rec.wasReleased(o.Host.Name, file, s.CommandPath, "")
	if !ok || rs.Wrapper == "" || rs.Wrapper != s.Command {
		return false
	}
	ch.edits[fi] = append(ch.edits[fi], fileEdit{Edit: hostfile.Edit{Path: s.CommandPath, From: s.Command, To: rs.Command, Literal: rs.Literal},
		name: s.Name, back: s.CommandLiteral})
	ch.res.Lines = append(ch.res.Lines, s.Name+": back to its own command (it named its wrapper again: the host wrote back a copy it read before it was released)")
	return true
}
