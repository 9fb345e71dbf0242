package doctor

import (
	"os"

	"github.com/mcpwatchdog/watchdog/healer/clientpatch"
	"github.com/mcpwatchdog/watchdog/internal/config"
)

// checkPatch reports the host client's module and its patch state.
func checkPatch(rep *Report, cfg config.Config) {
	home, _ := os.UserHomeDir()
	if cfg.MainHost().Name == "" {
		return // no host found on the machine: no client to look at
	}
	prof := cfg.MainHost().Profile()
	if !prof.Patchable() {
		rep.Add(Finding{Check: "client module", OK: true, Detail: cfg.MainHost().DisplayName() + "'s client takes no patch: the proxy heals it (`" + prof.AdoptCommand() + "`)"})
		return
	}
	st := clientpatch.LookFor(clientpatch.FindOptions{Host: prof, ConfigModule: cfg.MainHost().ClientModule, Home: home})
	if st.Module == "" {
		rep.Add(Finding{Check: "client module", Detail: st.Detail,
			Fix: "set host.client_module to " + prof.Client.ShortName() + "'s " + prof.Client.Entry + ", or pass --module to `watchdog patch`"})
		return
	}
	current := st.Status.State == clientpatch.StateApplied && st.Status.Version == clientpatch.Version
	f := Finding{Check: "client module", OK: current, Detail: st.Module + ": " + st.Detail}
	if !f.OK {
		f.Fix = st.Status.Advice
	}
	rep.Add(f)
}
