package main

import (
	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/config"
)

// doctorPatch reports the host client's module and its patch state.
func doctorPatch(rep *doctorReport, cfg config.Config) {
	st := inspectClient(cfg)
	if st.module == "" {
		rep.add(finding{Check: "client module", Detail: st.detail, Fix: "set host.client_module to dsh-mcp-client's lib/index.js, or pass --module to `watchdog patch`"})
		return
	}
	current := st.status.State == clientpatch.StateApplied && st.status.Retry
	f := finding{Check: "client module", OK: current, Detail: st.module + ": " + st.detail}
	if !f.OK {
		f.Fix = st.advice
	}
	rep.add(f)
}
