package main

// Fronts: the ABIs other than MPICH's. For each front the generator writes
// capi/zz_front_<name>.c (compiled only with the build tag gmpi_<name>):
// one PMPI_X per table function with the front's types, MPI_X a weak alias
// of it, that converts the parameters to the inner (MPICH ABI) values,
// calls gmpi_inner_X (capi/zz_pmpi.c's PMPI_X, renamed in a front build by
// capi/zz_inner.h) and converts the results back. How a parameter is
// converted follows from its type, its name and, for arrays, a length
// expression (frontArrayLen); a function with a parameter the rules do not
// cover raises MPI_ERR_UNSUPPORTED_OPERATION in that front and is listed in
// the generated file's header comment.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

type front struct {
	name   string // ompi, abi
	tag    string // the Go build tag
	header string // the front's public mpi.h, relative to capi/
}

var fronts = []front{
	{"ompi", "gmpi_ompi", "front_ompi.h"},
	{"abi", "gmpi_abi", "front_abi.h"},
}

// frontByHand: functions every front writes by hand (front_fstatus.inc):
// the Fortran status conversions, whose layout is the front's own, not a
// conversion of the inner one.
var frontByHand = map[string]bool{
	"MPI_Status_c2f": true, "MPI_Status_f2c": true, "MPI_Status_f082c": true,
	"MPI_Status_c2f08": true, "MPI_Status_f082f": true, "MPI_Status_f2f08": true,
}

// handleKinds maps the handle types to the kind fr_h_out takes.
var handleKinds = map[string]string{
	"MPI_Comm": "FR_COMM", "MPI_Datatype": "FR_DATATYPE", "MPI_Group": "FR_GROUP", "MPI_Op": "FR_OP",
	"MPI_Request": "FR_REQUEST", "MPI_Errhandler": "FR_ERRHANDLER", "MPI_Info": "FR_INFO",
	"MPI_Win": "FR_WIN", "MPI_Session": "FR_SESSION", "MPI_Message": "FR_MESSAGE",
}

// frontArrayLen gives the number of elements of the array parameters the
// conversion must walk: "Func.param" or "*.param" -> a C expression over
// the front's parameters (x) and the converted inner ones (x_).
var frontArrayLen = map[string]string{
	"*.array_of_requests":                           "count",
	"*.array_of_statuses":                           "count",
	"*.array_of_types":                              "count",
	"*.array_of_info":                               "count",
	"MPI_Waitsome.array_of_requests":                "incount",
	"MPI_Testsome.array_of_requests":                "incount",
	"MPI_Waitsome.array_of_statuses":                "(outcount && *outcount > 0 ? *outcount : 0)",
	"MPI_Testsome.array_of_statuses":                "(outcount && *outcount > 0 ? *outcount : 0)",
	"MPI_Request_get_status_some.array_of_statuses": "(outcount && *outcount > 0 ? *outcount : 0)",
	"MPI_Type_get_contents.array_of_datatypes":      "max_datatypes",
	"MPI_Type_get_contents_c.array_of_datatypes":    "max_datatypes",
	"*.sendtypes":                                   "fr_wsize(comm_)",
	"*.recvtypes":                                   "fr_wsize(comm_)",
	"MPI_Neighbor_alltoallw.sendtypes":              "fr_degree(comm_, 0)",
	"MPI_Neighbor_alltoallw.recvtypes":              "fr_degree(comm_, 1)",
	"*.array_of_distribs":                           "ndims",
	"*.array_of_dargs":                              "ndims",
	"MPI_Comm_spawn.array_of_errcodes":              "maxprocs",
	"MPI_Comm_spawn_multiple.array_of_errcodes":     "fr_sum(count, array_of_maxprocs)",
}

func arrayLen(f *Func, p Param) (string, bool) {
	name := f.Name
	if strings.HasPrefix(name, "MPI_Ineighbor_alltoallw") || strings.HasPrefix(name, "MPI_Neighbor_alltoallw") {
		name = "MPI_Neighbor_alltoallw"
	}
	if e, ok := frontArrayLen[name+"."+p.Name]; ok {
		return e, true
	}
	e, ok := frontArrayLen["*."+p.Name]
	return e, ok
}

