// Command probegen reads MPICH's installed mpi.h (with mpio.h and
// mpi_proto.h) and writes two C files into a directory:
//
//   - probe.c prints one line "name value" for every macro, enumeration
//     constant, typedef (size, alignment, signedness), structure field
//     (offset, size) and external object MPICH's header defines. Compiled
//     once against MPICH's header and once against gmpi's, the two outputs
//     must be identical.
//   - compat.c includes gmpi's header and repeats, under new names, every
//     function type, prototype and external object of MPICH's header, each
//     followed by a static assertion that gmpi declares a compatible type.
//     It must compile.
//
// Usage: go run ./tests/abi/probegen -I /usr/include/x86_64-linux-gnu/mpich -o DIR
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// skipMacro lists macros that are MPICH build details, not ABI: the
// attribute hooks, include guards and QMPI (which gmpi does not provide).
var skipMacro = regexp.MustCompile(`^(MPICH_ATTR_|MPICH_API_PUBLIC|ROMIO_API_PUBLIC|MPIU_DLL_SPEC|NO_TAGS_WITH_MODIFIERS|MPI_INCLUDED$|MPIO_INCLUDE$|MPI_PROTO_H_INCLUDED|QMPI_|MPICH_DEFINE_ATTR_TYPE_TYPES)`)

// skipName lists declarations gmpi does not reproduce: the QMPI tool
// interface.
var skipName = regexp.MustCompile(`^(QMPI|qmpi)`)

type macro struct {
	name, value string
	funcLike    bool
}

type typedef struct {
	name   string
	text   string // the declaration, for compat.c
	kind   string // "func", "struct", "enum", "scalar"
	fields []string
}

func main() {
	inc := flag.String("I", "/usr/include/x86_64-linux-gnu/mpich", "MPICH include directory")
	out := flag.String("o", ".", "output directory")
	cc := flag.String("cc", "cc", "C compiler used as preprocessor")
	flag.Parse()

	cmd := exec.Command(*cc, "-E", "-dD", "-DMPICH_SKIP_MPICXX", "-I", *inc, filepath.Join(*inc, "mpi.h"))
	cmd.Stderr = os.Stderr
	pp, err := cmd.Output()
	if err != nil {
		fatal(err)
	}

	// Keep what comes from MPICH's own files.
	var macros []macro
	var code strings.Builder
	inMPICH := false
	defineRE := regexp.MustCompile(`^#define ([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?\s*(.*)$`)
	sc := bufio.NewScanner(strings.NewReader(string(pp)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# ") {
			f := strings.Fields(line)
			if len(f) >= 3 {
				file := strings.Trim(f[2], `"`)
				inMPICH = strings.HasPrefix(file, *inc+"/")
			}
			continue
		}
		if !inMPICH {
			continue
		}
		if m := defineRE.FindStringSubmatch(line); m != nil {
			if !skipMacro.MatchString(m[1]) {
				macros = append(macros, macro{name: m[1], value: strings.TrimSpace(m[3]), funcLike: m[2] != ""})
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		code.WriteString(line)
		code.WriteByte('\n')
	}

	typedefs, enumConsts, externs, protos := parseDecls(code.String())
	funcTypes := map[string]bool{}
	for i, t := range typedefs {
		// typedef F G; where F is a function type makes G one too.
		if t.kind == "scalar" {
			if ids := identRE.FindAllString(t.text, -1); len(ids) == 3 && funcTypes[ids[1]] {
				typedefs[i].kind = "func"
			}
		}
		if typedefs[i].kind == "func" {
			funcTypes[t.name] = true
		}
	}
	typeNames := map[string]bool{}
	for _, t := range typedefs {
		typeNames[t.name] = true
	}
	funcNames := map[string]bool{}
	for _, p := range protos {
		funcNames[p.name] = true
	}

	if err := os.WriteFile(filepath.Join(*out, "probe.c"), genProbe(macros, typedefs, enumConsts, externs, typeNames, funcNames), 0o644); err != nil {
		fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "compat.c"), genCompat(typedefs, externs, protos), 0o644); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "probegen:", err)
	os.Exit(1)
}

