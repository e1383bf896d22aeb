package main

import (
	"bytes"
	"fmt"
	"strings"
)

// genBadArgs writes tests/c/badargs_calls.h, the calls of tests/c/badargs.c:
// every function of the table that takes a handle by value (communicator,
// datatype, group, op, error handler, info, file) is called once with the
// null handle and once with a freed one in that position, the other
// arguments valid, and must fail with the class the standard names; every
// function with a count parameter is called with a negative count. The
// valid window and file are ones badargs.c creates (a window on
// MPI_COMM_SELF, a scratch file deleted on close). The functions that
// take a handle to free, commit, close, start or cancel by pointer
// (badArgsInout) get a pointer to the null and to a freed handle. MPI_T_, the functions
// that start or end MPI and those that return something other than int
// are left out.

// badHandle maps a handle type to the arrays of bad values badargs.c
// defines (null, freed), its valid default, and the class expected.
var badHandle = map[string]struct{ bad, good, class string }{
	"MPI_Comm":       {"bad_comm", "MPI_COMM_WORLD", "MPI_ERR_COMM"},
	"MPI_Datatype":   {"bad_type", "MPI_INT", "MPI_ERR_TYPE"},
	"MPI_Group":      {"bad_group", "world_group", "MPI_ERR_GROUP"},
	"MPI_Op":         {"bad_op", "MPI_SUM", "MPI_ERR_OP"},
	"MPI_Errhandler": {"bad_errh", "MPI_ERRORS_RETURN", "MPI_ERR_ARG"},
	"MPI_Info":       {"bad_info", "MPI_INFO_NULL", "MPI_ERR_INFO"},
	"MPI_File":       {"bad_file", "good_file", "MPI_ERR_FILE"},
	"MPI_Win":        {"bad_win", "good_win", "MPI_ERR_WIN"},
	"MPI_Request":    {"bad_req", "MPI_REQUEST_NULL", "MPI_ERR_REQUEST"},
	"MPI_Session":    {"bad_session", "MPI_SESSION_NULL", "MPI_ERR_SESSION"},
}

// badArgsInout are the functions whose handle parameter passed by
// pointer is an input (the handle to free, commit, close, start or
// cancel): called with a pointer to the null handle and to a freed one.
var badArgsInout = map[string]bool{
	"MPI_Comm_free": true, "MPI_Comm_disconnect": true, "MPI_Type_commit": true, "MPI_Type_free": true,
	"MPI_Errhandler_free": true, "MPI_Group_free": true, "MPI_Info_free": true, "MPI_Op_free": true,
	"MPI_Win_free": true, "MPI_File_close": true, "MPI_Request_free": true, "MPI_Cancel": true,
	"MPI_Start": true,
}

// otherDefaults are the valid values of the other handle types.
var otherDefaults = map[string]string{
	"MPI_Message": "MPI_MESSAGE_NULL",
}

// namedDefaults are valid values of int parameters that 0 is not valid
// for.
var namedDefaults = map[string]string{
	"ndims": "1", "size": "1", "partitions": "1", "split_type": "MPI_COMM_TYPE_SHARED",
	"order": "MPI_ORDER_C", "disp_unit": "1",
}

// topoComm is the communicator a function needs by default: one with a
// topology for the topology functions and neighborhood collectives
// (badargs.c makes them).
func topoComm(name string) string {
	switch {
	case strings.HasPrefix(name, "MPI_Cart_") || strings.Contains(name, "eighbor_"):
		return "cart_comm"
	case strings.HasPrefix(name, "MPI_Graph_"):
		return "graph_comm"
	case strings.HasPrefix(name, "MPI_Dist_graph_neighbors"):
		return "dgraph_comm"
	}
	return ""
}

// badArgsSkip are functions not called at all: they start or end MPI or
// the process, or create state that outlives the call on success.
var badArgsSkip = map[string]bool{
	"MPI_Init": true, "MPI_Init_thread": true, "MPI_Finalize": true, "MPI_Abort": true,
	"MPI_Session_init": true, "MPI_Session_finalize": true, "MPI_Pcontrol": true,
}

// nullAllowed are (function, parameter) pairs where the null handle is a
// valid argument: MPI_FILE_NULL names the default file error handler, and
// MPI_INFO_NULL is "no hints" everywhere but in the MPI_Info_ functions.
func nullAllowed(f *Func, p Param, base string) bool {
	switch {
	case base == "MPI_File" && strings.HasSuffix(f.Name, "_errhandler"):
		return true
	case base == "MPI_Info" && !strings.HasPrefix(f.Name, "MPI_Info_"):
		return true
	case base == "MPI_Request" && f.Name == "MPI_Request_get_status":
		return true // an inactive request: flag true, an empty status
	}
	return false
}