// inoutHandle: a handle pointer the call reads and writes (every other
// handle pointer is an output only, never read: it may be uninitialized).
func inoutHandle(f *Func, p Param) bool {
	base := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(f.Name, "MPI_"), "MPIX_"), "_c")
	switch p.Name {
	case "array_of_requests":
		return true
	case "request":
		switch base {
		case "Wait", "Test", "Request_free", "Cancel", "Start":
			return true
		}
		return false
	case "message":
		return base == "Mrecv" || base == "Imrecv"
	}
	return strings.HasSuffix(base, "_free") || strings.HasSuffix(base, "_commit") || base == "Comm_disconnect" ||
		base == "File_close" || base == "Session_finalize"
}

// conv is one parameter's conversion: statements before the call, the
// argument, statements after it.
type conv struct {
	check, pre, arg, post string
	cleanup               string
}

var (
	rankNames    = map[string]bool{"source": true, "dest": true, "root": true, "target_rank": true, "rank": true}
	tagNames     = map[string]bool{"tag": true, "sendtag": true, "recvtag": true}
	bufNames     = map[string]bool{"buf": true, "sendbuf": true, "recvbuf": true, "buffer": true, "inbuf": true, "inoutbuf": true, "outbuf": true, "origin_addr": true, "result_addr": true, "compare_addr": true}
	keyvalNames  = map[string]bool{"keyval": true, "comm_keyval": true, "type_keyval": true, "win_keyval": true}
	weightsNames = map[string]bool{"weights": true, "sourceweights": true, "destweights": true}
	// Output strings whose inner maximum exceeds some front's: name -> the
	// inner and front maximum macros.
	strOut = map[string][2]string{
		"MPI_Error_string.string":         {"GMPI_MAX_ERROR_STRING", "MPI_MAX_ERROR_STRING"},
		"MPI_Get_library_version.version": {"GMPI_MAX_LIBRARY_VERSION_STRING", "MPI_MAX_LIBRARY_VERSION_STRING"},
		"MPI_Comm_get_name.comm_name":     {"GMPI_MAX_OBJECT_NAME", "MPI_MAX_OBJECT_NAME"},
		"MPI_Type_get_name.type_name":     {"GMPI_MAX_OBJECT_NAME", "MPI_MAX_OBJECT_NAME"},
		"MPI_Win_get_name.win_name":       {"GMPI_MAX_OBJECT_NAME", "MPI_MAX_OBJECT_NAME"},
		"MPI_Info_get_nthkey.key":         {"GMPI_MAX_INFO_KEY + 1", "MPI_MAX_INFO_KEY"}, // the inner key buffer holds MPI_MAX_INFO_KEY characters and the NUL
		"MPI_Get_processor_name.name":     {"GMPI_MAX_PROCESSOR_NAME", "MPI_MAX_PROCESSOR_NAME"},
	}
	// int-valued enumerations: "Func.param" -> family of fr_<family>_in/out.
	enumIn = map[string]string{
		"*.order": "order", "*.lock_type": "lock", "*.split_type": "split", "*.typeclass": "typeclass",
		"*.required": "thread", "*.assert": "assert", "*.amode": "amode", "*.whence": "whence",
		"MPI_Buffer_attach.size": "bsize", "MPI_Comm_attach_buffer.size": "bsize",
		"MPI_Session_attach_buffer.size": "bsize",
		"MPI_T_pvar_get_index.var_class": "tclass", "*.cb_safety": "tsafety",
	}
	enumOut = map[string]string{
		"*.combiner": "combiner", "MPI_Topo_test.status": "topo", "*.result": "compare", "*.provided": "thread",
		"*.rank_source": "rank", "*.rank_dest": "rank", "MPI_Error_class.errorclass": "err",
		"MPI_Add_error_class.errorclass": "err", "*.amode": "amode",
		"MPI_Buffer_detach.size": "bsize", "MPI_Comm_detach_buffer.size": "bsize",
		"MPI_Session_detach_buffer.size": "bsize",
		"MPI_T_pvar_get_info.var_class":  "tclass",
		"MPI_T_source_get_info.ordering": "torder",
		"*.verbosity":                    "tverb",
		"*.bind":                         "tbind",
		"*.scope":                        "tscope",
	}
	errIn = map[string]bool{"errorcode": true, "errorclass": true}
	// Handle outputs the inner layer writes when the request completes.
	deferredOut = map[string]bool{"MPI_Comm_idup.newcomm": true, "MPI_Comm_idup_with_info.newcomm": true}
	// Attribute reads whose predefined values differ between ABIs:
	// function -> its keyval parameter.
	attrGet     = map[string]string{"MPI_Comm_get_attr": "comm_keyval", "MPI_Attr_get": "keyval", "MPI_Win_get_attr": "win_keyval"}
	copyFnTypes = map[string]bool{"MPI_Comm_copy_attr_function": true, "MPI_Type_copy_attr_function": true,
		"MPI_Win_copy_attr_function": true, "MPI_Copy_function": true}
)

