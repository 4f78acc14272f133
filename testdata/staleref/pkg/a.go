package pkg

// It reads pkg/real.go and pkg/gone.go; see also cmd_real.go.
// The command's cmd_gone.go, and aws/retry/standard.go (a library's), and retry.go.
// A URL: https://github.com/example/x/blob/main/y.go is not ours.
/* A block comment naming pkg/real.go
   and, a line later, pkg/old.json. */
var s = "pkg/gone.go in a string is not a comment"
