package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/worlds"
)

// newOptions are the flags of herd new.
type newOptions struct {
	output string // the file to write instead of NAME.yaml; "-" for standard output
}

func newNewCmd(s *streams) *cobra.Command {
	opts := &newOptions{}
	cmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Write a starter world file",
		Long: `Write NAME.yaml, a small world that validates and runs as it is — a note
store with an archive, an audit log, faults and a goal — to edit into a fake
of your own system. It never overwrites a file.

  herd new billing                 # writes billing.yaml, world "billing"
  herd new my-world                # writes my-world.yaml, world "my_world"
  herd new worlds/crm-eu.yaml      # writes that file, world "crm_eu"
  herd validate billing.yaml
  herd swarm billing.yaml

The world's name is the file's base name with - turned into _: lower case
letters, digits and _, starting with a letter.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNew(s, opts, args[0])
		},
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write to FILE instead of NAME.yaml (- for standard output)")
	return cmd
}

// newTarget turns the NAME argument into the file to write and the world's
// name: "my-world" → my-world.yaml, world my_world.
func newTarget(arg string) (path, world string) {
	path = arg
	if ext := filepath.Ext(arg); ext != ".yaml" && ext != ".yml" {
		path = arg + ".yaml"
	}
	base := filepath.Base(path)
	world = strings.ReplaceAll(strings.TrimSuffix(base, filepath.Ext(base)), "-", "_")
	return path, world
}

func runNew(s *streams, opts *newOptions, arg string) error {
	path, name := newTarget(arg)
	src, err := worlds.Scaffold(name)
	if err != nil {
		return usageErrf("NAME %q: %v", arg, err)
	}
	if opts.output == "-" {
		_, err := s.out.Write(src)
		return err
	}
	if opts.output != "" {
		path = opts.output
	}
	// O_EXCL: refusing to overwrite is decided by the file system, so two
	// runs racing for one name cannot both win.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usageErrf("%s already exists; not overwriting it (choose another name or -o FILE)", path)
	}
	if err != nil {
		return usageErr(err)
	}
	if _, err := f.Write(src); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "wrote %s (world %s)\n  check it:  herd validate %s\n  try it:    herd swarm %s --agents 100\n", path, name, path, path)
	return nil
}