func lookup(m map[string]string, f *Func, p Param) (string, bool) {
	if v, ok := m[f.Name+"."+p.Name]; ok {
		return v, true
	}
	v, ok := m["*."+p.Name]
	return v, ok
}

func baseType(p Param) string {
	t := strings.ReplaceAll(p.Type, "const", " ")
	return strings.Join(strings.Fields(strings.ReplaceAll(t, "*", " ")), " ")
}

// frontConv classifies one parameter; ok is false when no rule covers it.
func frontConv(f *Func, p Param) (c conv, ok bool) {
	n := p.Name
	t := baseType(p)
	levels := strings.Count(p.Type, "*")
	isConst := strings.Contains(p.Type, "const")
	arr := p.Suffix != ""
	pass := conv{arg: n}
	kind, isHandle := handleKinds[t]
	switch {
	case isHandle && levels == 0 && !arr:
		return conv{arg: "fr_h_in(" + n + ")"}, true
	case isHandle && levels == 1 && !arr:
		tmp := n + "_"
		if deferredOut[f.Name+"."+n] {
			c.arg = fmt.Sprintf("%s ? (void *)fr_deferred_handle(%s) : (void *)0", n, n)
			c.post = fmt.Sprintf("if (%s && rc != 0) *%s = (%s)fr_h_out(*fr_deferred_handle_int(%s), %s);", n, n, t, n, kind)
			return c, true
		}
		if inoutHandle(f, p) {
			c.pre = fmt.Sprintf("int %s = %s ? fr_h_in(*%s) : 0;", tmp, n, n)
			c.post = fmt.Sprintf("if (%s) *%s = (%s)fr_h_out(%s, %s);", n, n, t, tmp, kind)
		} else {
			// The inner layer also writes the null handle when it fails.
			c.pre = fmt.Sprintf("int %s = FR_UNSET;", tmp)
			c.post = fmt.Sprintf("if (%s && %s != FR_UNSET) *%s = (%s)fr_h_out(%s, %s);", n, tmp, n, t, tmp, kind)
		}
		c.arg = fmt.Sprintf("%s ? (void *)&%s : (void *)0", n, tmp)
		return c, true
	case isHandle && (arr || levels == 1):
		ln, ok := arrayLen(f, p)
		if !ok {
			return c, false
		}
		tmp := n + "_"
		c.pre = fmt.Sprintf("int %s_small[FR_SMALL]; long %s_n = %s; int *%s = fr_tmp(%s_small, sizeof %s_small, %s_n, sizeof(int));\n"+
			"    for (long i = 0; %s && i < %s_n; i++) %s[i] = fr_h_in(%s[i]);",
			tmp, tmp, ln, tmp, tmp, tmp, tmp, n, tmp, tmp, n)
		if !isConst && !strings.HasPrefix(n, "array_of_types") {
			if !inoutHandle(f, p) {
				// output only: nothing to read
				c.pre = fmt.Sprintf("int %s_small[FR_SMALL]; long %s_n = %s; int *%s = fr_tmp(%s_small, sizeof %s_small, %s_n, sizeof(int));",
					tmp, tmp, ln, tmp, tmp, tmp, tmp)
			}
			c.post = fmt.Sprintf("for (long i = 0; %s && i < %s_n; i++) %s[i] = (%s)fr_h_out(%s[i], %s);", n, tmp, n, t, tmp, kind)
		}
		c.arg = fmt.Sprintf("%s ? (void *)%s : (void *)0", n, tmp)
		c.cleanup = fmt.Sprintf("fr_tmp_free(%s, %s_small);", tmp, tmp)
		return c, true
	case t == "MPI_File" && levels == 0 && !arr:
		return conv{arg: "fr_file_in(" + n + ")"}, true
	case t == "MPI_File" && levels == 1 && !arr:
		tmp := n + "_"
		c.pre = fmt.Sprintf("void *%s = %s ? fr_file_in(*%s) : (void *)0;", tmp, n, n)
		c.arg = fmt.Sprintf("%s ? (void *)&%s : (void *)0", n, tmp)
		c.post = fmt.Sprintf("if (%s) *%s = fr_file_out(%s);", n, n, tmp)
		return c, true
	case t == "MPI_Status" && !arr && levels == 1 && !strings.HasPrefix(n, "array_of"):
		tmp := n + "_"
		if isConst {
			c.pre = fmt.Sprintf("struct gmpi_status %s = {0}; if (%s != FR_STATUS_IGNORE) fr_status_in(%s, &%s);", tmp, n, n, tmp)
			c.arg = fmt.Sprintf("%s == FR_STATUS_IGNORE ? GMPI_STATUS_IGNORE : (void *)&%s", n, tmp)
			return c, true
		}
		c.pre = fmt.Sprintf("struct gmpi_status %s = {0}; if (%s != FR_STATUS_IGNORE) fr_status_in(%s, &%s);", tmp, n, n, tmp)
		if !strings.HasPrefix(f.Name, "MPI_Status_set") {
			// Set up only when the caller wants it (the express path of
			// MPI_Recv pays nothing for MPI_STATUS_IGNORE).
			c.pre = fmt.Sprintf("struct gmpi_status %s; if (%s != FR_STATUS_IGNORE) fr_status_init(&%s);", tmp, n, tmp)
		}
		c.arg = fmt.Sprintf("%s == FR_STATUS_IGNORE ? GMPI_STATUS_IGNORE : (void *)&%s", n, tmp)
		c.post = fmt.Sprintf("if (%s != FR_STATUS_IGNORE) fr_status_out(&%s, %s);", n, tmp, n)
		return c, true
	case t == "MPI_Status":
		ln, ok := arrayLen(f, p)
		if !ok {
			return c, false
		}
		tmp := n + "_"
		c.pre = fmt.Sprintf("struct gmpi_status %s_small[FR_SMALL]; long %s_n = %s; struct gmpi_status *%s = fr_tmp(%s_small, sizeof %s_small, %s_n, sizeof(struct gmpi_status)); fr_status_blank(%s, %s_n);",
			tmp, tmp, fmt.Sprintf("(%s == FR_STATUSES_IGNORE ? 0 : %s)", n, lnPre(ln)), tmp, tmp, tmp, tmp, tmp, tmp)
		c.arg = fmt.Sprintf("%s == FR_STATUSES_IGNORE ? GMPI_STATUSES_IGNORE : (void *)%s", n, tmp)
		// Bounded by the temporary too: after an error *outcount may be unset.
		c.post = fmt.Sprintf("if (%s != FR_STATUSES_IGNORE) for (long i = 0; i < %s && i < %s_n; i++) fr_status_out(&%s[i], &%s[i]);", n, ln, tmp, tmp, n)
		c.cleanup = fmt.Sprintf("fr_tmp_free(%s, %s_small);", tmp, tmp)
		return c, true
	case copyFnTypes[t] && levels <= 1: // spelled as a function pointer type in the table
		return conv{arg: "fr_copyfn_in((void *)" + n + ")"}, true
	case t == "void" && bufNames[n]:
		return conv{arg: "fr_buf_in(" + n + ")"}, true
	case t == "int" && weightsNames[n]:
		return conv{arg: "fr_weights_in(" + n + ")"}, true
	case t == "MPI_T_pvar_handle" && levels == 0 && !arr:
		return conv{arg: "fr_pvar_handle_in(" + n + ")"}, true
	case t == "MPI_T_source_order" && levels == 1 && !arr:
		fam, _ := lookup(enumOut, f, p)
		c.post = fmt.Sprintf("if (%s && rc == 0) *%s = (%s)fr_%s_out((int)*%s);", n, n, t, fam, n)
		c.arg = n
		return c, true
	case (t == "int" || t == "MPI_T_cb_safety") && levels == 0 && !arr:
		if fam, ok := lookup(enumIn, f, p); ok {
			return conv{arg: "fr_" + fam + "_in(" + n + ")"}, true
		}
		switch {
		case rankNames[n]:
			return conv{arg: "fr_rank_in(" + n + ")"}, true
		case tagNames[n]:
			return conv{arg: "fr_tag_in(" + n + ")"}, true
		case keyvalNames[n]:
			return conv{arg: "fr_keyval_in(" + n + ")"}, true
		case errIn[n] && f.Name != "MPI_Abort":
			return conv{arg: "fr_err_in(" + n + ")"}, true
		}
		return pass, true
	case t == "int" && levels == 1 && !arr && !isConst:
		if fam, ok := lookup(enumOut, f, p); ok {
			c.post = fmt.Sprintf("if (%s && rc == 0) *%s = fr_%s_out(*%s);", n, n, fam, n)
			c.arg = n
			return c, true
		}
		if keyvalNames[n] {
			tmp := n + "_"
			c.pre = fmt.Sprintf("int %s = %s ? fr_keyval_in(*%s) : 0;", tmp, n, n)
			c.arg = fmt.Sprintf("%s ? &%s : (int *)0", n, tmp)
			c.post = fmt.Sprintf("if (%s) *%s = fr_keyval_out(%s);", n, n, tmp)
			return c, true
		}
		return pass, true
	case t == "int" && (arr || levels == 1):
		switch {
		case n == "array_of_distribs" || n == "array_of_dargs":
			ln, _ := arrayLen(f, p)
			fam := "distrib"
			if n == "array_of_dargs" {
				fam = "darg"
			}
			tmp := n + "_"
			c.pre = fmt.Sprintf("int %s_small[FR_SMALL]; long %s_n = %s; int *%s = fr_tmp(%s_small, sizeof %s_small, %s_n, sizeof(int));\n"+
				"    for (long i = 0; %s && i < %s_n; i++) %s[i] = fr_%s_in(%s[i]);", tmp, tmp, ln, tmp, tmp, tmp, tmp, n, tmp, tmp, fam, n)
			c.arg = fmt.Sprintf("%s ? (void *)%s : (void *)0", n, tmp)
			c.cleanup = fmt.Sprintf("fr_tmp_free(%s, %s_small);", tmp, tmp)
			return c, true
		case f.Name == "MPI_Group_translate_ranks" && n == "ranks1":
			tmp := n + "_"
			c.pre = fmt.Sprintf("int %s_small[FR_SMALL]; long %s_n = %s; int *%s = fr_tmp(%s_small, sizeof %s_small, %s_n, sizeof(int));\n"+
				"    for (long i = 0; %s && i < %s_n; i++) %s[i] = fr_rank_in(%s[i]);", tmp, tmp, "n", tmp, tmp, tmp, tmp, n, tmp, tmp, n)
			c.arg = fmt.Sprintf("%s ? (void *)%s : (void *)0", n, tmp)
			c.cleanup = fmt.Sprintf("fr_tmp_free(%s, %s_small);", tmp, tmp)
			return c, true
		case f.Name == "MPI_Group_translate_ranks" && n == "ranks2":
			c.post = fmt.Sprintf("for (long i = 0; rc == 0 && %s && i < n; i++) %s[i] = fr_rank_undef_out(%s[i]);", n, n, n)
			c.arg = n
			return c, true
		case n == "array_of_errcodes":
			ln, _ := arrayLen(f, p)
			c.post = fmt.Sprintf("for (long i = 0; %s && i < %s; i++) %s[i] = fr_err_out(%s[i]);", n, ln, n, n)
			c.arg = n
			return c, true
		}
		return pass, true
	case t == "char" && levels == 1 && !arr && isConst && strings.HasPrefix(f.Name, "MPI_Info_") && (n == "key" || n == "value"):
		test, cls, what := "fr_info_key_long", 29, "invalid info key argument key: longer than MPI_MAX_INFO_KEY"
		if n == "value" {
			test, cls, what = "fr_info_val_long", 30, "invalid info value argument value: longer than MPI_MAX_INFO_VAL"
		}
		c.check = fmt.Sprintf("if (%s(%s)) return fr_err_out(gmpi_raise_class(\"%s\", %d, \"%s\"));", test, n, f.Name, cls, what)
		c.arg = "(void *)" + n
		return c, true
	case t == "char" && levels == 1 && !arr && isConst && f.Name == "MPI_Add_error_string" && n == "string":
		// The front's MPI_MAX_ERROR_STRING may be below the inner one.
		c.check = "if (string && MPI_MAX_ERROR_STRING < GMPI_MAX_ERROR_STRING && strnlen(string, MPI_MAX_ERROR_STRING) >= MPI_MAX_ERROR_STRING) " +
			"return fr_err_out(gmpi_raise_class(\"MPI_Add_error_string\", 12, \"invalid argument string: longer than MPI_MAX_ERROR_STRING-1 characters\"));"
		c.arg = "(void *)" + n
		return c, true
	case t == "char" && levels == 1 && !arr && !isConst:
		if mx, ok := strOut[f.Name+"."+n]; ok {
			tmp := n + "_"
			c.pre = fmt.Sprintf("char %s[%s] = \"\";", tmp, mx[0])
			c.arg = fmt.Sprintf("%s ? %s : (char *)0", n, tmp)
			rl := "(int *)0"
			for _, q := range f.Params {
				if q.Name == "resultlen" {
					rl = "resultlen"
				}
			}
			c.post = fmt.Sprintf("if (rc == 0) fr_str_out(%s, %s, %s, %s, %s);", n, tmp, mx[0], mx[1], rl)
			return c, true
		}
		return pass, true
	}
	if strings.HasPrefix(t, "MPIX_") || strings.HasPrefix(t, "MPI_T_") && levels == 0 {
		return pass, true
	}
	return pass, true
}

