package stdio_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcpwatchdog/watchdog/healer/stdio"
)

// A host's server run under the supervisor: here the server is cat, which
// echoes each message back, and the host sends one ping and goes.
func ExampleRun() {
	var out strings.Builder
	code, err := stdio.Run(context.Background(), stdio.Options{
		Command: []string{"cat"},
		Server:  "echo",
		Stdin:   strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"),
		Stdout:  &out,
		Stderr:  io.Discard,
	})
	fmt.Print(out.String(), code, err)
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"ping"}
	// 0 <nil>
}
