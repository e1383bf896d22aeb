package fuzzseed

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryTargetHasCorpus: every fuzz target of the module has a seed
// corpus of files in its package's testdata/fuzz/<Target>/, which go test
// replays as regression tests (write it with GMPI_WRITE_CORPUS=1, see the
// package comment).
func TestEveryTargetHasCorpus(t *testing.T) {
	root := filepath.Join("..", "..")
	re := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "build" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			n++
			dir := filepath.Join(filepath.Dir(path), "testdata", "fuzz", m[1])
			if ents, err := os.ReadDir(dir); err != nil || len(ents) == 0 {
				t.Errorf("%s: %s has no seed corpus in %s", path, m[1], dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("found only %d fuzz targets", n)
	}
}
