package config

import (
	"io"
	"log/slog"
	"strings"
)

// Logger is the daemon's log to w, at the level the environment's
// WATCHDOG_LOG names (debug, warn; info otherwise).
func Logger(w io.Writer, getenv func(string) string) *slog.Logger {
	level := slog.LevelInfo
	switch strings.ToLower(getenv("WATCHDOG_LOG")) {
	case "debug":
		level = slog.LevelDebug
	case "warn":
		level = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
