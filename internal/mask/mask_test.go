package mask

import "testing"

func TestID(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"short", "…"},
		{"12345678901", "…"},
		{"ab12cd34ef569f3e", "ab12…9f3e"},
		{"0f8e4a1c-7b2d-4e6f-9a3b-5c1d2e3f4a5b", "0f8e…4a5b"},
	}
	for _, tt := range tests {
		if got := ID(tt.in); got != tt.want {
			t.Errorf("ID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
