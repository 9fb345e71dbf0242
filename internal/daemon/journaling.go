package daemon

// JournalFaultEnv names a file whose existence makes every journal write
// fail (journal.Options.FaultFile). It exists for the chaos soak: the real
// binary runs as root, whom permissions do not stop, and a full disk would
// disturb every other process. Unset in normal use.
const JournalFaultEnv = "WATCHDOG_DEBUG_JOURNAL_FAULT_FILE"
