// Package healer acts on the health model's state: the heal ladder and its
// strategies, keep-warm pings, sessionless liveness checks and the patched
// client's recovery trigger. Host restarts are healer/restart's; the
// client fix is healer/clientpatch's, the proxy healer/proxy's and adopt
// and release healer/adopt's.
package healer
