package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// environ is what expansion reads from the process, injectable for tests.
type environ struct {
	getenv func(string) string
	home   func() (string, error)
}

func osEnv() environ { return environ{getenv: os.Getenv, home: os.UserHomeDir} }

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// errUnset is wrapped by expansion errors about a variable that is not set.
var errUnset = errors.New("not set")

// expandVars replaces each ${NAME} with getenv(NAME). An unset or empty
// variable, a bad name or an unterminated ${ is an error that names the
// variable, never any value.
func expandVars(s string, getenv func(string) string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", errors.New(`unterminated "${"; write ${NAME}`)
		}
		name := s[i+2 : i+end]
		if !envName.MatchString(name) {
			return "", fmt.Errorf("%s is not a variable name; write ${NAME} with letters, digits and _", strconv.Quote("${"+name+"}"))
		}
		v := getenv(name)
		if v == "" {
			return "", fmt.Errorf("${%s} is %w (or empty); set it in the watchdog's environment or write the value out", name, errUnset)
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

// expandPath expands a leading ~ and then ${NAME}s, and cleans the result
// when anything was expanded (a variable's value may end in a slash).
func expandPath(p string, env environ) (string, error) {
	orig := p
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := env.home()
		if err != nil || home == "" {
			return "", fmt.Errorf("%q starts with ~ but the home directory is unknown (%v); write the full path", p, err)
		}
		p = home + p[1:]
	}
	p, err := expandVars(p, env.getenv)
	if err != nil || p == orig {
		return p, err
	}
	return filepath.Clean(p), nil
}

// expandPaths expands every path the config holds (see the package doc for
// which); headers and restart stay as written.
func (c *Config) expandPaths(env environ) error {
	p := problems{file: c.Path, index: c.index}
	one := func(key string, v *string) {
		if *v == "" {
			return
		}
		out, err := expandPath(*v, env)
		if err != nil {
			p.addErr(key, err)
			return
		}
		*v = out
	}
	list := func(key string, vs []string) {
		for i := range vs {
			one(key+"["+strconv.Itoa(i)+"]", &vs[i])
		}
	}
	one("state_dir", &c.StateDir)
	for i := range c.Hosts {
		h, key := &c.Hosts[i], c.HostKey(i)
		list(key+".logs", h.Logs)
		one(key+".client_module", &h.ClientModule)
	}
	for i := range c.Servers {
		s := &c.Servers[i]
		key := "server[" + strconv.Itoa(i) + "]"
		list(key+".logs", s.Logs)
		one(key+".store", &s.Store)
	}
	return p.err()
}

// ExpandedHeaders returns the server's headers with each ${ENV_VAR} in a
// value replaced by getenv's answer. An unset or empty variable is an error
// naming the header and the variable; values never appear in errors. The
// result is a new map; the server is left as it is.
func (s Server) ExpandedHeaders(getenv func(string) string) (map[string]string, error) {
	out := make(map[string]string, len(s.Headers))
	var errs []error
	for _, name := range sortedKeys(s.Headers) {
		v, err := expandVars(s.Headers[name], getenv)
		if err == nil && hasControl(v) {
			err = errors.New("the value contains a control character (a line break?) after expansion")
		}
		if err != nil {
			errs = append(errs, &Error{
				Key: "server " + strconv.Quote(s.Name) + ": header " + name,
				Msg: err.Error(), Err: err,
			})
			continue
		}
		out[name] = v
	}
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// hasControl reports a control character other than tab, which would break
// an HTTP header.
func hasControl(s string) bool {
	for _, r := range s {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			return true
		}
	}
	return false
}
