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
// printable ASCII except space, '%' (the escape character), '=' and ';'
// (PMI-2's field separator, which neither hydra nor Slurm escapes).
func safeByte(b byte) bool {
	return b > ' ' && b < 0x7f && b != '%' && b != '=' && b != ';'
}

// EncodeValue makes an arbitrary byte string safe to carry as a PMI-1 or
// PMI-2 value. Bytes that are printable ASCII other than space, '%', '='
// and ';' are
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

// The PMI-2 wire protocol frames every message as a 6-character decimal
// length (space padded; MPICH writes it right-justified, Slurm
// left-justified) followed by that many bytes of ';'-terminated key=value
// fields, the first being cmd=<name>:
//
//	    38cmd=kvs-get;jobid=kvs_1;key=card-0;
//
// No escape exists for ';' (Slurm and hydra both split at every ';'), so
// values must not contain one: EncodeValue never produces it. A PMI-2
// session starts with one PMI-1 line, "cmd=init pmi_version=2
// pmi_subversion=0", which the server answers in PMI-1 form.

// lenField is the size of a PMI-2 message's length prefix.
const lenField = 6

// FormatCommand2 builds one framed PMI-2 message "<len>cmd=<cmd>;k1=v1;...;"
// from cmd and the alternating keys and values in kv, which must not
// contain ';'.
func FormatCommand2(cmd string, kv ...string) string {
	if len(kv)%2 != 0 {
		panic("pmi.FormatCommand2: odd number of key/value arguments")
	}
	var b strings.Builder
	b.WriteString("cmd=")
	b.WriteString(cmd)
	b.WriteByte(';')
	for i := 0; i < len(kv); i += 2 {
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(kv[i+1])
		b.WriteByte(';')
	}
	return fmt.Sprintf("%*d", lenField, b.Len()) + b.String()
}

// ErrBadFrame is wrapped by ReadCommand2's errors for a length prefix that
// is not a decimal number in [1, MaxLine].
var ErrBadFrame = errors.New("pmi: bad PMI-2 length prefix")

// ReadCommand2 reads one framed PMI-2 message from r and returns its body
// (without the length prefix). It never reads past the message.
func ReadCommand2(r io.Reader) (string, error) {
	var hdr [lenField]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(hdr[:]))
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", fmt.Errorf("%w %q", ErrBadFrame, hdr[:])
		}
		n = n*10 + int(s[i]-'0')
	}
	if s == "" || n < 1 || n > MaxLine {
		return "", fmt.Errorf("%w %q", ErrBadFrame, hdr[:])
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return "", err
	}
	return string(body), nil
}

// ParseCommand2 splits a PMI-2 message body into its fields: fields end
// at ';' (empty ones are skipped), each is split at its first '=', and
// the first must be cmd=<name>. Repeated keys keep the last value.
func ParseCommand2(body string) (map[string]string, error) {
	fields := make(map[string]string)
	first := true
	for tok := range strings.SplitSeq(body, ";") {
		if tok == "" {
			continue
		}
		k, v, _ := strings.Cut(tok, "=")
		if k == "" {
			return nil, fmt.Errorf("pmi: malformed field %q in PMI-2 message %q", tok, body)
		}
		if first && (k != "cmd" || v == "") {
			return nil, fmt.Errorf("pmi: PMI-2 message does not start with cmd=: %q", body)
		}
		if !first && k == "cmd" {
			return nil, fmt.Errorf("pmi: PMI-2 message has a second cmd field: %q", body)
		}
		first = false
		fields[k] = v
	}
	if first {
		return nil, fmt.Errorf("pmi: empty PMI-2 message")
	}
	return fields, nil
}
