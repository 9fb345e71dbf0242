package wallclock

// SkewEnv names a file whose content (a Go duration such as "90s")
// is added to the daemon's wall clock (Clock). Only a build with the
// watchdogdebug tag reads it (clockskew_debug.go): the chaos soak's way
// to jump the daemon's clock without touching the machine's, which every
// other process would feel. The shipped binary has no such hook.
const SkewEnv = "WATCHDOG_DEBUG_CLOCK_SKEW_FILE"
