// Package fuzzseed gives gmpi's fuzz targets their seed corpora as files.
//
// A target lists its seeds in Go (one []any per input, the target's
// argument types in order) and calls Add: every seed is added with f.Add,
// and with GMPI_WRITE_CORPUS=1 also written to
// testdata/fuzz/<target>/seed-<hash> in Go's corpus file format, so that
// the corpus directory (which go test replays, with any crasher found
// later kept next to the seeds) always holds every message kind the
// target's seeds cover:
//
//	GMPI_WRITE_CORPUS=1 go test ./... -run '^Fuzz'
package fuzzseed

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Add adds every seed to f and, if GMPI_WRITE_CORPUS=1, writes it to the
// target's corpus directory.
func Add(f *testing.F, seeds ...[]any) {
	f.Helper()
	write := os.Getenv("GMPI_WRITE_CORPUS") == "1"
	dir := filepath.Join("testdata", "fuzz", f.Name())
	if write {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range seeds {
		f.Add(s...)
		if !write {
			continue
		}
		text := Encode(s...)
		sum := sha256.Sum256([]byte(text))
		if err := os.WriteFile(filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8])), []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
	}
}

// Encode renders values in the corpus file format of go test
// ("go test fuzz v1" and one Go literal a line).
func Encode(vals ...any) string {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, v := range vals {
		switch x := v.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%s)\n", strconv.Quote(string(x)))
		case string:
			fmt.Fprintf(&b, "string(%s)\n", strconv.Quote(x))
		case uint8:
			fmt.Fprintf(&b, "byte('\\x%02x')\n", x)
		case bool:
			fmt.Fprintf(&b, "bool(%v)\n", x)
		case int, int8, int16, int32, int64, uint, uint16, uint32, uint64:
			fmt.Fprintf(&b, "%T(%d)\n", x, x)
		default:
			panic(fmt.Sprintf("fuzzseed: no corpus encoding for %T", v))
		}
	}
	return b.String()
}
