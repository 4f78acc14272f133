package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"backofflab/contention"
)

// maxContentionParallel bounds -parallel: every run at once holds its
// clients' state (contention.Spec.Memory), and at the largest N of
// contention.CLIBounds 256 of them hold about 400 MB; more runs at once
// than cores gain nothing.
const maxContentionParallel = 256

// runContention is "backofflab contention": the AWS blog's contention study
// (package contention), written as text, CSV or JSON.
func runContention(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("contention", flag.ContinueOnError)
	fs.SetOutput(stderr)
	q := url.Values{}
	for _, p := range contention.Params() {
		fs.Func(p.Name, fmt.Sprintf("%s (default %s)", p.Meaning, p.Default), func(v string) error { q.Set(p.Name, v); return nil })
	}
	workers := fs.Int("parallel", 0, fmt.Sprintf("runs at once, up to %d (default: every CPU); as bands and sweep name it, -workers being the queue model's parameter", maxContentionParallel))
	format := fs.String("format", "text", "output: "+strings.Join(contention.Formats, ", ")+" (text: a table per N)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab contention [flags]\n\n"+
			"Reruns the contention study of the AWS Architecture Blog's \"Exponential Backoff and\n"+
			"Jitter\" (2015): N clients each make one optimistic-concurrency write to one row;\n"+
			"it prints each strategy's calls (writes) and completion time at each N.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	spec, err := contention.Parse(q, contention.CLIBounds)
	if err != nil {
		return usageError{err}
	}
	if *workers < 0 || *workers > maxContentionParallel {
		return usageError{&contention.ParamError{Name: "parallel", Value: fmt.Sprint(*workers),
			Allowed: fmt.Sprintf("a whole number from 0 (every CPU) to %d", maxContentionParallel)}}
	}
	if !slices.Contains(contention.Formats, *format) {
		return usageError{&contention.ParamError{Name: "format", Value: *format, Allowed: "one of " + strings.Join(contention.Formats, ", ")}}
	}
	points, err := contention.Run(ctx, spec, contention.Options{Parallel: *workers})
	if err != nil {
		return stopCause(ctx, err)
	}
	return contention.Write(stdout, *format, spec, points)
}
