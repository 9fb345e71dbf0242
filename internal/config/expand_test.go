package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestExpandVars(t *testing.T) {
	env := map[string]string{"A": "alpha", "B_2": "beta", "EMPTY": ""}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		in, want string
		errHas   string // "" means success
	}{
		{in: "plain", want: "plain"},
		{in: "${A}", want: "alpha"},
		{in: "x-${A}-${B_2}-y", want: "x-alpha-beta-y"},
		{in: "$A and $ and $$", want: "$A and $ and $$"}, // only ${NAME} expands
		{in: "${A}${A}", want: "alphaalpha"},
		{in: "${MISSING}", errHas: "${MISSING} is not set"},
		{in: "${EMPTY}", errHas: "${EMPTY} is not set"},
		{in: "${A", errHas: "unterminated"},
		{in: "${}", errHas: "not a variable name"},
		{in: "${1X}", errHas: "not a variable name"},
		{in: "${A B}", errHas: "not a variable name"},
	}
	for _, tt := range tests {
		got, err := expandVars(tt.in, getenv)
		if tt.errHas == "" {
			if err != nil || got != tt.want {
				t.Errorf("expandVars(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("expandVars(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.errHas)
		}
	}
}

func TestExpandPath(t *testing.T) {
	env := testEnv(map[string]string{"DIR": "/data"})
	noHome := environ{getenv: env.getenv, home: func() (string, error) { return "", errors.New("$HOME is not defined") }}
	tests := []struct {
		in   string
		env  environ
		want string
		err  bool
	}{
		{in: "~", env: env, want: testHome},
		{in: "~/x/*.log", env: env, want: testHome + "/x/*.log"},
		{in: "~user/x", env: env, want: "~user/x"}, // not supported: left for Validate to reject
		{in: "/a/~/b", env: env, want: "/a/~/b"},
		{in: "${DIR}/logs", env: env, want: "/data/logs"},
		{in: "~/${DIR}", env: env, want: testHome + "/data"},
		{in: "~/x", env: noHome, err: true},
		{in: "/abs", env: noHome, want: "/abs"},
	}
	for _, tt := range tests {
		got, err := expandPath(tt.in, tt.env)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("expandPath(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestExpandedHeaders(t *testing.T) {
	const secret = "s3cret-Value"
	s := Server{Name: "mem", Headers: map[string]string{
		"Authorization":  "Bearer ${NMEM_TOKEN}",
		"X-NMEM-API-Key": "${NMEM_TOKEN}",
		"X-Plain":        "literal",
	}}
	env := map[string]string{"NMEM_TOKEN": secret}
	got, err := s.ExpandedHeaders(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Authorization": "Bearer " + secret, "X-NMEM-API-Key": secret, "X-Plain": "literal"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ExpandedHeaders = %v, want %v", got, want)
	}
	if s.Headers["Authorization"] != "Bearer ${NMEM_TOKEN}" {
		t.Error("ExpandedHeaders changed the server's own map")
	}
	if got, err := (Server{}).ExpandedHeaders(func(string) string { return "" }); err != nil || len(got) != 0 {
		t.Errorf("no headers: %v, %v", got, err)
	}
}

func TestExpandedHeadersErrors(t *testing.T) {
	const secret = "s3cret-Value"
	tests := []struct {
		name    string
		headers map[string]string
		env     map[string]string
		has     []string
	}{
		{
			name:    "missing var",
			headers: map[string]string{"Authorization": "Bearer ${NMEM_TOKEN}", "X-Other": secret},
			has:     []string{`server "mem": header Authorization`, "${NMEM_TOKEN} is not set"},
		},
		{
			name:    "two missing",
			headers: map[string]string{"A": "${ONE}", "B": "${TWO}"},
			has:     []string{"${ONE}", "${TWO}"},
		},
		{
			name:    "value with a line break after expansion",
			headers: map[string]string{"X-Token": "${INJECT}"},
			env:     map[string]string{"INJECT": secret + "\r\nX-Evil: 1"},
			has:     []string{"header X-Token", "control character"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Server{Name: "mem", Headers: tt.headers}
			got, err := s.ExpandedHeaders(func(k string) string { return tt.env[k] })
			if err == nil {
				t.Fatalf("no error; got %v", got)
			}
			if got != nil {
				t.Errorf("partial headers returned with an error: %v", got)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			for _, h := range tt.has {
				if !strings.Contains(err.Error(), h) {
					t.Errorf("error lacks %q: %v", h, err)
				}
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error prints a header value: %v", err)
			}
		})
	}
}
