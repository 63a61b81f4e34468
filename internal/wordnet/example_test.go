package wordnet_test

import (
	"fmt"

	"github.com/herd-sh/herd/internal/wordnet"
)

// A reader stems each word, then asks for the relations of the goal's verb
// as a verb: erase ranks above cancel, which shares only a rare sense of
// delete.
func Example() {
	goal := wordnet.Stem("Deleting")
	for _, r := range wordnet.RelationsAs(goal, wordnet.Verb)[:4] {
		fmt.Printf("%s %s %.2f\n", r.To, r.Kind, r.Weight)
	}
	for _, w := range []string{"erase", "cancel"} {
		if r, ok := wordnet.RelatedAs(goal, wordnet.Stem(w), wordnet.Verb); ok {
			fmt.Printf("%s: %s %.2f\n", w, r.Kind, r.Weight)
		}
	}
	// Output:
	// blue pencil synonym 0.58
	// take away hypernym 0.28
	// edit synonym 0.26
	// remov hypernym 0.25
	// erase: synonym 0.20
	// cancel: synonym 0.15
}

// Multi-word verbs are matched on their words' stems.
func ExamplePhrasesFrom() {
	for _, p := range wordnet.PhrasesFrom(wordnet.Stem("called")) {
		if p.Key == "call off" {
			r, _ := wordnet.Related(p.Key, "cancel")
			fmt.Println(p.Words, p.POS, r.Kind, r.Weight > 0.5)
		}
	}
	// Output: [call off] verb synonym true
}
