// Package hosts runs the real MCP hosts here, with no model and no
// network: a host's model API is a stand-in on loopback (ModelAPI) that
// asks for the server's tools when the test says, and reports each tool
// result the host hands back, so a test sees exactly what the host's user
// would see of each call. The hosts are installed by `make deps`
// (scripts/deps-dsh.sh for DSH); a test whose host is missing fails with
// ErrMissingDeps naming that fix, never skips.
//
// A rig's server is a real HTTP one (NewRig), or a stdio one the host
// starts itself from its config (NewStdioRig, StdioServer: the stdio
// crash cells of TestStdioCrash, which kill it and count its starts).
package hosts