type named struct{ name, text string }

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// parseDecls splits the preprocessed MPICH code into top-level
// declarations and sorts them into typedefs, enumeration constants,
// external objects and function prototypes.
func parseDecls(src string) (typedefs []typedef, enumConsts []string, externs, protos []named) {
	var stmts []string
	depth, start := 0, 0
	for i, c := range src {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ';':
			if depth == 0 {
				stmts = append(stmts, strings.Join(strings.Fields(src[start:i]), " "))
				start = i + 1
			}
		}
	}
	for _, s := range stmts {
		s = strings.TrimPrefix(s, `extern "C" { `)
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if open := strings.Index(s, "{"); open >= 0 && strings.Contains(s[:open], "enum") && !strings.Contains(s[:open], "QMPI") {
			body := s[open+1 : strings.LastIndex(s, "}")]
			for _, item := range strings.Split(body, ",") {
				item = strings.TrimSpace(item)
				if item == "" {
					continue
				}
				name := identRE.FindString(item)
				if !skipName.MatchString(name) {
					enumConsts = append(enumConsts, name)
				}
			}
		}
		switch {
		case strings.HasPrefix(s, "typedef "):
			t := parseTypedef(s)
			if t.name != "" && !skipName.MatchString(t.name) {
				typedefs = append(typedefs, t)
			}
		case strings.HasPrefix(s, "extern "):
			decl := strings.TrimSuffix(s, "[1]")
			ids := identRE.FindAllString(decl, -1)
			name := ids[len(ids)-1]
			if !skipName.MatchString(name) {
				externs = append(externs, named{name, s})
			}
		case strings.Contains(s, "(") && !strings.HasPrefix(s, "enum") && !strings.HasPrefix(s, "struct"):
			m := regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*) ?\(`).FindStringSubmatch(s)
			if m != nil && !skipName.MatchString(m[1]) {
				protos = append(protos, named{m[1], s})
			}
		}
	}
	return
}

var funcTypedefRE = regexp.MustCompile(`^typedef [^(]*\( ?\*? ?([A-Za-z_][A-Za-z0-9_]*) ?\) ?\(`)

func parseTypedef(s string) typedef {
	if m := funcTypedefRE.FindStringSubmatch(s); m != nil {
		return typedef{name: m[1], text: s, kind: "func"}
	}
	if open := strings.Index(s, "{"); open >= 0 {
		closeAt := strings.LastIndex(s, "}")
		ids := identRE.FindAllString(s[closeAt:], -1)
		t := typedef{name: ids[len(ids)-1], text: s, kind: "struct"}
		if strings.Contains(s[:open], "enum") {
			t.kind = "enum"
			return t
		}
		for _, f := range strings.Split(s[open+1:closeAt], ";") {
			f = regexp.MustCompile(`\[[^]]*\]`).ReplaceAllString(f, "")
			if ids := identRE.FindAllString(f, -1); len(ids) > 1 {
				t.fields = append(t.fields, ids[len(ids)-1])
			}
		}
		return t
	}
	ids := identRE.FindAllString(s, -1)
	return typedef{name: ids[len(ids)-1], text: s, kind: "scalar"}
}

const probeHead = `/* Generated by tests/abi/probegen from MPICH's mpi.h; compiled against
 * MPICH's header and against gmpi's, the outputs must be identical. */
#define _GNU_SOURCE
#include <mpi.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#define TYPENAME(x) _Generic((x), \
    char: "char", signed char: "schar", unsigned char: "uchar", short: "short", \
    unsigned short: "ushort", int: "int", unsigned: "uint", long: "long", \
    unsigned long: "ulong", long long: "llong", unsigned long long: "ullong", \
    double: "double", char *: "char*", const char *: "const char*", void *: "void*", \
    int *: "int*", char **: "char**", char ***: "char***", \
    MPI_Status *: "MPI_Status*", MPI_F08_status *: "MPI_F08_status*", MPI_File: "MPI_File", \
    MPI_T_enum: "MPI_T_enum", MPI_T_cvar_handle: "MPI_T_cvar_handle", \
    MPI_T_pvar_handle: "MPI_T_pvar_handle", MPI_T_pvar_session: "MPI_T_pvar_session", \
    MPI_Copy_function *: "copy_fn*", MPI_Delete_function *: "delete_fn*", \
    MPI_User_function *: "user_fn*", MPI_Datarep_conversion_function *: "conv_fn*", \
    MPI_Datarep_conversion_function_c *: "conv_fn_c*", \
    default: "other")

/* Pointer values are printed as numbers when small (sentinels) and as the
 * library symbol they point into otherwise (addresses differ per build). */
static void value(const char *name, const char *type, int size, int isptr, long long v)
{
    Dl_info info;
    if (!isptr || (unsigned long long)v < 65536 || v == -1) {
        printf("%s %s size=%d %lld\n", name, type, size, v);
    } else if (dladdr((void *)(intptr_t)v, &info) && info.dli_sname) {
        /* MPI_X and PMPI_X share an address; print either as MPI_X. */
        const char *sym = info.dli_sname;
        if (sym[0] == 'P' && sym[1] == 'M' && sym[2] == 'P' && sym[3] == 'I')
            sym++;
        printf("%s %s size=%d &%s+%ld\n", name, type, size, sym,
               (long)((char *)(intptr_t)v - (char *)info.dli_saddr));
    } else {
        printf("%s %s size=%d <unresolved address>\n", name, type, size);
    }
}

#define STR_(x) #x
#define STR(x) STR_(x)

#define VALUE(x) value(#x, TYPENAME(x), (int)sizeof(x), __builtin_classify_type(x) == 5, \
    (long long)(intptr_t)(x))

int main(void)
{
`

// genProbe writes probe.c.
func genProbe(macros []macro, typedefs []typedef, enumConsts []string, externs []named,
	typeNames, funcNames map[string]bool) []byte {
	var b strings.Builder
	b.WriteString(probeHead)
	sort.Slice(macros, func(i, j int) bool { return macros[i].name < macros[j].name })
	for _, m := range macros {
		switch {
		case m.funcLike:
			fmt.Fprintf(&b, "#ifdef %s\n    puts(\"%s function-like macro\");\n#else\n    puts(\"%s missing\");\n#endif\n", m.name, m.name, m.name)
		case m.value == "":
			fmt.Fprintf(&b, "#ifdef %s\n    puts(\"%s defined\");\n#else\n    puts(\"%s missing\");\n#endif\n", m.name, m.name, m.name)
		case strings.HasPrefix(m.value, `"`):
			fmt.Fprintf(&b, "    printf(\"%%s %%s\\n\", \"%s\", %s);\n", m.name, m.name)
		case typeNames[m.value]:
			fmt.Fprintf(&b, "    printf(\"%%s type size=%%d\\n\", \"%s\", (int)sizeof(%s));\n", m.name, m.name)
		case funcNames[m.value]:
			fmt.Fprintf(&b, "    printf(\"%%s names the function %%s\\n\", \"%s\", STR(%s));\n", m.name, m.name)
			fmt.Fprintf(&b, "    VALUE(%s);\n", m.name)
		default:
			fmt.Fprintf(&b, "    VALUE(%s);\n", m.name)
		}
	}
	sort.Strings(enumConsts)
	for _, e := range enumConsts {
		fmt.Fprintf(&b, "    VALUE(%s);\n", e)
	}
	sort.Slice(typedefs, func(i, j int) bool { return typedefs[i].name < typedefs[j].name })
	for _, t := range typedefs {
		switch t.kind {
		case "func":
			fmt.Fprintf(&b, "    printf(\"typedef %s function\\n\"); { %s *p = 0; (void)p; }\n", t.name, t.name)
		case "scalar", "enum":
			fmt.Fprintf(&b, "    printf(\"typedef %s size=%%d align=%%d %%s\\n\", (int)sizeof(%s), (int)_Alignof(%s), __builtin_classify_type((%s)0) == 5 ? \"pointer\" : ((%s)-1 < (%s)0 ? \"signed\" : \"unsigned\"));\n",
				t.name, t.name, t.name, t.name, t.name, t.name)
		case "struct":
			fmt.Fprintf(&b, "    printf(\"typedef %s size=%%d align=%%d\\n\", (int)sizeof(%s), (int)_Alignof(%s));\n", t.name, t.name, t.name)
			for _, f := range t.fields {
				fmt.Fprintf(&b, "    printf(\"field %s.%s offset=%%d size=%%d\\n\", (int)offsetof(%s, %s), (int)sizeof(((%s *)0)->%s));\n",
					t.name, f, t.name, f, t.name, f)
			}
		}
	}
	sort.Slice(externs, func(i, j int) bool { return externs[i].name < externs[j].name })
	for _, e := range externs {
		if strings.Contains(e.text, "*") {
			fmt.Fprintf(&b, "    VALUE(%s);\n", e.name)
		} else {
			fmt.Fprintf(&b, "    printf(\"extern %s %%s size=%%d\\n\", TYPENAME(%s), (int)sizeof(%s));\n", e.name, e.name, e.name)
		}
	}
	b.WriteString("    return 0;\n}\n")
	return []byte(b.String())
}

