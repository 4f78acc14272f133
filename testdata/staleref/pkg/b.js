'use strict';
// The protocol: pkg/c.go, and the real one pkg/real.go.
const x = 1; // window.backofflab.rows is not a file
