package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
	"github.com/mcpwatchdog/watchdog/monitor/probe"
)

// cmdProbe classifies one MCP endpoint. Headers and allow_insecure come
// from the config's server with the same URL, if there is one. It exits 1
// when the endpoint could not be classified, including when nothing it
// sent was a JSON-RPC answer (probe.ErrNoAnswer).
func cmdProbe(ctx context.Context, c cli, args []string) int {
	var co common
	fs := newFlagSet("probe", c, &co)
	insecure := fs.Bool("allow-insecure", false, "allow plain http:// to a host that is not loopback")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(c.stderr, "watchdog probe: name exactly one URL, e.g. http://127.0.0.1:14242/mcp")
		return exitUsage
	}
	opts := mcphttp.Options{URL: pos[0], AllowInsecure: *insecure, ClientName: "mcp-watchdog-probe", ClientVersion: version}
	if cfg, _, code := loadConfig(c, co); code == exitOK {
		for _, s := range cfg.Servers {
			if s.URL == pos[0] {
				opts.AllowInsecure = opts.AllowInsecure || s.AllowInsecure
				if opts.Headers, err = s.ExpandedHeaders(os.Getenv); err != nil {
					fmt.Fprintf(c.stderr, "watchdog probe: %v\n", err)
					return exitUsage
				}
			}
		}
	} else {
		return code
	}
	client, err := mcphttp.New(opts)
	if err != nil {
		fmt.Fprintf(c.stderr, "watchdog probe: %v\n", err)
		if errors.Is(err, mcphttp.ErrInsecure) || errors.Is(err, mcphttp.ErrInvalidURL) {
			return exitUsage // the URL given is wrong: bad usage
		}
		return exitFailed
	}
	rep, err := probe.Run(ctx, client)
	if co.json {
		_ = writeJSON(c.stdout, rep)
	} else {
		_ = rep.WriteText(c.stdout)
	}
	if err != nil {
		// The error may quote what the server sent (probe.ErrNoAnswer).
		fmt.Fprintf(c.stderr, "watchdog probe: %s\n", textsafe.Escape(err.Error()))
		return exitFailed
	}
	return exitOK
}
