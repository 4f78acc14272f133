package fdcount

import (
	"errors"
	"net"
	"testing"
)

// TestOpen: a listener and a connection's two ends are three descriptors;
// a connection waiting in the accept queue holds only its client's.
func TestOpen(t *testing.T) {
	before, err := Open()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	waiting, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Close()
	if n, err := Open(); err != nil || n != before+4 {
		t.Errorf("Open: %d, %v; want %d", n, err, before+4)
	}
	a.Close()
	if n, err := Open(); err != nil || n != before+3 {
		t.Errorf("after a close, Open: %d, %v; want %d", n, err, before+3)
	}
}
