package main

import "encoding/json"

func unmarshal(b []byte, v any) error {
	if len(b) == 0 {
		b = []byte("{}")
	}
	return json.Unmarshal(b, v)
}
