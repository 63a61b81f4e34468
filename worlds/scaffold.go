package worlds

import (
	"bytes"
	"fmt"

	"github.com/herd-sh/herd/engine"
)

// scaffoldMarker stands for the world's name in the embedded template. A
// plain marker rather than text/template: the template is a world file
// whose intents already use {{…}} placeholders of their own.
const scaffoldMarker = "__NAME__"

// Scaffold returns a starter world file named name: a small note store that
// validates and runs as it is, with every section of the format shown once.
func Scaffold(name string) ([]byte, error) {
	if !engine.ValidName(name) {
		return nil, fmt.Errorf("world name %q must be %s", name, engine.NameRule)
	}
	tmpl, err := files.ReadFile("scaffold.yaml.tmpl")
	if err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(tmpl, []byte(scaffoldMarker), []byte(name)), nil
}
