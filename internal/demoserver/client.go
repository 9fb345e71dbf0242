package demoserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect opens an MCP session at url over Streamable HTTP with the official
// SDK client, announcing clientName as clientInfo.name. The caller closes
// the session (which sends DELETE while the session lives).
func Connect(ctx context.Context, url, clientName string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect %s as %s: %w", url, clientName, err)
	}
	return cs, nil
}
