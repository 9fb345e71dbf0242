package proxy

import (
	"fmt"
	"net/http"
)

// legacyRefusal is the JSON-RPC error code of the proxy's refusal of a
// host's server/discover in the place of a legacy server that is down:
// none of the 2026-07-28 refusals (-32022, -32021, -32020), so the host
// takes the server for a legacy one (as the spec has it: an unrecognised
// error on a 400 means legacy) and initializes; the TypeScript SDK 1.x
// refuses it with the same code.
const legacyRefusal = -32000

// refuseLegacyDiscover answers a host's server/discover, which could not
// reach the server, in the place of a server known to serve only the
// legacy handshake: its initialize is kept, and no answer to
// server/discover (a server that refuses it, as the TypeScript SDK 1.x
// does, leaves none; one that answered it has it kept, and answerKnown
// answers with that). The host then initializes, and attachInit answers it
// from the last-known server, at once, rather than the host being held
// for the server (up to Options.InitWait) with nothing of it offered
// meanwhile. False: not such a request, or not such a server.
func (p *Proxy) refuseLegacyDiscover(q hostReq) bool {
	body := q.body()
	if methodOf(body) != "server/discover" {
		return false
	}
	if _, ok := p.known.get("server/discover"); ok {
		return false
	}
	if _, ok := p.known.get("initialize"); !ok {
		return false
	}
	id := idOf(body)
	if len(id) == 0 {
		return false
	}
	b, err := marshalPlain(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": legacyRefusal,
		"message": fmt.Sprintf("watchdog proxy: the MCP server %s is down; it last served the legacy handshake (initialize), not server/discover",
			p.serverName())}})
	if err != nil {
		return false
	}
	q.answer(http.StatusBadRequest, "", append(b, '\n'))
	return true
}
