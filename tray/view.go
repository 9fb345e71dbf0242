package tray

import (
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// Command kinds a click produces.
const (
	CmdHeal               = "heal"
	CmdKeepWarm           = "keep_warm"
	CmdRestartHost        = "restart_host"
	CmdPatchApply         = "patch_apply"
	CmdPatchRevert        = "patch_revert"
	CmdPauseNotifications = "pause_notifications"
	CmdOpenTimeline       = "open_timeline"
	CmdAutostart          = "autostart"
	CmdProtect            = "protect"
	CmdQuit               = "quit"
)

// Command is what a click asks the daemon to do. Server is set for the
// per-server commands; On is the wanted state of a checkbox (keep warm,
// pause, autostart): the opposite of what the menu showed.
type Command struct {
	Kind   string
	Server string
	Host   string // CmdProtect: the host to route through the proxy
	On     bool
}

// View is everything the tray shows, as of Now.
type View struct {
	Status      health.Status
	KeepWarm    map[string]bool // by server name
	Paused      bool            // notifications paused
	AutostartOn bool
	Now         time.Time
}
