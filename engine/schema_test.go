package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestInputSchemaShape(t *testing.T) {
	w := mustLoad(t, "testdata/shop.yaml")
	got, err := json.Marshal(w.Tool("create_payment").InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{` +
		`"amount":{"description":"Amount in cents.","minimum":1,"type":"integer"},` +
		`"idempotency_key":{"description":"Repeat-safe key.","maxLength":64,"minLength":8,"type":"string"},` +
		`"order":{"description":"The order to pay.","type":"string"}},` +
		`"required":["order","amount"],"type":"object"}`
	if string(got) != want {
		t.Fatalf("create_payment schema:\n got %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(w.Tool("list_orders").InputSchema())
	want = `{"additionalProperties":false,"properties":{` +
		`"customer":{"description":"Customer id.","type":"string"},` +
		`"limit":{"default":10,"maximum":50,"minimum":1,"type":"integer"},` +
		`"status":{"enum":["open","paid","shipped"],"type":"string"}},"type":"object"}`
	if string(got) != want {
		t.Fatalf("list_orders schema:\n got %s\nwant %s", got, want)
	}
	// Deterministic: the same bytes every time, from a fresh load too.
	w2 := mustLoad(t, "testdata/shop.yaml")
	for _, tool := range w.Tools {
		a, _ := json.Marshal(tool.InputSchema())
		b, _ := json.Marshal(w2.Tool(tool.Name).InputSchema())
		if string(a) != string(b) {
			t.Fatalf("%s: schema differs between loads", tool.Name)
		}
	}
}

// The schema and the engine agree: an argument object validates against
// a tool's InputSchema exactly when Session.Call accepts its arguments.
func TestInputSchemaMatchesValidation(t *testing.T) {
	for _, file := range []string{"testdata/shop.yaml", "../worlds/crm.yaml"} {
		w := mustLoad(t, file)
		for _, tool := range w.Tools {
			raw, _ := json.Marshal(tool.InputSchema())
			var sch jsonschema.Schema
			if err := json.Unmarshal(raw, &sch); err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			rs, err := sch.Resolve(nil)
			if err != nil {
				t.Fatalf("%s: schema does not resolve: %v", tool.Name, err)
			}
			for _, args := range argVariants(tool) {
				// Round-trip through JSON, as an MCP client's arguments arrive.
				enc, _ := json.Marshal(args)
				var inst map[string]any
				json.Unmarshal(enc, &inst)
				schemaOK := rs.Validate(inst) == nil
				_, terr := tool.validate(inst)
				if schemaOK != (terr == nil) {
					t.Errorf("%s %s: schema says valid=%v, engine says %v", tool.Name, enc, schemaOK, terr)
				}
			}
		}
	}
}

// argVariants builds a valid argument object for a tool and, from it, one
// variation per way each param can be wrong (and right at its bounds).
func argVariants(t *Tool) []map[string]any {
	valid := map[string]any{}
	for _, p := range t.Params {
		if p.Required {
			valid[p.Name] = goodValue(p)
		}
	}
	with := func(name string, v any) map[string]any {
		m := map[string]any{}
		for k, x := range valid {
			m[k] = x
		}
		m[name] = v
		return m
	}
	out := []map[string]any{valid, with("not_a_param", 1)}
	for _, p := range t.Params {
		out = append(out, with(p.Name, goodValue(p)))
		if p.Required {
			m := with(p.Name, nil)
			delete(m, p.Name)
			out = append(out, m)
		}
		switch p.Type {
		case ParamStr, ParamEnum:
			out = append(out, with(p.Name, 12), with(p.Name, true), with(p.Name, "é"+strings.Repeat("x", 3)))
			if p.Type == ParamEnum {
				out = append(out, with(p.Name, "not-a-value"), with(p.Name, p.Values[len(p.Values)-1]))
			}
			for _, n := range boundsAround(p) {
				if n >= 0 {
					out = append(out, with(p.Name, strings.Repeat("ü", n)))
				}
			}
		case ParamInt, ParamFloat:
			out = append(out, with(p.Name, "7"), with(p.Name, 2.5), with(p.Name, false))
			for _, n := range boundsAround(p) {
				out = append(out, with(p.Name, n))
			}
		case ParamBool:
			out = append(out, with(p.Name, "true"), with(p.Name, 1), with(p.Name, false))
		}
	}
	return out
}

func goodValue(p *Param) any {
	switch p.Type {
	case ParamEnum:
		return p.Values[0]
	case ParamBool:
		return true
	case ParamInt, ParamFloat:
		if p.Min != nil {
			return *p.Min
		}
		return 3
	}
	n := 8
	if p.Min != nil {
		n = max(n, int(*p.Min))
	}
	if p.Max != nil {
		n = min(n, int(*p.Max))
	}
	return strings.Repeat("a", n)
}

// boundsAround are the values just inside and just outside each bound.
func boundsAround(p *Param) []int {
	var out []int
	if p.Min != nil {
		out = append(out, int(*p.Min)-1, int(*p.Min))
	}
	if p.Max != nil {
		out = append(out, int(*p.Max), int(*p.Max)+1)
	}
	return out
}

func ExampleTool_InputSchema() {
	w, err := Parse("notes.yaml", []byte(`
world: notes
variants: [clear, ambiguous]
types:
  note:
    count: 3
    fields:
      id:    {type: id, prefix: "n_"}
      title: {type: str, gen: title}
tools:
  rename_note:
    kind: update
    record: note
    descriptions: {clear: Rename a note., ambiguous: Rename.}
    params:
      id:    {type: str, required: true, description: The note.}
      title: {type: str, min: 1, max: 80}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.MarshalIndent(w.Tool("rename_note").InputSchema(), "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "additionalProperties": false,
	//   "properties": {
	//     "id": {
	//       "description": "The note.",
	//       "type": "string"
	//     },
	//     "title": {
	//       "maxLength": 80,
	//       "minLength": 1,
	//       "type": "string"
	//     }
	//   },
	//   "required": [
	//     "id"
	//   ],
	//   "type": "object"
	// }
}
