package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

type impl int

const (
	implNone impl = iota // no implementation: the stub raises MPI_ERR_UNSUPPORTED_OPERATION
	implGo               // a hand-written Go func MPI_X in capi
	implC                // a hand-written C PMPI_X in a capi/*.c file
	implColl             // a collective: MPI_X generated into capi/zz_coll.go (coll.go)
)

// Func is one line of the table.
type Func struct {
	Ret      string
	Name     string // MPI_X or MPIX_X
	Params   []Param
	Variadic bool
	Impl     impl
	// Express: the PMPI_X shim first tries the C fast path
	// gmpi_express_X (capi/express.c) and enters Go only when that
	// declines (a "#! express MPI_X ..." line of the table).
	Express bool
}

// Param is one named parameter: Type is everything before the name (for
// "const int ranges[][3]" that is "const int"), Suffix the array part.
type Param struct {
	Type, Name, Suffix string
}

var (
	lineRE  = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*) (MPIX?_[A-Za-z0-9_]+)\((.*)\)$`)
	paramRE = regexp.MustCompile(`^(.*[^A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)((?:\[[^]]*\])*)$`)
)

func readTable(path string) ([]*Func, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var funcs []*Func
	seen := map[string]bool{}
	express := map[string]int{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if names, ok := strings.CutPrefix(line, "#! express "); ok {
			for _, name := range strings.Fields(names) {
				express[name] = n
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, n, f.Name)
		}
		seen[f.Name] = true
		funcs = append(funcs, f)
	}
	for _, f := range funcs {
		if _, ok := express[f.Name]; ok {
			f.Express = true
			delete(express, f.Name)
		}
	}
	for name, n := range express {
		return nil, fmt.Errorf("%s:%d: express function %s is not in the table", path, n, name)
	}
	return funcs, sc.Err()
}

func parseLine(line string) (*Func, error) {
	m := lineRE.FindStringSubmatch(line)
	if m == nil {
		return nil, fmt.Errorf("not a prototype: %q", line)
	}
	f := &Func{Ret: m[1], Name: m[2]}
	if _, ok := retKinds[f.Ret]; !ok {
		return nil, fmt.Errorf("%s: unknown return type %q", f.Name, f.Ret)
	}
	if strings.TrimSpace(m[3]) == "void" {
		return f, nil
	}
	for _, ps := range strings.Split(m[3], ",") {
		ps = strings.TrimSpace(ps)
		if ps == "..." {
			f.Variadic = true
			continue
		}
		pm := paramRE.FindStringSubmatch(ps)
		if pm == nil {
			return nil, fmt.Errorf("%s: cannot parse parameter %q", f.Name, ps)
		}
		p := Param{Type: strings.TrimSpace(pm[1]), Name: pm[2], Suffix: pm[3]}
		if strings.Trim(p.Type, " *") == "const" || strings.Trim(p.Type, " *") == "" {
			return nil, fmt.Errorf("%s: parameter %q has no name", f.Name, ps)
		}
		if _, err := p.classify(); err != nil {
			return nil, fmt.Errorf("%s: %v", f.Name, err)
		}
		f.Params = append(f.Params, p)
	}
	return f, nil
}

// decl renders the parameter as C.
func (p Param) decl() string {
	if strings.HasSuffix(p.Type, "*") {
		return p.Type + p.Name + p.Suffix
	}
	return p.Type + " " + p.Name + p.Suffix
}

func (f *Func) proto(name string) string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.decl())
	}
	if f.Variadic {
		ps = append(ps, "...")
	}
	if len(ps) == 0 {
		ps = []string{"void"}
	}
	return fmt.Sprintf("%s %s(%s)", f.Ret, name, strings.Join(ps, ", "))
}

// shimName is the Go export that PMPI_X calls: gmpi_Send for MPI_Send,
// gmpix_Comm_revoke for MPIX_Comm_revoke.
func (f *Func) shimName() string {
	if rest, ok := strings.CutPrefix(f.Name, "MPIX_"); ok {
		return "gmpix_" + rest
	}
	return "gmpi_" + strings.TrimPrefix(f.Name, "MPI_")
}

// A goKind is how one C parameter or result crosses into Go: goType is the
// type of the hand-written Go function, cType the type in the C declaration
// of the export (pointers cross as void* and are converted in the shim).
type goKind struct{ goType, cType string }

var (
	kInt32   = goKind{"int32", "int"}
	kInt64   = goKind{"int64", "long long"}
	kFloat64 = goKind{"float64", "double"}
	kPInt32  = goKind{"*int32", "void *"}
	kPInt64  = goKind{"*int64", "void *"}
	kPFloat  = goKind{"*float64", "void *"}
	kPStatus = goKind{"*Status", "void *"}
	kPByte   = goKind{"*byte", "void *"}
	kPointer = goKind{"unsafe.Pointer", "void *"}
)

// int32Types are int and the typedefs of int (handles, MPI_Fint, enums).
var int32Types = map[string]bool{
	"int": true, "MPI_Comm": true, "MPI_Datatype": true, "MPI_Group": true, "MPI_Op": true,
	"MPI_Request": true, "MPI_Errhandler": true, "MPI_Info": true, "MPI_Win": true,
	"MPI_Message": true, "MPI_Session": true, "MPI_Fint": true, "MPIX_Grequest_class": true,
	"MPI_T_cb_safety": true, "MPI_T_source_order": true,
}

var int64Types = map[string]bool{"MPI_Aint": true, "MPI_Count": true, "MPI_Offset": true}

// pointerTypes are typedefs that are pointers (or function types, which
// decay to pointers as parameters).
var pointerTypes = map[string]bool{
	"MPI_File": true, "MPI_T_enum": true, "MPI_T_cvar_handle": true, "MPI_T_pvar_handle": true,
	"MPI_T_pvar_session": true, "MPI_T_event_registration": true, "MPI_T_event_instance": true,
}

// structTypes are the C types that may appear behind a pointer besides
// scalars and pointer typedefs.
var structTypes = map[string]bool{"void": true, "MPI_F08_status": true, "MPI_Status": true, "char": true,
	"double": true}

var retKinds = map[string]goKind{
	"int": kInt32, "double": kFloat64, "MPI_Aint": kInt64, "MPI_Count": kInt64, "MPI_Offset": kInt64,
	"MPI_Fint": kInt32, "MPI_File": kPointer,
}

func retKind(t string) goKind { return retKinds[t] }

func (p Param) kind() goKind {
	k, err := p.classify()
	if err != nil {
		panic(err)
	}
	return k
}

// classify implements the type mapping documented in the package comment of
// the generator and relied on by the hand-written functions.
func (p Param) classify() (goKind, error) {
	t := strings.ReplaceAll(p.Type, "const", " ")
	levels := strings.Count(t, "*")
	if p.Suffix != "" {
		levels++ // an array parameter is a pointer, int x[][3] included
	}
	base := strings.Join(strings.Fields(strings.ReplaceAll(t, "*", " ")), " ")
	isFunc := strings.HasSuffix(base, "_function") || strings.HasSuffix(base, "_function_c")
	switch {
	case !isFunc && !int32Types[base] && !int64Types[base] && !pointerTypes[base] && !structTypes[base]:
		return goKind{}, fmt.Errorf("parameter %s: unknown C type %q", p.Name, base)
	case levels == 0 && int32Types[base]:
		return kInt32, nil
	case levels == 0 && int64Types[base]:
		return kInt64, nil
	case levels == 0 && base == "double":
		return kFloat64, nil
	case levels == 0 && (pointerTypes[base] || isFunc):
		return kPointer, nil
	case levels == 0:
		return goKind{}, fmt.Errorf("parameter %s: %q passed by value", p.Name, base)
	case levels == 1 && int32Types[base]:
		return kPInt32, nil
	case levels == 1 && int64Types[base]:
		return kPInt64, nil
	case levels == 1 && base == "double":
		return kPFloat, nil
	case levels == 1 && base == "MPI_Status":
		return kPStatus, nil
	case levels == 1 && base == "char":
		return kPByte, nil
	}
	return kPointer, nil
}
