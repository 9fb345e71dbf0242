// Package judge says what protects each server of a host found on this
// machine (`watchdog hosts`): the proxy, the client patch, the host's own
// healing against how that server answers a lost session, or nothing, and
// the one command that mends it. It is pure: the facts (the daemon's
// proxies, the probes' answers, adopt's record) come in.
package judge
