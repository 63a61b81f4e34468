package scaffold

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxOpenAPIFile bounds an OpenAPI document: large public APIs are a few
// megabytes, and the document is parsed whole.
const maxOpenAPIFile = 8 << 20

// IsOpenAPI reports whether data looks like an OpenAPI 3 document (YAML or
// JSON): it has a top-level "openapi" key. A cheap test, made before the
// full parse, so that a caller can tell it from a tool list or a world.
func IsOpenAPI(data []byte) bool {
	for _, line := range strings.SplitN(string(data), "\n", 200) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "openapi:") || strings.HasPrefix(line, "openapi:") {
			return true
		}
		if strings.Contains(l, `"openapi"`) && strings.Contains(l, ":") {
			return true
		}
	}
	return false
}

// FromOpenAPI reads an OpenAPI 3 document. from is how the user named it,
// for messages. References to other files or URLs are refused: a document
// is read as it is, and scaffolding contacts nothing.
func FromOpenAPI(from string, data []byte) (*Source, error) {
	if len(data) > maxOpenAPIFile {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d an OpenAPI document may have here", from, len(data), maxOpenAPIFile)
	}
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("%s: not an OpenAPI 3 document: %v", from, err)
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("%s: invalid OpenAPI document: %v", from, err)
	}
	src := &Source{From: from, Kind: "OpenAPI document"}
	if doc.Info != nil {
		src.Name, src.Version = doc.Info.Title, doc.Info.Version
		src.About = strings.TrimSpace(doc.Info.Description)
	}
	if doc.Paths == nil || doc.Paths.Len() == 0 {
		return nil, fmt.Errorf("%s has no paths: nothing to scaffold", from)
	}
	paths := doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, path := range keys {
		item := paths[path]
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			o := item.GetOperation(method)
			if o == nil {
				continue
			}
			op, err := opFromOpenAPI(method, path, item, o)
			if err != nil {
				return nil, fmt.Errorf("%s: %s %s: %v", from, method, path, err)
			}
			src.Ops = append(src.Ops, op)
			if len(src.Ops) > maxOps {
				return nil, fmt.Errorf("%s has more than %d operations; a scaffold takes at most %d", from, maxOps, maxOps)
			}
		}
	}
	return src, nil
}

func opFromOpenAPI(method, path string, item *openapi3.PathItem, o *openapi3.Operation) (Op, error) {
	name := o.OperationID
	if name == "" {
		name = strings.ToLower(method) + "_" + strings.Trim(strings.NewReplacer("{", "", "}", "", "/", "_").Replace(path), "_")
	}
	desc := strings.TrimSpace(o.Summary)
	if d := strings.TrimSpace(o.Description); d != "" && d != desc {
		if desc != "" && !strings.HasSuffix(desc, ".") {
			desc += "."
		}
		desc = strings.TrimSpace(desc + " " + d)
	}
	op := Op{Name: name, Description: desc, Method: method, Path: path, Input: &Schema{Type: "object"}}
	params := append(openapi3.Parameters{}, item.Parameters...)
	params = append(params, o.Parameters...)
	for _, pr := range params {
		p := pr.Value
		if p == nil || (p.In != openapi3.ParameterInPath && p.In != openapi3.ParameterInQuery) {
			continue // headers and cookies are transport, not arguments an agent fills
		}
		s := &Schema{Type: "string"}
		if p.Schema != nil {
			s = fromOpenAPISchema(p.Schema, 0)
		}
		s.Description = firstNonEmpty(p.Description, s.Description)
		if op.Input.Prop(p.Name) != nil {
			continue
		}
		op.Input.Properties = append(op.Input.Properties, Property{Name: p.Name, Schema: s, Required: p.Required || p.In == openapi3.ParameterInPath})
		if p.In == openapi3.ParameterInPath {
			op.PathParams = append(op.PathParams, p.Name)
		}
	}
	if rb := o.RequestBody; rb != nil && rb.Value != nil {
		if mt := jsonContent(rb.Value.Content); mt != nil && mt.Schema != nil {
			body := fromOpenAPISchema(mt.Schema, 0)
			for _, bp := range body.Properties {
				if op.Input.Prop(bp.Name) == nil {
					op.Input.Properties = append(op.Input.Properties, bp)
				}
			}
		}
	}
	if o.Responses != nil {
		for _, code := range []int{200, 201} {
			if r := o.Responses.Status(code); r != nil && r.Value != nil {
				if mt := jsonContent(r.Value.Content); mt != nil && mt.Schema != nil {
					op.Output = fromOpenAPISchema(mt.Schema, 0)
					break
				}
			}
		}
	}
	return op, nil
}

// jsonContent picks the JSON media type of a body.
func jsonContent(c openapi3.Content) *openapi3.MediaType {
	if mt := c.Get("application/json"); mt != nil {
		return mt
	}
	for k, mt := range c {
		if strings.HasSuffix(k, "+json") {
			return mt
		}
	}
	return nil
}

// fromOpenAPISchema converts a resolved OpenAPI schema; allOf parts are
// merged, the way a body built from a base schema and an extension is.
func fromOpenAPISchema(ref *openapi3.SchemaRef, depth int) *Schema {
	s := &Schema{}
	if ref == nil || ref.Value == nil || depth > maxSchemaDepth {
		return s
	}
	v := ref.Value
	if v.Type != nil {
		for _, t := range v.Type.Slice() {
			if t == "null" {
				s.Nullable = true
			} else if s.Type == "" {
				s.Type = t
			}
		}
	}
	s.Nullable = s.Nullable || v.Nullable
	s.Description, s.Format = v.Description, v.Format
	for _, e := range v.Enum {
		if es, ok := e.(string); ok {
			s.Enum = append(s.Enum, es)
		}
	}
	s.Minimum, s.Maximum = v.Min, v.Max
	if v.MaxLength != nil && *v.MaxLength < 1e9 {
		n := int(*v.MaxLength)
		s.MaxLength = &n
	}
	if v.Items != nil {
		s.Items = fromOpenAPISchema(v.Items, depth+1)
		if s.Type == "" {
			s.Type = "array"
		}
	}
	required := append([]string{}, v.Required...)
	props := map[string]*openapi3.SchemaRef{}
	for n, p := range v.Properties {
		props[n] = p
	}
	for _, part := range v.AllOf {
		if part == nil || part.Value == nil {
			continue
		}
		required = append(required, part.Value.Required...)
		for n, p := range part.Value.Properties {
			if _, ok := props[n]; !ok {
				props[n] = p
			}
		}
	}
	if len(props) > 0 {
		if s.Type == "" {
			s.Type = "object"
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		for _, n := range orderProperties(names, required) {
			s.Properties = append(s.Properties, Property{Name: n, Schema: fromOpenAPISchema(props[n], depth+1), Required: contains(required, n)})
		}
	}
	return s
}
