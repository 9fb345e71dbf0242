// Package textsafe makes text from outside the process safe to show on a
// terminal: client and server names, log excerpts, ids, errors that quote
// what a server or a file said. Any MCP client picks its own clientInfo
// name and any server its serverInfo name, so such text may carry escape
// sequences that clear the screen or retitle the window, newlines that
// forge output lines, or bidi overrides that show text reordered.
//
// Escape is the one sanitizer for text output. JSON output needs none:
// encoding/json escapes control characters and keeps the true value.
package textsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every character a terminal or a text renderer acts
// on shown as an escape instead:
//
//   - C0 controls, DEL and ESC as \xNN (\n, \r and \t as such);
//   - C1 controls (U+0080–U+009F) as \uNNNN;
//   - bidi marks, embeddings, overrides and isolates (U+061C, U+200E,
//     U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph
//     separators U+2028, U+2029 as \uNNNN;
//   - each byte of invalid UTF-8 as \xNN.
//
// Everything else, backslashes included, is kept, so ordinary text reads
// as it was written. s is returned as is when it holds nothing to escape.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			writeByte(&b, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			writeByte(&b, byte(r))
		case Unsafe(r):
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)))
			b.WriteString(h)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Unsafe reports whether r is one Escape escapes: a control character, a
// bidi control, or a line or paragraph separator.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Clean reports whether s holds nothing Escape would change.
func Clean(s string) bool { return firstUnsafe(s) < 0 }

// firstUnsafe is the byte offset of the first character Escape changes,
// or -1. Plain ASCII is checked a byte at a time without decoding.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}

func writeByte(b *strings.Builder, c byte) {
	const hex = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// JSON returns the JSON document b with every character Escape would show
// escaped that encoding/json leaves raw (DEL, C1 controls, bidi controls)
// written as a \uNNNN escape instead: the same JSON value, which a
// terminal shows without reordering or acting on it. Such characters can
// only stand inside JSON strings, where \uNNNN means the same character;
// structural whitespace (tab, newline) is left alone. b is returned as is
// when it holds none.
func JSON(b []byte) []byte {
	i := firstUnsafeJSON(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x7f && Unsafe(r) { // invalid UTF-8 decodes to U+FFFD: kept as it is
			h := strconv.FormatInt(int64(r), 16)
			out = append(out, `\u`...)
			out = append(out, strings.Repeat("0", 4-len(h))...)
			out = append(out, h...)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func firstUnsafeJSON(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if b[i] == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x7f && Unsafe(r) {
			return i
		}
		i += n
	}
	return -1
}
