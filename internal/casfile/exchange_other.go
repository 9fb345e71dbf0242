//go:build !linux && !darwin

package casfile

// exchange: no atomic exchange here; Replace compares, then renames.
func exchange(string, string) error { return errNoExchange }
