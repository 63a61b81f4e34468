package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// AppendValueJSON writes exactly what json.Marshal(Value()) writes — for
// every record of every built-in world, alone and as a list, and for
// strings and numbers chosen to hit every escaping and formatting rule.
func TestAppendValueJSONIsMarshalOfValue(t *testing.T) {
	same := func(t *testing.T, what string, r *Result) {
		t.Helper()
		want, wantErr := json.Marshal(r.Value())
		got, err := r.AppendValueJSON([]byte("prefix:"))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: error %v, json.Marshal's %v", what, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, append([]byte("prefix:"), want...)) {
			t.Fatalf("%s:\n got %s\nwant prefix:%s", what, got, want)
		}
	}
	files, err := filepath.Glob("../worlds/*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("the built-in worlds: %v %v", files, err)
	}
	files = append(files, "testdata/shop.yaml") // has float fields
	sawFloat := false
	tricky := []string{"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnew\nline\rcr\bbs\fff",
		"\x00\x01\x1f\x7f", "é ü 日本 😀", "bad \xff utf-8 \xc3", "line\u2028para\u2029end", "\u00a0nbsp"}
	floats := []float64{0, -0.0, 1, -1.5, 0.1, 1e-7, 1.5e-9, 123456789.125, 1e20, 1e21, 2.5e300, math.SmallestNonzeroFloat64}
	for _, file := range files {
		w := mustLoad(t, file)
		b := mustSeed(t, w, 42)
		for _, rt := range w.Types {
			recs := b.Records(rt)
			same(t, w.Name+" "+rt.Name+" list", &Result{Records: recs})
			same(t, w.Name+" "+rt.Name+" empty list", &Result{Records: []*Record{}})
			for _, rec := range recs {
				same(t, w.Name+" "+rec.ID(), &Result{Record: rec})
			}
			if len(recs) == 0 {
				continue
			}
			// The first record with every field set to each tricky value of
			// its kind.
			for i := range max(len(tricky), len(floats)) {
				rec := &Record{typ: rt, id: recs[0].id, vals: slices.Clone(recs[0].vals)}
				for _, f := range rt.Fields {
					switch f.Type {
					case FieldStr, FieldEnum, FieldRef:
						rec.vals[f.Index] = types.String(tricky[i%len(tricky)])
					case FieldFloat:
						rec.vals[f.Index] = types.Double(floats[i%len(floats)])
						sawFloat = true
					case FieldInt:
						rec.vals[f.Index] = types.Int(int64(i) * -9007199254740993)
					case FieldDatetime:
						rec.vals[f.Index] = types.Timestamp{Time: time.Date(2026, 12, 1, 23, 8, 7, i*1234567, time.FixedZone("x", 3600))}
					case FieldBool:
						rec.vals[f.Index] = types.Bool(i%2 == 0)
					}
					if f.Nullable && i%3 == 0 {
						rec.vals[f.Index] = ref.Val(nil)
					}
				}
				same(t, w.Name+" "+rt.Name+" tricky", &Result{Record: rec})
				same(t, w.Name+" "+rt.Name+" tricky list", &Result{Records: []*Record{rec, recs[0], rec}})
			}
		}
	}
	if !sawFloat {
		t.Error("no world had a float field: the float formatting went untested")
	}
	same(t, "deleted", &Result{Deleted: "c_<0001>"})
	same(t, "ok", &Result{})
}

// BenchmarkValueJSON encodes list_contacts' answer (20 crm contacts) as a
// served world does: with AppendValueJSON, and as it did before, with
// json.Marshal of Value().
func BenchmarkValueJSON(b *testing.B) {
	w := mustLoad(b, "../worlds/crm.yaml")
	recs := mustSeed(b, w, 42).Records(w.Types[0])[:20]
	res := &Result{Records: recs}
	b.Run("AppendValueJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := res.AppendValueJSON(make([]byte, 0, 1024)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MarshalValue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(res.Value()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
