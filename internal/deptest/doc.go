// Package deptest keeps the house rules that no compiler checks, as tests
// that fail the build when a change breaks them:
//
//   - the import rules of docs/ARCHITECTURE.md (the model does no I/O, seeing
//     decides nothing, acting knows no screen, product code carries no rig),
//     stated as data in [House] and checked by [Policy.Check] against the
//     module's import graph from `go list`;
//   - the size rules: no file over [MaxFileLines] lines, no function over
//     [MaxFuncLines] lines unless the comment directly above it has a line
//     starting with "Long:" that says why ([CheckSource]);
//   - README.md stays a newcomer's page: within [MaxReadmeLines] lines,
//     the long sections in docs/ ([CheckReadme]);
//   - the daemon stays the loop, not the warehouse: its struct within
//     [MaxDaemonFields] fields ([CheckDaemonFields]);
//   - a step is written once: no two files of healer/proxy carry the same
//     sentence ([CheckSaidOnce]), so its two transports share one heal flow;
//   - no test hook ships: no field of the release build named like a
//     fault, skew, debug switch or hook, and every drill type empty there
//     (its fields live in files built with the watchdogdebug tag)
//     ([CheckDrills]);
//   - the command layer stays thin and carries no test code: cmd/watchdog's
//     non-test files within [MaxCommandLines] lines together, and nothing
//     in its build a rig, a test-only package or a test helper;
//   - that scripts/deps-debian.sh, which `make test` runs first, installs
//     only what is missing, as root or with sudo -n, and otherwise fails
//     naming the packages and the command that installs them.
//
// The import and size checks are pure functions so their own tests can
// show each rule failing on a made-up input; the tests of this package
// run them on the real tree. Only tests use this package.
package deptest
