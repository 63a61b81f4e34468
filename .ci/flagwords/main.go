// Command flagwords lists the Go string literals, in the files it is
// given, that name a command-line flag ("--agents", "needs --allow-remote").
// .ci/structure runs it over the library packages: libraries speak of their
// config fields, and only cmd/ maps fields to flags, so that a flag renamed
// in cmd is renamed everywhere its name is shown.
//
// It reads string literals with go/scanner rather than grepping lines, so
// that comments (which may well mention a flag) are not findings and a
// flag word inside a raw string or mid-sentence is.
package main

import (
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"regexp"
)

// flagWord is a flag as a user types it: two dashes and a lower-case
// letter, not preceded by a word character or a third dash (so "a--b" and
// a "----" rule are not flags).
var flagWord = regexp.MustCompile(`(^|[^-\w])--[a-z]`)

func main() {
	found := 0
	for _, path := range os.Args[1:] {
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "flagwords:", err)
			os.Exit(2)
		}
		fset := token.NewFileSet()
		file := fset.AddFile(path, -1, len(src))
		var s scanner.Scanner
		bad := false
		s.Init(file, src, func(pos token.Position, msg string) {
			fmt.Fprintf(os.Stderr, "flagwords: %s: %s\n", pos, msg)
			bad = true
		}, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.STRING && flagWord.MatchString(lit) {
				fmt.Printf("%s: %s\n", fset.Position(pos), lit)
				found++
			}
		}
		if bad {
			os.Exit(2)
		}
	}
	if found > 0 {
		os.Exit(1)
	}
}
