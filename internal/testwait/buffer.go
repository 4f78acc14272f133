package testwait

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that a running goroutine (a command, a server)
// may write while the test reads it, as a test does that waits with
// Eventually for a line of output. Its zero value is empty and ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p, as bytes.Buffer.Write does.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
