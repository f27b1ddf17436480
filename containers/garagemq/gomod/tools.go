//go:build tools

// Package tools pins the GarageMQ module so that `go build github.com/valinurovam/garagemq`
// builds exactly the version in go.mod (checked against go.sum).
package tools

import _ "github.com/valinurovam/garagemq"
