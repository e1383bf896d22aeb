// Command importmpich builds the first version of capi/spec/mpi.txt from the
// prototypes that Debian's MPICH headers declare. It is a one-off import
// tool: the table it writes is committed and edited by hand afterwards, and
// the generator (capi/internal/gen) reads only the table.
//
// Usage (from the capi directory):
//
//	go run ./internal/gen/importmpich [-I /usr/include/x86_64-linux-gnu/mpich] > spec/mpi.txt
//
// It preprocesses mpi.h with the C compiler (so the headers' conditionals
// are resolved), keeps every declaration of a function named MPI_*, MPIX_*
// (the PMPI_ forms are derived by the generator), normalizes whitespace and
// gives a name to every unnamed parameter (taken from the PMPI_ declaration
// when that one names it, else derived from the type).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// statusArrayRE finds "MPI_Status name[]". The table spells it
// "MPI_Status *name" (the same ABI): GCC 11+ warns (-Wstringop-overflow)
// when the sentinel MPI_STATUSES_IGNORE, (MPI_Status *)1, is passed to an
// array parameter, but not to a pointer parameter.
var statusArrayRE = regexp.MustCompile(`^MPI_Status ([A-Za-z_0-9]+)\[\]$`)

var declRE = regexp.MustCompile(`^(int|double|MPI_Aint|MPI_Fint|MPI_File) (P?MPIX?_[A-Za-z0-9_]+) ?\((.*)\)$`)

type decl struct {
	ret, name string
	params    []string
}

func main() {
	inc := flag.String("I", "/usr/include/x86_64-linux-gnu/mpich", "MPICH include directory")
	cc := flag.String("cc", "gcc", "C compiler used as preprocessor")
	flag.Parse()

	cmd := exec.Command(*cc, "-E", "-P", "-DMPICH_SKIP_MPICXX", "-I", *inc, *inc+"/mpi.h")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "importmpich:", err)
		os.Exit(1)
	}
	text := string(bytes.ReplaceAll(out, []byte("\n"), []byte(" ")))
	var order []string
	decls := map[string]decl{}
	for _, stmt := range strings.Split(text, ";") {
		stmt = strings.Join(strings.Fields(stmt), " ")
		stmt = strings.ReplaceAll(stmt, "( ", "(")
		stmt = strings.ReplaceAll(stmt, " )", ")")
		m := declRE.FindStringSubmatch(stmt)
		if m == nil {
			continue
		}
		d := decl{ret: m[1], name: m[2], params: splitParams(m[3])}
		if _, dup := decls[d.name]; dup {
			continue
		}
		decls[d.name] = d
		if !strings.HasPrefix(d.name, "PMPI") {
			order = append(order, d.name)
		}
	}

	fmt.Println("# gmpi API table: one C prototype per line, the MPI_/MPIX_ name only;")
	fmt.Println("# the generator derives PMPI_/PMPIX_ from it. Imported from MPICH 4.0.2's")
	fmt.Println("# headers by capi/internal/gen/importmpich, then maintained by hand.")
	fmt.Println("# Lines starting with '#' and blank lines are ignored. Status arrays are")
	fmt.Println("# spelled MPI_Status *x rather than MPI_Status x[] (same ABI) so that GCC")
	fmt.Println("# does not warn when MPI_STATUSES_IGNORE is passed.")
	for _, name := range order {
		d := decls[name]
		pd, hasP := decls["P"+name]
		for i, p := range d.params {
			if p == "void" || p == "..." || paramName(p) != "" {
				continue
			}
			named := ""
			if hasP && i < len(pd.params) && paramName(pd.params[i]) != "" {
				named = pd.params[i]
			}
			if named == "" {
				named = withName(p, fmt.Sprintf("arg%d", i+1))
			}
			d.params[i] = named
		}
		for i, p := range d.params {
			d.params[i] = statusArrayRE.ReplaceAllString(p, "MPI_Status *$1")
		}
		fmt.Printf("%s %s(%s)\n", d.ret, d.name, strings.Join(d.params, ", "))
	}
}

func splitParams(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

var typeWords = map[string]bool{"const": true, "int": true, "char": true, "void": true, "double": true,
	"long": true, "unsigned": true, "struct": true}

// paramName returns the declared name of a parameter, or "" if it has none.
func paramName(p string) string {
	p = strings.TrimSpace(regexp.MustCompile(`(\[[^]]*\])+$`).ReplaceAllString(p, ""))
	f := strings.FieldsFunc(p, func(r rune) bool { return r == ' ' || r == '*' })
	if len(f) < 2 {
		return ""
	}
	last := f[len(f)-1]
	if typeWords[last] || strings.HasPrefix(last, "MPI") {
		return ""
	}
	return last
}

// withName inserts name into an unnamed parameter declaration.
func withName(p, name string) string {
	if strings.HasSuffix(p, "*") {
		return p + name
	}
	return p + " " + name
}
