//go:build linux

package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
)

// notifications owns org.freedesktop.Notifications on the test bus, so
// beeep's D-Bus path lands here and every Notify is counted.
type notifications struct {
	mu       sync.Mutex
	received []string // summaries
}

func (n *notifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.received = append(n.received, summary)
	return uint32(len(n.received)), nil
}

func (n *notifications) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (n *notifications) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "e2e-listener", "mcpwatchdog", "1", "1.2", nil
}

func (n *notifications) CloseNotification(id uint32) *dbus.Error { return nil }

func (n *notifications) summaries() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.received...)
}

func listenNotifications(t *testing.T, conn *dbus.Conn) *notifications {
	t.Helper()
	n := &notifications{}
	if err := conn.Export(n, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: reply %v, %v", reply, err)
	}
	return n
}

// item is a registered StatusNotifierItem: its bus name and object path.
type item struct {
	conn          *dbus.Conn
	service, path string
}

// registeredItem waits for the watcher to list an item and returns it.
func registeredItem(t *testing.T, d *desktop) item {
	t.Helper()
	var got []string
	waitFor(t, "a registered StatusNotifierItem", func() (bool, string) {
		v, err := d.watcherProp("RegisteredStatusNotifierItems")
		got, _ = v.Value().([]string)
		return err == nil && len(got) > 0, fmt.Sprint(got, err)
	})
	service, path := got[0], "/StatusNotifierItem"
	if i := strings.Index(service, "/"); i >= 0 {
		service, path = service[:i], service[i:]
	}
	return item{conn: d.conn, service: service, path: path}
}

func (it item) prop(name string) (dbus.Variant, error) {
	return it.conn.Object(it.service, dbus.ObjectPath(it.path)).GetProperty("org.kde.StatusNotifierItem." + name)
}

// tooltip returns the ToolTip's title: (icon name, icon pixmaps, title, text).
func (it item) tooltip() string {
	v, err := it.prop("ToolTip")
	if err != nil {
		return "error: " + err.Error()
	}
	var tt struct {
		Name   string
		Pixmap []struct {
			W, H int32
			Data []byte
		}
		Title, Text string
	}
	if err := dbus.Store([]any{v.Value()}, &tt); err != nil {
		return "error: " + err.Error()
	}
	return tt.Title
}

// pixmap returns the IconPixmap data of the first size, as a string for
// comparing.
func (it item) pixmap() string {
	v, err := it.prop("IconPixmap")
	if err != nil {
		return ""
	}
	var px []struct {
		W, H int32
		Data []byte
	}
	if err := dbus.Store([]any{v.Value()}, &px); err != nil || len(px) == 0 {
		return ""
	}
	return string(px[0].Data)
}

// menuEntry is one dbusmenu item: id, label, children.
type menuEntry struct {
	ID       int32
	Label    string
	Children []menuEntry
}

// layout reads the whole dbusmenu tree.
func (it item) layout() (menuEntry, error) {
	var rev uint32
	var raw struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	obj := it.conn.Object(it.service, dbus.ObjectPath(it.path+"/menu"))
	if err := obj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &raw); err != nil {
		return menuEntry{}, fmt.Errorf("GetLayout: %w", err)
	}
	return convert(raw.ID, raw.Props, raw.Children), nil
}

func convert(id int32, props map[string]dbus.Variant, children []dbus.Variant) menuEntry {
	e := menuEntry{ID: id}
	if l, ok := props["label"]; ok {
		e.Label, _ = l.Value().(string)
	}
	for _, c := range children {
		var raw struct {
			ID       int32
			Props    map[string]dbus.Variant
			Children []dbus.Variant
		}
		if err := dbus.Store([]any{c.Value()}, &raw); err == nil {
			e.Children = append(e.Children, convert(raw.ID, raw.Props, raw.Children))
		}
	}
	return e
}

// find returns the first entry whose label has the prefix, depth first.
func (e menuEntry) find(prefix string) (menuEntry, bool) {
	if e.Label != "" && strings.HasPrefix(e.Label, prefix) {
		return e, true
	}
	for _, c := range e.Children {
		if f, ok := c.find(prefix); ok {
			return f, true
		}
	}
	return menuEntry{}, false
}

func (e menuEntry) labels() []string {
	var out []string
	if e.Label != "" {
		out = append(out, e.Label)
	}
	for _, c := range e.Children {
		out = append(out, c.labels()...)
	}
	return out
}

func (it item) click(id int32) error {
	obj := it.conn.Object(it.service, dbus.ObjectPath(it.path+"/menu"))
	return obj.Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(0)).Err
}
