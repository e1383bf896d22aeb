package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// The PMI-1 "simple" wire protocol is line based: every message is one line
// of space-separated key=value fields terminated by '\n', the first field
// being cmd=<name> (for example "cmd=get kvsname=kvs_1 key=k\n"). A value
// therefore cannot contain a space, a newline or (safely) an '='. The
// helpers in this file format and parse such lines; they are shared by the
// client and by the server in gmpi/runtime/pmi/server.

// MaxLine is the longest line, newline included, that the client and the
// server accept. It is far above what the advertised maxima allow.
const MaxLine = 64 << 10

// FormatLine builds one wire line "cmd=<cmd> k1=v1 k2=v2 ...\n" from cmd and
// the alternating keys and values in kv. Keys and values are written as
// given: callers must have encoded them (see EncodeValue).
func FormatLine(cmd string, kv ...string) string {
	if len(kv)%2 != 0 {
		panic("pmi.FormatLine: odd number of key/value arguments")
	}
	var b strings.Builder
	b.WriteString("cmd=")
	b.WriteString(cmd)
	for i := 0; i < len(kv); i += 2 {
		b.WriteByte(' ')
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(kv[i+1])
	}
	b.WriteByte('\n')
	return b.String()
}

// ParseLine splits one wire line (with or without its trailing newline)
// into its fields. A field is split at its first '=' so values may contain
// further '=' signs; a field without '=' is recorded with an empty value.
// Repeated keys keep the last value. The command name is fields["cmd"]
// (or fields["mcmd"] for the multi-line spawn command).
func ParseLine(line string) (map[string]string, error) {
	line = strings.TrimRight(line, "\r\n")
	fields := make(map[string]string)
	for _, tok := range strings.Fields(line) {
		k, v, _ := strings.Cut(tok, "=")
		if k == "" {
			return nil, fmt.Errorf("pmi: malformed field %q in line %q", tok, line)
		}
		fields[k] = v
	}
	if fields["cmd"] == "" && fields["mcmd"] == "" {
		return nil, fmt.Errorf("pmi: line without cmd: %q", line)
	}
	return fields, nil
}

// safeByte reports whether b may appear unescaped in an encoded value:
// printable ASCII except space, '%' (the escape character) and '='.
func safeByte(b byte) bool {
	return b > ' ' && b < 0x7f && b != '%' && b != '='
}

// EncodeValue makes an arbitrary byte string safe to carry as a PMI-1
// value. Bytes that are printable ASCII other than space, '%' and '=' are
// kept; every other byte becomes %XX (two upper-case hex digits). Strings
// made only of safe bytes are thus unchanged, which keeps ordinary values
// readable by other PMI clients. The result is never empty (servers may
// refuse empty values): the empty string is written as the reserved token
// "%-", which no non-empty input encodes to.
func EncodeValue(s string) string {
	if s == "" {
		return emptyValue
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !safeByte(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if safeByte(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

// emptyValue is how EncodeValue writes the empty string.
const emptyValue = "%-"

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// DecodeValue inverts EncodeValue. It is lenient so that values written by
// other PMI clients (which do not encode) come back unchanged as long as
// they contain no "%XX" sequence: a '%' not followed by two hex digits is
// kept literally.
func DecodeValue(s string) string {
	if s == emptyValue {
		return ""
	}
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				b = append(b, hi<<4|lo)
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// ErrLineTooLong is returned by ReadLine when a peer sends a line longer
// than MaxLine.
var ErrLineTooLong = errors.New("pmi: line too long")

// ReadLine reads one '\n'-terminated line from r and returns it without
// the newline. A final line without newline before EOF is returned with a
// nil error; EOF is returned only when nothing was read.
func ReadLine(r *bufio.Reader) (string, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLine {
			return "", ErrLineTooLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return string(buf[:len(buf)-1]), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(buf) > 0 && errors.Is(err, io.EOF):
			return string(buf), nil
		default:
			return "", err
		}
	}
}
