package main

import (
	"bytes"
	"fmt"
	"strings"
)

// The collective operations (MPI_X, MPI_IX, MPI_X_init, each also _c) are
// generated whole: a function of one of these families that no
// hand-written file implements gets a Go function MPI_X in
// capi/zz_coll.go that translates its C parameters into a collCall by
// their kind and hands it to runColl (capi/api_coll.go), which checks the
// arguments and runs the operation. The kind of a parameter is given by
// its name (collParamKinds); an unknown name is a generator error.

// collOps maps a family's base name (lower case) to its runtime constant.
var collOps = map[string]string{
	"barrier": "CollBarrier", "bcast": "CollBcast", "gather": "CollGather", "gatherv": "CollGatherv",
	"scatter": "CollScatter", "scatterv": "CollScatterv", "allgather": "CollAllgather",
	"allgatherv": "CollAllgatherv", "alltoall": "CollAlltoall", "alltoallv": "CollAlltoallv",
	"alltoallw": "CollAlltoallw", "reduce": "CollReduce", "allreduce": "CollAllreduce",
	"reduce_scatter": "CollReduceScatter", "reduce_scatter_block": "CollReduceScatterBlock",
	"scan": "CollScan", "exscan": "CollExscan",
}

// collParamKinds maps a parameter name to the collCall field it fills and
// how: "v" a value (converted to the field's type), "a" a count or
// displacement array (int or MPI_Count/MPI_Aint elements), "p" a pointer
// kept as is.
var collParamKinds = map[string]struct{ field, how string }{
	"sendbuf": {"sbuf", "p"}, "recvbuf": {"rbuf", "p"}, "buffer": {"rbuf", "p"},
	"sendcount": {"scount", "v"}, "recvcount": {"rcount", "v"}, "count": {"rcount", "v"},
	"sendtype": {"stype", "v"}, "recvtype": {"rtype", "v"}, "datatype": {"rtype", "v"},
	"sendcounts": {"scounts", "a"}, "recvcounts": {"rcounts", "a"}, "displs": {"displs", "a"},
	"sdispls": {"sdispls", "a"}, "rdispls": {"rdispls", "a"},
	"sendtypes": {"stypes", "a"}, "recvtypes": {"rtypes", "a"},
	"op": {"opH", "v"}, "root": {"root", "v"}, "comm": {"comm", "v"}, "info": {"info", "v"},
	"request": {"request", "p"},
}

// collFamily parses a collective entry point's name: its operation
// constant and mode (blocking, nonblocking, persistent); ok is false for
// any other function.
func collFamily(name string) (op, mode string, ok bool) {
	s, found := strings.CutPrefix(name, "MPI_")
	if !found {
		return "", "", false
	}
	s = strings.ToLower(strings.TrimSuffix(s, "_c"))
	mode = "ncBlocking"
	if b, found := strings.CutSuffix(s, "_init"); found {
		s, mode = b, "ncPersistent"
	}
	if op, ok = collOps[s]; ok && mode == "ncBlocking" {
		return op, mode, true
	}
	if ok {
		return op, mode, true
	}
	if b, found := strings.CutPrefix(s, "i"); found && mode == "ncBlocking" {
		op, ok = collOps[b]
		return op, "ncNonblocking", ok
	}
	return "", "", false
}

// genColl writes capi/zz_coll.go: MPI_X for every collective function
// marked implColl.
func genColl(funcs []*Func) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n", header)
	b.WriteString("package main\n\n")
	b.WriteString("// The collective entry points: each translates its parameters into a\n" +
		"// collCall by their kind (capi/internal/gen/coll.go) and calls runColl.\n\n")
	b.WriteString("import (\n\"unsafe\"\n\nmpirt \"gmpi/runtime\"\n)\n\n")
	for _, f := range funcs {
		if f.Impl != implColl {
			continue
		}
		op, mode, _ := collFamily(f.Name)
		var ps, fields []string
		fields = append(fields, fmt.Sprintf("fn: %q", f.Name), "coll: mpirt."+op, "mode: "+mode)
		for _, p := range f.Params {
			k := p.kind()
			n := goParamName(p.Name)
			ps = append(ps, n+" "+k.goType)
			pk, ok := collParamKinds[p.Name]
			if !ok {
				return nil, fmt.Errorf("%s: parameter %s has no collective kind", f.Name, p.Name)
			}
			switch pk.how {
			case "v":
				if pk.field == "scount" || pk.field == "rcount" {
					fields = append(fields, fmt.Sprintf("%s: int64(%s)", pk.field, n))
				} else {
					fields = append(fields, fmt.Sprintf("%s: %s", pk.field, n))
				}
			case "p":
				fields = append(fields, fmt.Sprintf("%s: %s", pk.field, n))
			case "a":
				fields = append(fields, fmt.Sprintf("%s: carr{unsafe.Pointer(%s), %v}", pk.field, n, k.goType == "*int64"))
			}
		}
		if strings.HasSuffix(f.Name, "_c") {
			fields = append(fields, "large: true")
		}
		fmt.Fprintf(&b, "func %s(%s) int32 {\nreturn runColl(&collCall{%s})\n}\n\n", f.Name, strings.Join(ps, ", "), strings.Join(fields, ", "))
	}
	return b.Bytes(), nil
}