// lnPre is the length expression usable before the call (outcount is only
// known after it: then the input count bounds the array).
func lnPre(ln string) string {
	if strings.Contains(ln, "outcount") {
		return "incount"
	}
	return ln
}

func genFront(fr front, funcs []*Func) ([]byte, []string) {
	var b, body bytes.Buffer
	var untranslated []string
	fmt.Fprintf(&b, "// %s\n\n//go:build %s\n\n", header, fr.tag)
	fmt.Fprintf(&b, "// The %s front: every PMPI_X with the front's types converts its\n"+
		"// parameters, calls gmpi_inner_X (the MPICH-ABI layer of zz_pmpi.c) and\n"+
		"// converts the results back (capi/internal/gen/front.go says how).\n\n", fr.name)
	fmt.Fprintf(&b, "#include \"%s\"\n\n", fr.header)
	for _, f := range funcs {
		if f.Variadic || frontByHand[f.Name] {
			continue // written by hand in front_<name>.c
		}
		var ps []string
		for _, p := range f.Params {
			ps = append(ps, p.kind().cType)
		}
		if len(ps) == 0 {
			ps = []string{"void"}
		}
		rt := retKind(f.Ret).cType
		fmt.Fprintf(&b, "extern %s %s(%s);\n", rt, innerName(f), strings.Join(ps, ", "))
		express := f.Express && f.Impl == implGo && f.Ret == "int"
		if express {
			// The inner PMPI_X of an express function is gmpi_express_X,
			// then the Go shim when it declines: the front calls both
			// itself, one call less on the path small messages take.
			fmt.Fprintf(&b, "extern int %s(%s);\n", expressName(f), strings.Join(ps, ", "))
			fmt.Fprintf(&b, "extern int %s(%s);\n", f.shimName(), strings.Join(ps, ", "))
		}

		var convs []conv
		ok := true
		for _, p := range f.Params {
			c, cok := frontConv(f, p)
			if !cok {
				ok = false
				break
			}
			convs = append(convs, c)
		}
		fmt.Fprintf(&body, "\n#pragma weak %s = P%s\n%s\n{\n", f.Name, f.Name, f.proto("P"+f.Name))
		if !ok {
			untranslated = append(untranslated, f.Name)
			for _, p := range f.Params {
				fmt.Fprintf(&body, "    (void)%s;\n", p.Name)
			}
			call := fmt.Sprintf("fr_err_out(gmpi_unsupported(\"%s\", 0x44000000))", f.Name)
			switch {
			case f.Ret == "int":
				fmt.Fprintf(&body, "    return %s;\n}\n", call)
			default:
				fmt.Fprintf(&body, "    (void)%s;\n    return (%s)0;\n}\n", call, f.Ret)
			}
			continue
		}
		// Converted values some length expressions use (comm_).
		needComm := false
		for _, c := range convs {
			if strings.Contains(c.pre, "(comm_") {
				needComm = true
			}
		}
		for _, c := range convs {
			if c.check != "" {
				fmt.Fprintf(&body, "    %s\n", c.check)
			}
		}
		if needComm {
			body.WriteString("    int comm_ = fr_h_in(comm);\n")
		}
		for _, c := range convs {
			if c.pre != "" {
				fmt.Fprintf(&body, "    %s\n", c.pre)
			}
		}
		var args []string
		for i, c := range convs {
			p := f.Params[i]
			if c.arg == p.Name && p.kind().cType == "void *" {
				c.arg = "(void *)" + p.Name // drops const: the inner layer takes plain pointers
			}
			args = append(args, c.arg)
		}
		call := fmt.Sprintf("%s(%s)", innerName(f), strings.Join(args, ", "))
		if express {
			call = fmt.Sprintf("%s;\n    if (rc == GMPI_EXPRESS_DECLINED)\n        rc = %s", altCall(expressName(f), args), altCall(f.shimName(), args))
		}
		var posts []string
		for _, c := range convs {
			if c.post != "" {
				posts = append(posts, c.post)
			}
		}
		if k, ok := attrGet[f.Name]; ok {
			posts = append(posts, fmt.Sprintf("if (rc == 0 && flag && *flag) fr_attr_val_out(fr_keyval_in(%s), attribute_val);", k))
		}
		for _, c := range convs {
			if c.cleanup != "" {
				posts = append(posts, c.cleanup)
			}
		}
		switch {
		case f.Ret == "int":
			fmt.Fprintf(&body, "    int rc = %s;\n", call)
			for _, s := range posts {
				fmt.Fprintf(&body, "    %s\n", s)
			}
			body.WriteString("    return fr_err_out(rc);\n}\n")
		case handleKinds[f.Ret] != "":
			fmt.Fprintf(&body, "    return (%s)fr_h_out(%s, %s);\n}\n", f.Ret, call, handleKinds[f.Ret])
		case f.Ret == "MPI_File":
			fmt.Fprintf(&body, "    return fr_file_out(%s);\n}\n", call)
		default:
			fmt.Fprintf(&body, "    return (%s)%s;\n}\n", f.Ret, call)
		}
	}
	sort.Strings(untranslated)
	fmt.Fprintf(&b, "\n// Functions this front cannot translate yet (they raise\n// MPI_ERR_UNSUPPORTED_OPERATION): %s\n", strings.Join(untranslated, " "))
	if len(untranslated) == 0 {
		b.WriteString("// none\n")
	}
	b.Write(body.Bytes())
	return b.Bytes(), untranslated
}

