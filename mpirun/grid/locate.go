package grid

import (
	"strconv"
	"strings"
)

// locator maps the paths of a TOML document's tables and keys to the
// lines where they are written, so that errors found after decoding can
// name a line. BurntSushi/toml keeps key positions private, and an array
// of tables has one key for all its elements, so the locator reads the
// text itself. It relies on the document having parsed: it only needs to
// tell headers, key lines and the continuation lines of multi-line values
// apart.
//
// Paths name array-of-table elements by index: "site[1].machine[0].procs".
type locator struct {
	lines map[string]int
}

func newLocator(text string) *locator {
	l := &locator{lines: map[string]int{}}
	counts := map[string]int{} // resolved array-of-tables path -> elements so far
	table := ""                // resolved path of the current table
	depth := 0                 // open brackets/braces of a multi-line value
	inML := ""                 // open multi-line string delimiter
	for i, raw := range strings.Split(text, "\n") {
		ln := i + 1
		line := raw
		if inML != "" {
			if j := strings.Index(line, inML); j >= 0 {
				line = line[j+3:]
				inML = ""
			} else {
				continue
			}
		}
		if depth > 0 {
			depth += bracketDelta(line, &inML)
			continue
		}
		s := strings.TrimSpace(stripComment(line))
		if s == "" {
			continue
		}
		if strings.HasPrefix(s, "[[") {
			parts := splitKey(strings.TrimSuffix(strings.TrimPrefix(s, "[["), "]]"))
			p := resolve(parts[:len(parts)-1], counts)
			p = join(p, parts[len(parts)-1])
			counts[p]++
			table = p + "[" + strconv.Itoa(counts[p]-1) + "]"
			l.set(table, ln)
			continue
		}
		if strings.HasPrefix(s, "[") {
			parts := splitKey(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
			table = resolve(parts, counts)
			l.set(table, ln)
			continue
		}
		eq := keyEnd(s)
		if eq < 0 {
			continue
		}
		for _, k := range prefixes(splitKey(s[:eq])) {
			l.set(join(table, k), ln)
		}
		depth = bracketDelta(s[eq+1:], &inML)
	}
	return l
}

func (l *locator) set(path string, line int) {
	if _, ok := l.lines[path]; !ok {
		l.lines[path] = line
	}
}

// line returns the line of path or, failing that, of its nearest written
// ancestor (an element of an inline array is on its key's line); 0 when
// nothing is known.
func (l *locator) line(path string) int {
	for path != "" {
		if n, ok := l.lines[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// resolve turns header parts into a path, giving array-of-tables parts
// the index of their last element.
func resolve(parts []string, counts map[string]int) string {
	p := ""
	for _, part := range parts {
		p = join(p, part)
		if n := counts[p]; n > 0 {
			p += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	return p
}

// prefixes of a dotted key: a.b.c -> a, a.b, a.b.c.
func prefixes(parts []string) []string {
	out := make([]string, len(parts))
	for i := range parts {
		out[i] = strings.Join(parts[:i+1], ".")
	}
	return out
}

// splitKey splits a (possibly dotted, possibly quoted) key into its parts.
func splitKey(s string) []string {
	var parts []string
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(b.String()))
			b.Reset()
		case c == ' ' || c == '\t':
		default:
			b.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(b.String()))
}

// keyEnd is the index of the '=' that ends a key line's key, -1 if none.
func keyEnd(s string) int {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			return i
		}
	}
	return -1
}

// stripComment removes a '#' comment outside strings.
func stripComment(s string) string {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return s[:i]
		}
	}
	return s
}

// bracketDelta counts the brackets and braces a value opens minus those it
// closes, outside strings, and notes a multi-line string left open.
func bracketDelta(s string, inML *string) int {
	d := 0
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote == 0 && (strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], "'''")) {
			delim := s[i : i+3]
			if j := strings.Index(s[i+3:], delim); j >= 0 {
				i += 3 + j + 2
				continue
			}
			*inML = delim
			return d
		}
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return d
		case c == '[' || c == '{':
			d++
		case c == ']' || c == '}':
			d--
		}
	}
	return d
}
