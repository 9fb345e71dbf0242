package proc

import (
	"path/filepath"
	"slices"
	"strings"
)

// A process is the host by what it runs, never because an argument
// mentions the name: `npm install @scope/dsh`, `less ~/.dsh/x` and
// `tail -f dsh.log` all carry "dsh" and none of them is DSH.

// interpreter describes how one interpreter's command line names the
// script it runs.
type interpreter struct {
	// valued lists the options whose value is the next argument, so that
	// value is not taken for the script.
	valued []string
	// inline lists the options that run code given on the command line:
	// after one, no script file follows.
	inline []string
	// module is the option naming a module to run in place of a script
	// (python -m); "" when there is none.
	module string
	// sub is a subcommand that may come before the script (deno run,
	// bun run); skipped when present.
	sub string
}

// interpreterOf returns how the program named base (argv[0]'s base) names
// its script, or false when it is not an interpreter.
// Built on each call, not kept in package variables: they would be
// mutable state shared by every caller.
//
// Long: one table row per interpreter family, written out.
func interpreterOf(base string) (interpreter, bool) {
	switch base {
	case "node", "nodejs":
		return interpreter{
			valued: []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions",
				"--title", "--env-file", "--env-file-if-exists", "--inspect-port", "--input-type", "--stack-size"},
			inline: []string{"-e", "--eval", "-p", "--print"},
		}, true
	case "deno":
		return interpreter{
			valued: []string{"-c", "--config", "--import-map", "--cert", "--location", "--seed", "--ext", "-L", "--log-level"},
			inline: []string{"eval"},
			sub:    "run",
		}, true
	case "bun":
		return interpreter{
			valued: []string{"--cwd", "-r", "--preload", "--env-file", "--tsconfig-override", "--port", "-c", "--config"},
			inline: []string{"-e", "--eval", "-p", "--print"},
			sub:    "run",
		}, true
	case "sh", "bash", "dash", "zsh", "ksh":
		return interpreter{valued: []string{"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}, inline: []string{"-c"}}, true
	}
	for _, p := range []string{"python", "pypy"} {
		// python, python3, python3.12, python3.13t, pypy3 ...
		if v, ok := strings.CutPrefix(base, p); ok && strings.Trim(strings.TrimSuffix(v, "t"), "0123456789.") == "" {
			return interpreter{valued: []string{"-W", "-X", "-Q"}, inline: []string{"-c"}, module: "-m"}, true
		}
	}
	return interpreter{}, false
}

// runsAs reports whether a process with command line args runs as name:
// the base of argv[0] is name, or argv[0] is an interpreter whose script's
// base is name (with or without a script extension). A process that
// rewrote its command line into one string with spaces (Node's
// process.title does) is read both whole and split at the spaces.
func runsAs(args []string, name string) bool {
	if len(args) == 0 || name == "" {
		return false
	}
	if argvRunsAs(args, name) {
		return true
	}
	if rest := strings.Join(args[1:], ""); rest == "" && strings.ContainsRune(args[0], ' ') {
		return argvRunsAs(strings.Fields(args[0]), name)
	}
	return false
}

func argvRunsAs(args []string, name string) bool {
	if len(args) == 0 {
		return false
	}
	exe := filepath.Base(args[0])
	if exe == name {
		return true
	}
	in, ok := interpreterOf(exe)
	if !ok {
		return false
	}
	script, isModule := in.script(args[1:])
	if isModule {
		return script == name
	}
	return script != "" && scriptIs(filepath.Base(script), name)
}

// scriptIs reports whether a script's base is name, bare or with a script
// extension.
func scriptIs(base, name string) bool {
	if base == name {
		return true
	}
	switch ext := filepath.Ext(base); ext {
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".sh":
		return strings.TrimSuffix(base, ext) == name
	}
	return false
}

// script finds the script among an interpreter's arguments: the first
// argument that is neither an option nor an option's value ("" when code
// is given inline or none is there). isModule: it names a module (-m).
func (in interpreter) script(args []string) (script string, isModule bool) {
	subSeen := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1], false
			}
			return "", false
		case in.module != "" && a == in.module:
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case slices.Contains(in.inline, a):
			return "", false
		case slices.Contains(in.valued, a):
			i++ // its value
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			// a flag, or an option with its value after "=".
		case isNumber(a):
			// The value of an option written without "=" that this table
			// does not list (--max-old-space-size 4096): no script is
			// called by a number.
		case in.sub != "" && a == in.sub && !subSeen:
			subSeen = true
		default:
			return a, false
		}
	}
	return "", false
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// commIs reports whether the kernel's name of a process, comm, is name.
// The kernel keeps only its first 15 bytes (16 on macOS): a comm that long
// matches a longer name it begins.
func commIs(comm, name string) bool {
	const commMax = 15
	if comm == "" {
		return false
	}
	return comm == name || (len(comm) >= commMax && len(name) > len(comm) && strings.HasPrefix(name, comm))
}