// expressName is the C fast path an express function tries first
// (capi/express.c, capi/cshm.c), with inner arguments.
func expressName(f *Func) string {
	return "gmpi_express_" + strings.TrimPrefix(f.Name, "MPI_")
}

func innerName(f *Func) string {
	if rest, ok := strings.CutPrefix(f.Name, "MPIX_"); ok {
		return "gmpi_innerx_" + rest
	}
	return "gmpi_inner_" + strings.TrimPrefix(f.Name, "MPI_")
}

// genInner renames zz_pmpi.c's PMPI_X to gmpi_inner_X in a front build.
func genInner(funcs []*Func) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n\n", header)
	b.WriteString("/* In a front build (GMPI_FRONT defined) the MPICH-ABI definitions of\n" +
		" * zz_pmpi.c and the hand-written capi C files become the inner layer:\n" +
		" * PMPI_X is renamed gmpi_inner_X and MPI_X is not defined, so that the\n" +
		" * front's own PMPI_X and MPI_X are the exported ones. */\n\n")
	b.WriteString("#ifndef GMPI_ZZ_INNER_H\n#define GMPI_ZZ_INNER_H\n#ifdef GMPI_FRONT\n")
	for _, f := range funcs {
		fmt.Fprintf(&b, "#define P%s %s\n", f.Name, innerName(f))
	}
	b.WriteString("#endif\n#endif\n")
	return b.Bytes()
}
