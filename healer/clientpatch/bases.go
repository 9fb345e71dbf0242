package clientpatch

import "strings"

// origin is a lib/index.js the patch was made for: releases of the client,
// or the watchdog's stand-in for it.
type origin struct {
	releases string // "0.1.0-rc.8"; "" for the stand-in
}

// name says the build in the client's name ("dsh-mcp-client 0.1.0-rc.8").
func (o origin) name(client string) string {
	if o.releases == "" {
		return "the watchdog's stand-in (testdata/dshclient)"
	}
	return client + " " + o.releases
}

// knownBase says which build of the client a lib/index.js digest is.
func knownBase(digest string) (origin, bool) {
	switch digest {
	case digestRC8:
		return origin{releases: "0.1.0-rc.8"}, true
	case digestStandIn:
		return origin{}, true
	}
	// Only the first and last hex digits of the affected production builds
	// are public; 64 hex digits pinned at both ends are still specific.
	if len(digest) == 64 && strings.HasPrefix(digest, prodPrefix) && strings.HasSuffix(digest, prodSuffix) {
		return origin{releases: "0.2.0-rc.2 / 0.2.1-alpha.4"}, true
	}
	return origin{}, false
}

const (
	// digestRC8 is lib/index.js of @deepseek-ai/dsh-mcp-client@0.1.0-rc.8 (npm).
	digestRC8 = "b126dcec8a0425a33199c5ddcd8638269a560c0b7328cd6306858c1969887d56"
	// digestStandIn is testdata/dshclient/lib/index.js; TestStandInIsKnownBase
	// fails with the new value when that file changes.
	digestStandIn = "213b085bfa0533105d0e83ef12c6afbbd9343e5c80ca8feaf6083da3cf24cd28"
	prodPrefix    = "758d8fc4"
	prodSuffix    = "f5dd"
)
