package tray

import (
	"strings"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/host"
)

// item is one menu entry, independent of the tray library, so the whole
// menu can be table-tested. A nil Cmd means an information line.
type item struct {
	Title     string
	Disabled  bool
	Checkbox  bool
	Checked   bool
	Separator bool
	Cmd       *Command
	Children  []item
}

// menuItems describes the whole menu for v. The tray rebuilds it whole on
// every update: no item is patched in place.
func menuItems(v View) []item {
	var out []item
	for _, s := range v.Status.Servers {
		if s.Transport == health.TransportStdio {
			out = append(out, stdioItem(s))
			continue
		}
		out = append(out, serverItem(s, v))
	}
	if len(v.Status.Servers) == 0 {
		out = append(out, item{Title: "No servers configured", Disabled: true})
	}
	name := v.Status.Host.Name
	if name == "" { // a config may set host.name empty
		name = host.Default().Name
	}
	out = append(out, item{Separator: true})
	if !v.Status.Host.OneShot { // a host run per prompt has nothing to restart
		out = append(out, item{Title: "Restart " + name, Cmd: &Command{Kind: CmdRestartHost}})
	}
	if v.Status.Host.Patch != "none" { // a host whose client takes no patch
		out = append(out, patchItems(v.Status.Host.Patch)...)
	}
	out = append(out, protectItems(v.Status.Hosts)...)
	out = append(out, item{Separator: true},
		item{Title: "Pause notifications for 1 hour", Checkbox: true, Checked: v.Paused,
			Cmd: &Command{Kind: CmdPauseNotifications, On: !v.Paused}},
		item{Title: "Open timeline", Cmd: &Command{Kind: CmdOpenTimeline}},
		item{Title: "Start at login", Checkbox: true, Checked: v.AutostartOn,
			Cmd: &Command{Kind: CmdAutostart, On: !v.AutostartOn}},
		item{Separator: true},
		item{Title: "Quit", Cmd: &Command{Kind: CmdQuit}})
	return out
}

func serverItem(s health.ServerStatus, v View) item {
	warm := v.KeepWarm[s.Name]
	return item{Title: ServerLine(s, v.Now), Children: []item{
		{Title: "Heal now", Cmd: &Command{Kind: CmdHeal, Server: s.Name}},
		{Title: "Keep warm", Checkbox: true, Checked: warm, Disabled: s.Mode == health.Stateless,
			Cmd: &Command{Kind: CmdKeepWarm, Server: s.Name, On: !warm}},
	}}
}

// patchItems shows the client patch state and offers only the step that
// makes sense from it.
func patchItems(patch string) []item {
	if patch == "" {
		patch = "unknown"
	}
	applied := patch == "applied" || patch == "trigger"
	return []item{
		{Title: "Client patch: " + StateLabel(health.State(patch)), Disabled: true},
		{Title: "Apply client patch…", Disabled: applied, Cmd: &Command{Kind: CmdPatchApply}},
		{Title: "Revert patch", Disabled: !applied, Cmd: &Command{Kind: CmdPatchRevert}},
	}
}

// protectItems offers, for each host found with servers nothing protects,
// to route it through the watchdog's proxy (watchdog hosts adopt).
func protectItems(hosts []health.HostSummary) []item {
	var out []item
	for _, h := range hosts {
		if exposed := h.Exposed(); len(exposed) > 0 {
			if len(out) == 0 {
				out = append(out, item{Separator: true})
			}
			out = append(out, item{Title: "Protect " + h.Name + " (" + strings.Join(exposed, ", ") + " exposed)",
				Cmd: &Command{Kind: CmdProtect, Host: h.Name}})
		}
	}
	return out
}
