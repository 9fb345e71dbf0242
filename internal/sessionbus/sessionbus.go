// Package sessionbus connects to the user's D-Bus session bus without ever
// starting one.
package sessionbus

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// Connect connects to the session bus the environment names
// (DBUS_SESSION_BUS_ADDRESS, else the runtime directory's bus), and fails
// when there is none. godbus's ConnectSessionBus and SessionBus run
// dbus-launch when no address is known: the dbus-daemon it starts is
// nobody's child and outlives the watchdog, one more at every start (and
// at every test's daemon) on a machine with no desktop.
func Connect() (*dbus.Conn, error) {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, fmt.Errorf("no session bus: %w", err)
	}
	if err := conn.Auth(nil); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("session bus: auth: %w", err)
	}
	if err := conn.Hello(); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("session bus: hello: %w", err)
	}
	return conn, nil
}

// Available reports whether a session bus answers; it starts none.
func Available() bool {
	conn, err := Connect()
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}
