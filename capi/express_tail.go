package main

// #include "express.h"
import "C"

import "unsafe"

// gmpi_express_sendrecv_tail finishes an MPI_Sendrecv whose send the
// express lane made (capi/express.c) and whose receive it left to Go: the
// receive, with errors reported under MPI_Sendrecv.
//
//export gmpi_express_sendrecv_tail
func gmpi_express_sendrecv_tail(buf unsafe.Pointer, count, datatype, source, tag, comm int32, status unsafe.Pointer) (rc int32) {
	defer func() {
		if r := recover(); r != nil {
			rc = panicked("MPI_Sendrecv", r)
		}
	}()
	expressHandover()
	return recv("MPI_Sendrecv", buf, int64(count), datatype, source, tag, comm, (*Status)(status))
}

// gmpi_express_vmpi_clear answers the express lane's question for a
// receive from a vMPI peer while the matching engine is not empty
// (capi/express.c): 1 when a frame matching (source, tag) on ctx would go
// to this receive (World.ExpressClear).
//
//export gmpi_express_vmpi_clear
func gmpi_express_vmpi_clear(ctx uint32, source, tag int32) int32 {
	if w := world; w != nil && w.ExpressClear(ctx, int(source), int(tag)) {
		return 1
	}
	return 0
}

// gmpi_express_tcp_finish writes the rest of a frame that the express
// lane began on the connection to dest and could not write whole (a full
// socket), waiting for room as the Go path does; 0 when written.
//
//export gmpi_express_tcp_finish
func gmpi_express_tcp_finish(dest int32, rest unsafe.Pointer, n int32) (rc int32) {
	defer func() {
		if r := recover(); r != nil {
			rc = panicked("MPI_Send", r)
		}
	}()
	if d := tcpDevice; d != nil && d.ExpressFinish(int(dest), unsafe.Slice((*byte)(rest), n)) == nil {
		return 0
	}
	return 1
}

// gmpi_express_tcp_unread gives the tcp device the n bytes at b that the
// express lane read from source's stream and does not take
// (capi/express.c, tcp_recv); the lane still holds the stream's reading
// word.
//
//export gmpi_express_tcp_unread
func gmpi_express_tcp_unread(source int32, b unsafe.Pointer, n int32) {
	if d := tcpDevice; d != nil {
		d.ExpressUnread(int(source), unsafe.Slice((*byte)(b), n))
	}
}
