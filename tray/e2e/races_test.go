//go:build linux

package e2e

import (
	"slices"
	"strings"
)

// upstreamRace is a data race known to lie inside libraries, judged by
// the functions of both racing accesses' stacks, as the race detector
// prints them. Every frame of one side must be a listed library function;
// where that side runs inside a library call our code makes (entry), the
// frames inside the call must be listed and only its callers may be ours.
// Anything else, a race with an access in our own frames and a new
// upstream race included, fails until someone has looked at it and listed
// it with why. The two sides may come in either order.
type upstreamRace struct {
	a, b stackMatch
	why  string
}

// stackMatch: the library functions one access may run in.
type stackMatch struct {
	funcs []string
	entry string // "": the whole stack is the library's
}

func (m stackMatch) matches(stack []string) bool {
	lib := stack
	if m.entry != "" {
		i := slices.Index(stack, m.entry)
		if i < 0 {
			return false
		}
		lib = stack[:i]
	}
	for _, fn := range lib {
		if !slices.Contains(m.funcs, fn) {
			return false
		}
	}
	return len(lib) > 0
}

const godbus = "github.com/godbus/dbus/v5."

// godbusReply is godbus's handler goroutine encoding and sending a reply.
var godbusReply = []string{"reflect.Value.Int", "reflect.Value.Uint", godbus + "(*encoder).encode", godbus + "(*encoder).Encode",
	godbus + "(*Message).CountFds", godbus + "(*Message).EncodeToWithFDs", godbus + "(*Message).EncodeTo",
	godbus + "(*unixTransport).SendMessage", godbus + "(*outputHandler).sendAndIfClosed",
	godbus + "(*Conn).sendMessageAndIfClosed", godbus + "(*Conn).handleCall", godbus + "(*Conn).inWorker.gowrap1"}

// knownUpstreamRaces are the races the tray app's runs show that lie in
// fyne.io/systray v1.12.2 and godbus v5.2.4 (testdata/race-*.txt).
func knownUpstreamRaces() []upstreamRace {
	return []upstreamRace{{
		a: stackMatch{funcs: []string{"fyne.io/systray.refresh", "fyne.io/systray.(*tray).GetLayout.func1"}},
		b: stackMatch{funcs: []string{"fyne.io/systray.(*tray).GetLayout", "fyne.io/systray/internal/generated/menu.Dbusmenuer.GetLayout-fm",
			"runtime.call32", "reflect.Value.Call", godbus + "exportedMethod.Call", godbus + "(*exportedMethod).Call",
			godbus + "(*Conn).handleCall", godbus + "(*Conn).inWorker.gowrap1"}},
		why: "systray's GetLayout starts a goroutine that calls refresh and sets firstGetLayoutDone, " +
			"which GetLayout reads unlocked (systray_menu_unix.go:85-91), on godbus's handler goroutine",
	}, {
		a: stackMatch{entry: "fyne.io/systray.SetTemplateIcon", funcs: []string{"reflect.typedmemmove", "reflect.Value.Set",
			godbus + "setDest", godbus + "storeBase", godbus + "store", godbus + "storeSliceIntoSlice", godbus + "storeSlice",
			godbus + "storeInterfaces", godbus + "Store", "github.com/godbus/dbus/v5/prop.(*Properties).set", "github.com/godbus/dbus/v5/prop.(*Properties).SetMust",
			"fyne.io/systray.SetIcon", "fyne.io/systray.convertToPixels", "fyne.io/systray.argbForImage"}},
		b: stackMatch{funcs: godbusReply},
		why: "systray's SetIcon writes the new icon's pixels into the buffer and property value it keeps while " +
			"godbus's handler goroutine still encodes them for a property reply outside any lock: SetTemplateIcon " +
			"is the only call of ours in it, and no lock of ours can reach theirs",
	}}
}

// races splits a log's race reports into ours (every race but the known
// upstream ones) and the known upstream ones.
func races(log string) (ours, upstream []string) {
	parts := strings.Split(log, "WARNING: DATA RACE")
	for _, r := range parts[1:] {
		if knownUpstream(r) {
			upstream = append(upstream, r)
		} else {
			ours = append(ours, r)
		}
	}
	return ours, upstream
}

func knownUpstream(report string) bool {
	access, previous := accessStacks(report)
	for _, k := range knownUpstreamRaces() {
		if k.a.matches(access) && k.b.matches(previous) || k.b.matches(access) && k.a.matches(previous) {
			return true
		}
	}
	return false
}

// accessStacks are the functions of a report's two racing accesses
// ("Write at … by goroutine N:" and "Previous read at …:"), innermost
// first; the goroutines' creation stacks after them are not accesses.
func accessStacks(report string) (access, previous []string) {
	var stacks [][]string
	in := false
	for _, line := range strings.Split(report, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasSuffix(l, ":") && strings.Contains(l, " at 0x") && strings.Contains(l, " by "):
			stacks, in = append(stacks, nil), true
		case l == "" || strings.HasPrefix(l, "Goroutine ") || strings.HasPrefix(l, "="):
			in = false
		case in && strings.HasSuffix(l, ")"): // a function; its file line ends in +0x…
			stacks[len(stacks)-1] = append(stacks[len(stacks)-1], strings.TrimSuffix(l, "()"))
		}
	}
	if len(stacks) != 2 || len(stacks[0]) == 0 || len(stacks[1]) == 0 {
		return nil, nil // not a report of two accesses: never known
	}
	return stacks[0], stacks[1]
}