func paramBase(p Param) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.ReplaceAll(p.Type, "const", " "), "*", " ")), " ")
}

// isCountParam: a count by value (count, sendcount, incount ...).
func isCountParam(p Param) bool {
	k := p.kind()
	return (k == kInt32 || k == kInt64) && strings.HasSuffix(p.Name, "count") && p.Suffix == ""
}

// defaultArg is a valid value for parameter i of f.
func defaultArg(p Param, i int) string {
	k := p.kind()
	base := paramBase(p)
	levels := strings.Count(p.Type, "*")
	if p.Suffix != "" {
		levels++
	}
	if levels == 0 {
		if v, ok := namedDefaults[p.Name]; ok && (k == kInt32 || p.Name == "disp_unit") {
			return v
		}
		if h, ok := badHandle[base]; ok {
			return h.good
		}
		if v, ok := otherDefaults[base]; ok {
			return v
		}
		if strings.HasSuffix(base, "_function") || strings.HasSuffix(base, "_function_c") {
			return "NULL"
		}
		if isCountParam(p) {
			return "1"
		}
		if k == kFloat64 {
			return "0.0"
		}
		return "0"
	}
	if base == "char" && levels == 1 && p.Name == "datarep" {
		return "\"external32\""
	}
	if base == "MPI_Message" && levels == 1 {
		return "MSG_NOPROC()"
	}
	// Every pointer gets a zeroed scratch area of its own.
	return fmt.Sprintf("S(%d)", i)
}

func genBadArgs(funcs []*Func) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "/* %s */\n\n", header)
	b.WriteString("/* Included by tests/c/badargs.c, which defines S(i), the bad handle\n" +
		" * arrays and world_group, and runs these calls under MPI_ERRORS_RETURN. */\n\n")
	b.WriteString("static int badargs_calls(void)\n{\n    int errs = 0;\n")
	for _, f := range funcs {
		if f.Ret != "int" || f.Variadic || badArgsSkip[f.Name] || strings.HasPrefix(f.Name, "MPI_T_") {
			continue
		}
		// A session argument has no valid value to give (a session would
		// outlive the call): only that argument is tested then.
		only := ""
		defs := make([]string, len(f.Params))
		for i, p := range f.Params {
			defs[i] = defaultArg(p, i)
			if b := paramBase(p); b == "MPI_Session" && strings.Count(p.Type, "*") == 0 {
				only = p.Name
			}
			if tc := topoComm(f.Name); tc != "" && defs[i] == "MPI_COMM_WORLD" {
				defs[i] = tc
			}
		}
		call := func(i int, v string) string {
			args := append([]string(nil), defs...)
			args[i] = v
			return fmt.Sprintf("%s(%s)", f.Name, strings.Join(args, ", "))
		}
		for i, p := range f.Params {
			if only != "" && p.Name != only {
				continue
			}
			base := paramBase(p)
			if h, ok := badHandle[base]; ok && badArgsInout[f.Name] && strings.Count(p.Type, "*") == 1 && p.Suffix == "" {
				fmt.Fprintf(&b, "    for (int v = 0; v < nbad; v++) {\n        S_RESET();\n        EXPECT_ERR(errs, %s, %s, %q, NULL);\n    }\n",
					call(i, fmt.Sprintf("&(%s){%s[v]}", base, h.bad)), h.class, f.Name)
			}
			if h, ok := badHandle[base]; ok && strings.Count(p.Type, "*") == 0 && p.Suffix == "" {
				first := 0
				if nullAllowed(f, p, base) {
					first = 1
				}
				fmt.Fprintf(&b, "    for (int v = %d; v < nbad; v++) {\n        S_RESET();\n        EXPECT_ERR(errs, %s, %s, %q, NULL);\n    }\n",
					first, call(i, h.bad+"[v]"), h.class, f.Name)
			}
			if isCountParam(p) {
				fmt.Fprintf(&b, "    S_RESET();\n    EXPECT_ERR(errs, %s, MPI_ERR_COUNT, %q, NULL);\n", call(i, "-1"), f.Name)
			}
		}
	}
	b.WriteString("    return errs;\n}\n")
	return b.Bytes()
}
