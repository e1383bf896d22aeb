package shm

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	mpirt "gmpi/runtime"
)

// BenchmarkPingPong: two ranks in one process (goroutines), both spinning
// on Poll; one op is a round trip, ns/oneway half of it.
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{8, 1024, 16384} {
		b.Run(strconv.Itoa(size), func(b *testing.B) { pingPong(b, size, false) })
	}
	// The echoing side sleeps on its Waker whenever Poll finds nothing:
	// every message crosses a futex wake-up (the oversubscribed case).
	b.Run("8-sleeping-peer", func(b *testing.B) { pingPong(b, 8, true) })
}

func pingPong(b *testing.B, size int, sleep bool) {
	_, devs := newRanks(b, 2, 0)
	var got [2]int // got[i] is only touched by the goroutine polling devs[i]
	devs[0].Start(func(int, *mpirt.Header, []byte) { got[0]++ })
	devs[1].Start(func(int, *mpirt.Header, []byte) { got[1]++ })
	buf := make([]byte, size)
	h := mpirt.Header{Kind: mpirt.FrameEager, Len: uint64(size)}
	n := b.N + 1000
	done := make(chan struct{})
	go func() {
		defer close(done)
		w := devs[1].Waker()
		hh := h
		for i := 0; i < n; i++ {
			for got[1] == i {
				if !sleep {
					devs[1].Poll()
				} else if e := w.Arm(); devs[1].Poll() == 0 {
					w.SleepArmed(e, time.Second)
				} else {
					w.Disarm()
				}
			}
			if err := devs[1].Send(0, hh, buf); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	var start time.Time
	for i := 0; i < n; i++ {
		if i == 1000 { // after warming up the ring pages
			b.ResetTimer()
			start = time.Now()
		}
		if err := devs[0].Send(1, h, buf); err != nil {
			b.Fatal(err)
		}
		for got[0] == i {
			devs[0].Poll()
		}
	}
	el := time.Since(start)
	b.StopTimer()
	<-done
	b.ReportMetric(float64(el.Nanoseconds())/float64(b.N)/2, "ns/oneway")
}

// BenchmarkStream: one rank streams frames to another that polls; reports
// bandwidth. One op is one frame.
func BenchmarkStream(b *testing.B) {
	for _, size := range []int{8, 1024, 65536} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			_, devs := newRanks(b, 2, 0)
			size := min(size, devs[0].MaxPayload())
			got := 0
			devs[0].Start(func(int, *mpirt.Header, []byte) {})
			devs[1].Start(func(_ int, _ *mpirt.Header, p []byte) { got++ })
			buf := make([]byte, size)
			h := mpirt.Header{Kind: mpirt.FrameEager, Len: uint64(size)}
			done := make(chan struct{})
			b.SetBytes(int64(size))
			b.ResetTimer()
			go func() {
				defer close(done)
				for got < b.N {
					devs[1].Poll()
				}
			}()
			for i := 0; i < b.N; i++ {
				if err := devs[0].Send(1, h, buf); err != nil {
					b.Fatal(err)
				}
			}
			<-done
		})
	}
}

// BenchmarkPollIdle is the cost of a Poll that finds nothing.
func BenchmarkPollIdle(b *testing.B) {
	for _, n := range []int{2, 16} {
		b.Run(strconv.Itoa(n-1)+"-peers", func(b *testing.B) {
			_, devs := newRanks(b, n, MinRingBytes)
			devs[0].Start(func(int, *mpirt.Header, []byte) {})
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				devs[0].Poll()
			}
		})
	}
}

// TestNoAllocs: the Send and Poll fast paths do not allocate.
func TestNoAllocs(t *testing.T) {
	_, devs := newRanks(t, 2, 0)
	devs[0].Start(func(int, *mpirt.Header, []byte) {})
	devs[1].Start(func(int, *mpirt.Header, []byte) {})
	h := mpirt.Header{Kind: mpirt.FrameEager, Len: 8}
	buf := make([]byte, 8)
	if a := testing.AllocsPerRun(1000, func() {
		devs[0].Send(1, h, buf)
		devs[1].Poll()
	}); a != 0 {
		t.Errorf("Send+Poll allocate %v times per frame", a)
	}
}

// BenchmarkWorldPingPong: the same ping-pong through two runtime Worlds
// (blocking Send/Recv on MPI_COMM_WORLD) over shm devices, two goroutines
// on their own threads: the runtime's cost over BenchmarkPingPong,
// without the C→Go crossing.
func BenchmarkWorldPingPong(b *testing.B) {
	for _, size := range []int{8, 65536} {
		b.Run(strconv.Itoa(size), func(b *testing.B) { worldPingPong(b, size) })
	}
}

func worldPingPong(b *testing.B, size int) {
	_, devs := newRanks(b, 2, 0)
	ws := make([]*mpirt.World, 2)
	for r := range ws {
		w, err := mpirt.NewWorld(mpirt.Config{Rank: r, Size: 2, Hosts: []string{"h", "h"}},
			[]mpirt.Route{{Peer: 1 - r, Device: devs[r]}}, devs[r].Waker(), nil)
		if err != nil {
			b.Fatal(err)
		}
		w.SetThreadLevel(0)
		ws[r] = w
	}
	n := b.N + 1000
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		w := ws[1]
		c := w.CommWorld()
		buf := make([]byte, size)
		for i := 0; i < n; i++ {
			if _, err := w.Recv(c, c.Context(), buf, 0, 1, nil); err != nil {
				b.Error(err)
				return
			}
			if err := w.Send(c, c.Context(), buf, 0, 1, mpirt.ModeStandard); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w := ws[0]
	c := w.CommWorld()
	buf := make([]byte, size)
	var start time.Time
	for i := 0; i < n; i++ {
		if i == 1000 {
			b.ResetTimer()
			start = time.Now()
		}
		if err := w.Send(c, c.Context(), buf, 1, 1, mpirt.ModeStandard); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Recv(c, c.Context(), buf, 1, 1, nil); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(start)
	b.StopTimer()
	<-done
	b.ReportMetric(float64(el.Nanoseconds())/float64(b.N)/2, "ns/oneway")
}
