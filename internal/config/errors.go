package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by every error about the config (a missing or
// unreadable file, malformed TOML, an unknown key, a bad value, an unset
// variable), so that callers can map them to exit code 2.
var ErrInvalid = errors.New("invalid config")

// Error is one problem in the config, located as precisely as known.
type Error struct {
	File string // the file as given to Load; "" when not read from a file
	Line int    // 1-based; 0 when unknown
	Col  int    // 1-based; 0 when unknown (set for parser errors only)
	Key  string // e.g. "server[1].url"; "" when not about one key
	Msg  string // what is wrong and what to do
	Err  error  // underlying cause, may be nil
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("config")
	}
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteString(":" + strconv.Itoa(e.Col))
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrInvalid and the cause, if any.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.Err}
}

// maxReported caps how many problems one error lists, so that a file that
// is not a config at all does not produce pages of output.
const maxReported = 20

// joinErrors returns nil, the only error, or the first maxReported joined
// with a note of how many more there are. total, when given, is the number
// of problems found when errs holds only the first of them.
func joinErrors(errs []error, total ...int) error {
	n := len(errs)
	if len(total) > 0 {
		n = max(n, total[0])
	}
	switch {
	case len(errs) == 0:
		return nil
	case n == 1:
		return errs[0]
	case n > maxReported:
		errs = append(errs[:min(len(errs), maxReported):maxReported],
			fmt.Errorf("%w: and %d more problems", ErrInvalid, n-maxReported))
	}
	return errors.Join(errs...)
}

// problems collects Errors against one config, filling in file and line.
type problems struct {
	file  string
	index *keyIndex
	errs  []error
}

func (p *problems) add(key, format string, args ...any) {
	p.errs = append(p.errs, &Error{
		File: p.file,
		Line: p.index.line(key),
		Key:  key,
		Msg:  fmt.Sprintf(format, args...),
	})
}

func (p *problems) addErr(key string, err error) {
	p.errs = append(p.errs, &Error{
		File: p.file,
		Line: p.index.line(key),
		Key:  key,
		Msg:  err.Error(),
		Err:  err,
	})
}

// err returns the problems in file order; those without a line (values
// from the defaults) come last.
func (p *problems) err() error {
	slices.SortStableFunc(p.errs, func(a, b error) int {
		return cmp.Compare(sortLine(a), sortLine(b))
	})
	return joinErrors(p.errs)
}

func sortLine(err error) int {
	var e *Error
	if errors.As(err, &e) && e.Line > 0 {
		return e.Line
	}
	return math.MaxInt
}
