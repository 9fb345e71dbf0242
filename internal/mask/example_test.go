package mask_test

import (
	"fmt"

	"github.com/mcpwatchdog/watchdog/internal/mask"
)

// A session id is a credential: every output shows it masked.
func ExampleID() {
	fmt.Println(mask.ID("7f3a9c2e-51d4-4b8e-9a61-0c2f8e4d1b90"))
	fmt.Println(mask.ID("")) // no id stays no id
	// Output:
	// 7f3a…1b90
	//
}

// A configured URL may carry a token in its user info or query.
func ExampleURL() {
	fmt.Println(mask.URL("http://me:secret@127.0.0.1:14242/mcp?token=abc"))
	// Output: http://REDACTED@127.0.0.1:14242/mcp?token=REDACTED
}