// genCompat writes compat.c: MPICH's declarations renamed, each checked
// against gmpi's.
func genCompat(typedefs []typedef, externs, protos []named) []byte {
	var b strings.Builder
	b.WriteString("/* Generated by tests/abi/probegen: MPICH's function types, prototypes and\n" +
		" * external objects under new names, each checked against gmpi's. */\n" +
		"#include <mpi.h>\n\n#define SAME(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #b \" differs from MPICH\")\n\n")
	rename := func(text, name string) string {
		re := regexp.MustCompile(`\b` + name + `\b`)
		return re.ReplaceAllString(text, "mpich_"+name)
	}
	for _, t := range typedefs {
		if t.kind != "func" {
			continue
		}
		fmt.Fprintf(&b, "%s;\nSAME(mpich_%s, %s);\n", rename(t.text, t.name), t.name, t.name)
	}
	for _, e := range externs {
		fmt.Fprintf(&b, "%s;\nSAME(__typeof__(mpich_%s), __typeof__(%s));\n", rename(e.text, e.name), e.name, e.name)
	}
	for _, p := range protos {
		if !strings.HasPrefix(p.name, "MPI") && !strings.HasPrefix(p.name, "PMPI") {
			continue
		}
		fmt.Fprintf(&b, "%s;\nSAME(__typeof__(mpich_%s), __typeof__(%s));\n", rename(p.text, p.name), p.name, p.name)
	}
	return []byte(b.String())
}
