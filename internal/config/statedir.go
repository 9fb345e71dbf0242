package config

import (
	"fmt"
	"path/filepath"
	"runtime"
)

const appDir = "mcp-watchdog"

// ResolveStateDir picks the state directory: the --state-dir flag, else the
// WATCHDOG_STATE_DIR value (env), else state_dir from the config, else the
// platform default: $XDG_STATE_HOME/mcp-watchdog (when XDG_STATE_HOME is an
// absolute path, as the XDG spec requires) or ~/.local/state/mcp-watchdog,
// and ~/Library/Application Support/mcp-watchdog on macOS. The chosen value
// has ~ and ${NAME} expanded and is made absolute (a relative flag or env
// value is taken against the working directory).
func ResolveStateDir(flag, env, fromConfig string) (string, error) {
	return resolveStateDir(flag, env, fromConfig, runtime.GOOS, osEnv())
}

func resolveStateDir(flag, envValue, fromConfig, goos string, env environ) (string, error) {
	for _, c := range []struct{ src, v string }{
		{"--state-dir", flag},
		{"WATCHDOG_STATE_DIR", envValue},
		{"state_dir", fromConfig},
	} {
		if c.v == "" {
			continue
		}
		p, err := expandPath(c.v, env)
		if err != nil {
			return "", &Error{Key: c.src, Msg: err.Error(), Err: err}
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", c.src, err)
		}
		return abs, nil
	}
	return defaultStateDir(goos, env)
}

func defaultStateDir(goos string, env environ) (string, error) {
	if goos != "darwin" {
		if x := env.getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
			return filepath.Join(x, appDir), nil
		}
	}
	home, err := env.home()
	if err != nil || home == "" {
		return "", fmt.Errorf("no state directory: the home directory is unknown (%v); pass --state-dir", err)
	}
	if goos == "darwin" {
		return filepath.Join(home, "Library", "Application Support", appDir), nil
	}
	return filepath.Join(home, ".local", "state", appDir), nil
}
