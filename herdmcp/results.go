package herdmcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/herd-sh/herd/report"
)

// ResultsScheme is the URI scheme of saved runs as MCP resources:
// herd-results://RUN_ID.
const ResultsScheme = "herd-results"

// runIDRE is what a run id is: the world's name, a dash, twelve hex
// digits. Nothing else is looked up, so a run id never walks out of the
// results folder.
var runIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}-[0-9a-f]{12}$`)

// resultsStore is the configured results folder: the one place runs are
// written to and read from.
type resultsStore struct{ dir string }

// runID names a run by what decides its outcome (its reproducing command
// and thresholds): the same request gives the same id, and overwrites
// the same file with the same counts, so a repeated run has no further
// effect (the run tool's idempotentHint).
func runID(world, command string, thresholds []string, strict bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%t", command, strict)
	for _, t := range thresholds {
		fmt.Fprintf(h, "\x00%s", t)
	}
	return safeName(world) + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// safeName folds a world name onto the run id's alphabet.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 || !(b.String()[0] >= 'a' && b.String()[0] <= 'z' || b.String()[0] >= '0' && b.String()[0] <= '9') {
		return "w" + b.String()
	}
	return b.String()
}

// path is where run id's document lives; an id that is not one is refused.
func (s resultsStore) path(id string) (string, error) {
	if !runIDRE.MatchString(id) {
		return "", fmt.Errorf("run_id %q is not a run id (a world name, a dash and 12 hex digits, e.g. crm-0123456789ab); list_results lists the saved runs", id)
	}
	return filepath.Join(s.dir, id+".json"), nil
}

// save writes res as run id's document, atomically: a reader never sees
// half a file.
func (s resultsStore) save(id string, res *report.Results) (string, error) {
	path, err := s.path(id)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return "", fmt.Errorf("results folder %s: %w", s.dir, err)
	}
	tmp, err := os.CreateTemp(s.dir, "."+id+"-*.tmp")
	if err != nil {
		return "", fmt.Errorf("results folder %s: %w", s.dir, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if err := res.Write(tmp); err != nil {
		tmp.Close()
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// load reads run id's document.
func (s resultsStore) load(id string) (*report.Results, error) {
	path, err := s.path(id)
	if err != nil {
		return nil, err
	}
	res, err := report.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run %s: no such saved run in the results folder; list_results lists the saved runs", id)
	}
	return res, err
}

// raw reads run id's document as saved.
func (s resultsStore) raw(id string) ([]byte, error) {
	path, err := s.path(id)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// savedRun is one document of the results folder.
type savedRun struct {
	ID      string
	ModTime int64 // unix nanoseconds
}

// list lists the saved runs, the latest first. A missing folder has none.
func (s resultsStore) list() ([]savedRun, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results folder %s: %w", s.dir, err)
	}
	var out []savedRun
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() || !runIDRE.MatchString(id) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, savedRun{ID: id, ModTime: info.ModTime().UnixNano()})
	}
	slices.SortFunc(out, func(a, b savedRun) int {
		if a.ModTime != b.ModTime {
			if a.ModTime > b.ModTime {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// resultsURI is run id's resource URI.
func resultsURI(id string) string { return ResultsScheme + "://" + id }

// idFromURI is the run id of a resource URI.
func idFromURI(uri string) (string, bool) {
	return strings.CutPrefix(uri, ResultsScheme+"://")
}
