package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/config"
	"github.com/mcpwatchdog/watchdog/monitor/hosts"
)

// doctorHosts lists the hosts found on this machine: each exposed server a
// problem with the command that protects it, the rest one line per host.
func doctorHosts(ctx context.Context, rep *doctorReport, c cli, cfg config.Config, stateDir string) {
	found := hosts.Find(ctx, findOptions(c))
	fs := hostFacts(ctx, cfg, found, true)
	fs.served(ctx, stateDir)
	for _, f := range found {
		check := "host " + f.Profile.Name
		var kept []string
		for _, file := range f.Files {
			if file.Err != nil {
				rep.add(finding{Check: check, Detail: file.Err.Error(), Fix: "fix the file, or leave it: its servers are not looked at"})
			}
			for _, s := range file.Servers {
				v := hosts.Protect(f.Profile, s, fs[f.Profile.Name])
				if v.Fix == "" {
					kept = append(kept, s.Name+" "+string(v.Protection))
					continue
				}
				fix := v.Fix
				if fix == "" {
					fix = "nothing the watchdog can do for it"
				}
				rep.add(finding{Check: check, Detail: fmt.Sprintf("%s (%s) is %s: %s", s.Name, redact(s.URL), v.Protection, v.Why), Fix: fix})
			}
		}
		if len(kept) > 0 {
			rep.add(finding{Check: check, OK: true, Detail: strings.Join(kept, ", ")})
		}
	}
}
