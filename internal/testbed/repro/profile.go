package repro

import hostprofile "github.com/mcpwatchdog/watchdog/internal/host"

// dsh is the profile of the host whose client repro reproduces: the stand-in
// and the real client in testdata/dshclient are DSH's. (The package has a
// type named host, hence the alias.)
func dsh() hostprofile.Profile { return hostprofile.DSH() }
