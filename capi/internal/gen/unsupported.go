package main

import (
	"bytes"
	"fmt"
	"strings"
)

// A function without an implementation still checks its arguments before
// it reports MPI_ERR_UNSUPPORTED_OPERATION, so that a wrong argument gets
// its own class everywhere: PMPI_X calls a generated Go export gmpi_X that
// hands the arguments, each with a check kind derived from its C type and
// name, to unsupportedArgs (capi/unsupported.go). Functions with a window
// argument (one-sided communication, implemented separately), MPI_T_ and
// those that return something other than int keep the plain stub.

// uncheckedArg is the check kind of a parameter, "" for none.
func uncheckedArg(p Param) string {
	k := p.kind()
	base := strings.TrimSpace(strings.ReplaceAll(p.Type, "const", ""))
	switch {
	case k == kInt32 && base == "MPI_Comm":
		return "uComm"
	case k == kInt32 && base == "MPI_Info":
		return "uInfo"
	case k == kInt32 && base == "MPI_Datatype":
		return "uType"
	case k == kInt32 && base == "MPI_Group":
		return "uGroup"
	case k == kInt32 && base == "MPI_Errhandler":
		return "uErrhandler"
	case k == kPointer && base == "MPI_File":
		return "uFile"
	case (k == kInt32 || k == kInt64) && strings.HasSuffix(p.Name, "count"):
		return "uCount"
	case k == kInt32 && base == "int" && p.Name == "root":
		return "uRoot"
	case k == kInt64 && base == "MPI_Offset" && p.Name == "offset":
		return "uOffset"
	case k == kPointer && p.Name == "buf":
		return "uBuf"
	}
	return ""
}

// checkedUnsupported reports whether unimplemented f gets an argument
// check.
func (f *Func) checkedUnsupported() bool {
	if f.Impl != implNone || f.Ret != "int" || strings.HasPrefix(f.Name, "MPI_T_") {
		return false
	}
	any := false
	for _, p := range f.Params {
		if strings.Contains(p.Type, "MPI_Win") {
			return false
		}
		if uncheckedArg(p) != "" {
			any = true
		}
	}
	return any
}

// genUnsupportedShim writes the export gmpi_X of unimplemented f.
func genUnsupportedShim(b *bytes.Buffer, f *Func) {
	var cps, args []string
	for _, p := range f.Params {
		k := p.kind()
		n := goParamName(p.Name)
		if k.goType == "unsafe.Pointer" || strings.HasPrefix(k.goType, "*") {
			cps = append(cps, n+" unsafe.Pointer")
		} else {
			cps = append(cps, n+" "+k.goType)
		}
		switch kind := uncheckedArg(p); {
		case kind == "":
		case k.goType == "unsafe.Pointer":
			args = append(args, fmt.Sprintf("{kind: %s, name: %q, p: %s}", kind, p.Name, n))
		default:
			args = append(args, fmt.Sprintf("{kind: %s, name: %q, v: int64(%s)}", kind, p.Name, n))
		}
	}
	fmt.Fprintf(b, "\n//export %s\nfunc %s(%s) (rc int32) {\n", f.shimName(), f.shimName(), strings.Join(cps, ", "))
	fmt.Fprintf(b, "defer func() {\nif r := recover(); r != nil {\nrc = panicked(%q, r)\n}\nbgExit()\n}()\nbgEnter()\n", f.Name)
	fmt.Fprintf(b, "return unsupportedArgs(%q, []uarg{%s})\n}\n", f.Name, strings.Join(args, ", "))
}
