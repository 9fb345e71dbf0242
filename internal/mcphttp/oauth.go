package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// OAuthChallenge reports whether an answer's WWW-Authenticate asks for an
// OAuth sign-in the way MCP's authorization does: a Bearer challenge
// naming resource_metadata (RFC 9728). It returns the metadata's URL.
func OAuthChallenge(h http.Header) (string, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		scheme, params, _ := strings.Cut(strings.TrimSpace(v), " ")
		if !strings.EqualFold(scheme, "Bearer") {
			continue
		}
		if u, ok := authParam(params, "resource_metadata"); ok {
			return u, true
		}
	}
	return "", false
}

// authParam finds name="value" (or name=value) among a challenge's
// comma-separated parameters.
func authParam(params, name string) (string, bool) {
	for params != "" {
		params = strings.TrimLeft(params, " ,")
		k, rest, ok := strings.Cut(params, "=")
		if !ok {
			return "", false
		}
		k = strings.TrimSpace(k)
		var v string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return "", false
			}
			v, params = rest[1:1+end], rest[2+end:]
		} else {
			v, params, _ = strings.Cut(rest, ",")
			v = strings.TrimSpace(v)
		}
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// ProtectedResource is RFC 9728 metadata as far as the watchdog reads it.
type ProtectedResource struct {
	// Resource is the server's canonical URL: the audience its tokens must have.
	Resource string `json:"resource"`
	// AuthorizationServers sign its users in.
	AuthorizationServers []string `json:"authorization_servers"`
	// MetadataURL is where it was read.
	MetadataURL string `json:"-"`
}

// FetchProtectedResource reads the endpoint's RFC 9728 metadata: at
// metadataURL when one is given (a challenge's resource_metadata, which
// must be of the endpoint's own origin), else at the well-known paths for
// the endpoint's path and then the origin's root. ok is false when there
// is none.
func (c *Client) FetchProtectedResource(ctx context.Context, metadataURL string) (ProtectedResource, bool, error) {
	base, err := url.Parse(c.url)
	if err != nil {
		return ProtectedResource{}, false, err
	}
	var tries []string
	if metadataURL != "" {
		m, err := url.Parse(metadataURL)
		if err != nil || m.Scheme != base.Scheme || m.Host != base.Host {
			// Another origin's: not fetched, so that no request the user
			// did not configure leaves the machine.
			return ProtectedResource{MetadataURL: metadataURL}, true, nil
		}
		tries = append(tries, m.String())
	}
	root := &url.URL{Scheme: base.Scheme, Host: base.Host, Path: "/.well-known/oauth-protected-resource"}
	if p := strings.TrimSuffix(base.Path, "/"); p != "" {
		tries = append(tries, root.JoinPath(p).String())
	}
	tries = append(tries, root.String())
	for _, u := range tries {
		pr, ok, err := c.getMetadata(ctx, u)
		if err != nil || ok {
			return pr, ok, err
		}
	}
	return ProtectedResource{}, false, nil
}

func (c *Client) getMetadata(ctx context.Context, u string) (ProtectedResource, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return ProtectedResource{}, false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return ProtectedResource{}, false, fmt.Errorf("mcphttp: GET %s: %w", redactedPath(u), redactURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ProtectedResource{}, false, nil
	}
	var pr ProtectedResource
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&pr); err != nil || pr.Resource == "" {
		return ProtectedResource{}, false, nil // not such metadata
	}
	pr.MetadataURL = u
	return pr, true, nil
}

// redactedPath is a URL's path alone, for an error.
func redactedPath(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return "?"
}
