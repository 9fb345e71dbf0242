// Package tray is the menu-bar face of the watchdog. Not built yet.
package tray
