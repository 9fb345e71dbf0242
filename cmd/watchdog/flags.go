package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/internal/daemon"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// common holds the flags every command shares.
type common struct {
	configPath string
	stateDir   string
	json       bool
}

func newFlagSet(name string, c cli, co *common) *flag.FlagSet {
	fs := flag.NewFlagSet("watchdog "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.StringVar(&co.configPath, "config", c.getenv("WATCHDOG_CONFIG"), "config file (env WATCHDOG_CONFIG)")
	fs.StringVar(&co.stateDir, "state-dir", "", "state directory (env WATCHDOG_STATE_DIR)")
	fs.BoolVar(&co.json, "json", false, "print JSON")
	return fs
}

// parseInterspersed parses flags that may follow positional arguments
// (`watchdog scan a.log b.log --json`) and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// usageErr reports a flag error (already printed by the flag package,
// except for help) as exit 2.
func usageErr(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// loadConfig loads the config and resolves the state directory, printing a
// contract-style error (file, line, key) on failure.
func loadConfig(c cli, co common) (config.Config, string, int) {
	cfg, err := config.Load(co.configPath)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		if errors.Is(err, config.ErrInvalid) {
			return cfg, "", exitUsage
		}
		return cfg, "", exitFailed
	}
	dir, err := config.ResolveStateDir(co.stateDir, c.getenv("WATCHDOG_STATE_DIR"), cfg.StateDir)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: state directory: %v\n", err)
		return cfg, "", exitUsage
	}
	return cfg, dir, exitOK
}

// loadAsFound is loadConfig, or with no config file the machine as found
// (what the daemon watches then).
func loadAsFound(ctx context.Context, c cli, co common) (config.Config, string, int) {
	cfg, stateDir, code := loadConfig(c, co)
	if code != exitOK {
		return cfg, stateDir, code
	}
	cfg, err := daemon.OrMachine(ctx, cfg, stateDir, findOptions(c, nil))
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog: %v\n", err)
		return cfg, stateDir, exitFailed
	}
	return cfg, stateDir, exitOK
}

// writeJSON prints v as indented JSON. Values keep their true text, but
// characters encoding/json leaves raw that a terminal would act on (bidi
// and C1 controls) are written as \uNNNN escapes (textsafe.JSON).
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(textsafe.JSON(b.Bytes()))
	return err
}

// writeRawJSON prints a JSON document as received (the daemon's), with
// the same escapes as writeJSON.
func writeRawJSON(w io.Writer, raw []byte) {
	fmt.Fprintln(w, string(textsafe.JSON(raw)))
}

// given says whether the flag name was on the command line (a zero value
// given is not the default left alone).
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
