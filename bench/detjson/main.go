// Command detjson writes the deterministic section of herd results
// documents — everything but timing, as report.(*Results).DeterministicJSON
// has it — so scripts can compare runs byte for byte with cmp, without a
// JSON tool on the machine.
//
//	go run ./bench/detjson run.json > run.det
//	go run ./bench/detjson -o merged.det merged.json
//
// With several files it writes each one's section on its own line, in the
// order given.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/herd-sh/herd/report"
)

func main() {
	out := flag.String("o", "-", "write to this file instead of standard output")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: detjson [-o FILE] RUN.json...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "detjson:", err)
		os.Exit(2)
	}
}

func run(out string, files []string) (err error) {
	var w io.Writer = os.Stdout
	if out != "-" {
		// Not f, err := …: a new err here would hide the result the
		// deferred Close reports into.
		var f *os.File
		if f, err = os.Create(out); err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		w = f
	}
	bw := bufio.NewWriter(w)
	for _, path := range files {
		res, err := report.ReadFile(path)
		if err != nil {
			return err
		}
		// The section ends with a newline: one document per line.
		if _, err := bw.Write(res.DeterministicJSON()); err != nil {
			return err
		}
	}
	return bw.Flush()
}
