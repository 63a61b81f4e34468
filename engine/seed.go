package engine

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/herd-sh/herd/engine/entropy"
)

// Seed builds the world's base state for a seed. Every value comes from the
// entropy funnel keyed by (seed, type), so the same seed gives the same
// records on every machine and Go release.
func (w *World) Seed(seed uint64) (*Base, error) {
	b := &Base{
		world: w,
		seed:  seed,
		recs:  make([][]*Record, len(w.Types)),
		index: make([]map[string]int, len(w.Types)),
	}
	for _, t := range w.Types {
		rng := entropy.NewRand(entropy.Key{Seed: seed, Purpose: entropy.Seeding}.Uint64(), entropy.Name("type:"+t.Name))
		recs := make([]*Record, t.Count)
		idx := make(map[string]int, t.Count)
		for i := range recs {
			r := newRecord(t, formatID(t.idField.Prefix, i+1))
			for _, f := range t.Fields {
				r.vals[f.Index] = f.seedValue(w, b, rng, r, recs[:i])
			}
			recs[i] = r
			idx[r.id] = i
		}
		b.recs[t.index] = recs
		b.index[t.index] = idx
	}
	// One meter for every check seeding does, so that many cheap checks
	// cannot add up to minutes.
	m := newLoadMeter()
	if err := b.checkInvariants(m); err != nil {
		return nil, err
	}
	b.search = make([]*searchBlob, len(w.Tools))
	for _, t := range w.Tools {
		if t.search == nil {
			continue
		}
		texts := make([]string, len(b.recs[t.Record.index]))
		for i, r := range b.recs[t.Record.index] {
			texts[i] = t.search.text(r)
		}
		b.search[t.index] = newSearchBlob(texts)
	}
	b.candidates = make([][]*Record, len(w.Goals))
	for i, g := range w.Goals {
		c, err := g.findCandidates(b, m)
		if err != nil {
			return nil, err
		}
		b.candidates[i] = c
	}
	return b, nil
}

// formatID numbers records: prefix + at least four digits (c_0001). It
// builds the id in one allocation: every create makes one.
func formatID(prefix string, n int) string {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(n), 10)
	var b strings.Builder
	b.Grow(len(prefix) + max(4, len(d)))
	b.WriteString(prefix)
	for i := len(d); i < 4; i++ {
		b.WriteByte('0')
	}
	b.Write(d)
	return b.String()
}

// generator produces a seeded value for a field.
type generator func(rng *rand.Rand, f *Field, w *World, rec *Record, earlier []*Record) ref.Val

func (f *Field) seedValue(w *World, b *Base, rng *rand.Rand, rec *Record, earlier []*Record) ref.Val {
	switch f.Type {
	case FieldID:
		return types.String(rec.id)
	case FieldRef:
		pool := b.recs[f.Ref.index]
		if f.Ref == rec.typ {
			pool = earlier
		}
		if len(pool) == 0 {
			return nil
		}
		return types.String(pool[rng.IntN(len(pool))].id)
	}
	if f.gen != nil {
		return f.gen(rng, f, w, rec, earlier)
	}
	switch f.Type {
	case FieldEnum:
		if f.defaultVal != nil {
			return f.defaultVal
		}
		return types.String(f.Values[pickWeighted(rng, f.weights())])
	case FieldBool:
		if f.p >= 0 {
			return types.Bool(rng.Float64() < f.p)
		}
	}
	if f.defaultVal != nil {
		return f.defaultVal
	}
	if f.Nullable {
		return nil
	}
	switch f.Type {
	case FieldStr:
		return types.String("")
	case FieldInt:
		return types.Int(int64(f.zero()))
	case FieldFloat:
		return types.Double(f.zero())
	case FieldBool:
		return types.False
	case FieldDatetime:
		return types.Timestamp{Time: w.Epoch}
	}
	return nil
}

// zero is what a number field with neither generator nor default is
// seeded with: 0, or the bound nearest to it when its bounds exclude 0 (a
// seeded value outside them would make every later write to the record
// fail its checks).
func (f *Field) zero() float64 {
	switch {
	case f.Min != nil && *f.Min > 0:
		return *f.Min
	case f.Max != nil && *f.Max < 0:
		return *f.Max
	}
	return 0
}

func (f *Field) weights() []float64 {
	if len(f.enumWeights) > 0 {
		return f.enumWeights
	}
	ws := make([]float64, len(f.Values))
	for i := range ws {
		ws[i] = 1
	}
	return ws
}

func pickWeighted(rng *rand.Rand, ws []float64) int {
	total := 0.0
	for _, w := range ws {
		total += w
	}
	u := rng.Float64() * total
	for i, w := range ws {
		if u < w {
			return i
		}
		u -= w
	}
	return len(ws) - 1
}

// generators maps a `gen:` name to its generator and the field types it
// may be used on.
var generators = map[string]struct {
	fn    generator
	types []FieldType
}{
	"person_name": {genPersonName, []FieldType{FieldStr}},
	"first_name":  {pickFrom(firstNames), []FieldType{FieldStr}},
	"last_name":   {pickFrom(lastNames), []FieldType{FieldStr}},
	"email":       {genEmail, []FieldType{FieldStr}},
	"company":     {genCompany, []FieldType{FieldStr}},
	"city":        {pickFrom(cities), []FieldType{FieldStr}},
	"title":       {genTitle, []FieldType{FieldStr}},
	"word":        {pickFrom(words), []FieldType{FieldStr}},
	"sentence":    {genSentence, []FieldType{FieldStr}},
	"sku":         {genSKU, []FieldType{FieldStr}},
	"path":        {genPath, []FieldType{FieldStr}},
	"amount":      {genAmount, []FieldType{FieldInt, FieldFloat}},
	"uniform":     {genUniform, []FieldType{FieldInt, FieldFloat}},
	"past":        {genPast, []FieldType{FieldDatetime}},
}

func pickFrom(list []string) generator {
	return func(rng *rand.Rand, _ *Field, _ *World, _ *Record, _ []*Record) ref.Val {
		return types.String(list[rng.IntN(len(list))])
	}
}

// nearName returns a near-duplicate of name: a spelling variant of the
// first name where one is known, otherwise a middle initial.
func nearName(rng *rand.Rand, name string) string {
	first, rest, ok := strings.Cut(name, " ")
	if !ok {
		return name + "e"
	}
	if alt, ok := nameVariants[first]; ok {
		return alt + " " + rest
	}
	return first + " " + string(rune('A'+rng.IntN(26))) + ". " + rest
}

func genPersonName(rng *rand.Rand, f *Field, _ *World, _ *Record, earlier []*Record) ref.Val {
	if f.nearDup > 0 && len(earlier) > 0 && rng.Float64() < f.nearDup {
		src := earlier[rng.IntN(len(earlier))].vals[f.Index]
		if s, ok := src.(types.String); ok && s != "" {
			return types.String(nearName(rng, string(s)))
		}
	}
	return types.String(firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))])
}

func genCompany(rng *rand.Rand, f *Field, _ *World, _ *Record, earlier []*Record) ref.Val {
	if f.nearDup > 0 && len(earlier) > 0 && rng.Float64() < f.nearDup {
		if s, ok := earlier[rng.IntN(len(earlier))].vals[f.Index].(types.String); ok && s != "" {
			base := strings.TrimSuffix(strings.TrimSuffix(string(s), " Inc."), " Ltd")
			return types.String(base + []string{" Inc.", " Ltd", " Group"}[rng.IntN(3)])
		}
	}
	return types.String(companyStems[rng.IntN(len(companyStems))] + " " + companyKinds[rng.IntN(len(companyKinds))])
}

func genEmail(rng *rand.Rand, f *Field, _ *World, rec *Record, _ []*Record) ref.Val {
	local := ""
	if f.from != nil {
		if s, ok := rec.vals[f.from.Index].(types.String); ok {
			local = emailLocal(string(s))
		}
	}
	if local == "" {
		local = strings.ToLower(firstNames[rng.IntN(len(firstNames))]) + "." + strings.ToLower(lastNames[rng.IntN(len(lastNames))])
	}
	// A number keeps near-duplicate people's addresses distinct.
	if rng.IntN(3) == 0 {
		local += strconv.Itoa(rng.IntN(90) + 10)
	}
	return types.String(local + "@" + emailDomains[rng.IntN(len(emailDomains))])
}

func emailLocal(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('.')
		}
	}
	return strings.Trim(strings.ReplaceAll(b.String(), "..", "."), ".")
}

func genTitle(rng *rand.Rand, _ *Field, _ *World, _ *Record, _ []*Record) ref.Val {
	return types.String(titleAdjs[rng.IntN(len(titleAdjs))] + " " + titleNouns[rng.IntN(len(titleNouns))])
}

func genSentence(rng *rand.Rand, _ *Field, _ *World, _ *Record, _ []*Record) ref.Val {
	n := 5 + rng.IntN(6)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[rng.IntN(len(words))]
	}
	s := strings.Join(parts, " ")
	return types.String(strings.ToUpper(s[:1]) + s[1:] + ".")
}

func genSKU(rng *rand.Rand, _ *Field, _ *World, _ *Record, _ []*Record) ref.Val {
	return types.String(fmt.Sprintf("%c%c-%04d", 'A'+rng.IntN(26), 'A'+rng.IntN(26), rng.IntN(10000)))
}

func genPath(rng *rand.Rand, _ *Field, _ *World, _ *Record, _ []*Record) ref.Val {
	dir := pathDirs[rng.IntN(len(pathDirs))]
	name := strings.ToLower(strings.ReplaceAll(titleNouns[rng.IntN(len(titleNouns))], " ", "-"))
	ext := []string{".pdf", ".docx", ".csv", ".md", ".json"}[rng.IntN(5)]
	return types.String(fmt.Sprintf("%s/%d/%s-%d%s", dir, 2024+rng.IntN(3), name, rng.IntN(100), ext))
}

// bounds is the range a numeric generator draws from: the field's min and
// max, [0, 100] when neither is given, and a span of 100 beyond the one
// bound that is given (so "min: 500" alone draws from [500, 600]).
func bounds(f *Field) (lo, hi float64) {
	lo, hi = 0, 100
	switch {
	case f.Min != nil && f.Max != nil:
		lo, hi = *f.Min, *f.Max
	case f.Min != nil:
		lo = *f.Min
		hi = max(hi, lo+100)
	case f.Max != nil:
		hi = *f.Max
		lo = min(lo, hi-100)
	}
	return lo, hi
}

func genAmount(rng *rand.Rand, f *Field, w *World, rec *Record, e []*Record) ref.Val {
	lo, hi := bounds(f)
	if f.Type == FieldFloat {
		// Whole cents, kept inside bounds that are not whole cents.
		cents := float64(int((lo+rng.Float64()*(hi-lo))*100)) / 100
		return types.Double(min(hi, max(lo, cents)))
	}
	v := int64(lo) + rng.Int64N(int64(hi-lo)+1)
	if hi >= 1000 {
		v = v / 100 * 100
		if v < int64(lo) {
			v = int64(lo)
		}
	}
	return types.Int(v)
}

func genUniform(rng *rand.Rand, f *Field, _ *World, _ *Record, _ []*Record) ref.Val {
	lo, hi := bounds(f)
	if f.Type == FieldFloat {
		return types.Double(lo + rng.Float64()*(hi-lo))
	}
	return types.Int(int64(lo) + rng.Int64N(int64(hi-lo)+1))
}

func genPast(rng *rand.Rand, f *Field, w *World, _ *Record, _ []*Record) ref.Val {
	days := f.maxDays
	if days <= 0 {
		days = 365
	}
	secs := rng.Int64N(int64(days) * 86400)
	return types.Timestamp{Time: w.Epoch.Add(-time.Duration(secs) * time.Second)}
}

// The word lists are small on purpose: enough variety for realistic data
// and for near-duplicates to matter, small enough to embed and audit.
var (
	firstNames = []string{"Ada", "Alan", "Grace", "John", "Katherine", "Steven", "Sarah", "Anne", "Michael",
		"Philip", "Jeffrey", "Eric", "Brian", "Claire", "Mark", "Jacob", "Maria", "Wei", "Priya", "Omar",
		"Lena", "Tomás", "Yuki", "Fatima", "Noah", "Olivia", "Liam", "Emma", "Lucas", "Mia", "Ivan", "Zara"}
	nameVariants = map[string]string{"John": "Jon", "Katherine": "Catherine", "Steven": "Stephen", "Sarah": "Sara",
		"Anne": "Ann", "Michael": "Micheal", "Philip": "Phillip", "Jeffrey": "Geoffrey", "Eric": "Erik",
		"Brian": "Bryan", "Claire": "Clare", "Mark": "Marc", "Jacob": "Jakob", "Alan": "Allan", "Maria": "Marie"}
	lastNames = []string{"Lovelace", "Turing", "Hopper", "Smith", "Johnson", "Nguyen", "Garcia", "Müller", "Rossi",
		"Kowalski", "Okafor", "Tanaka", "Patel", "Haddad", "Silva", "Andersen", "Brown", "Dubois", "Ivanova",
		"Kim", "Larsen", "Moreau", "Novak", "Reyes", "Schmidt", "Weber", "Young", "Zhang"}
	companyStems = []string{"Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Hooli", "Vandelay",
		"Soylent", "Cyberdyne", "Tyrell", "Wonka", "Pied Piper", "Aperture", "Massive Dynamic", "Oscorp"}
	companyKinds = []string{"Inc.", "Ltd", "GmbH", "Labs", "Systems", "Partners", "Logistics", "Foods"}
	emailDomains = []string{"example.com", "example.org", "example.net", "mail.example", "corp.example"}
	cities       = []string{"Lisbon", "Osaka", "Lagos", "Toronto", "Berlin", "Lima", "Pune", "Austin", "Oslo", "Nairobi"}
	titleAdjs    = []string{"Quarterly", "Annual", "Draft", "Final", "Revised", "Team", "Project", "Customer", "Board", "Weekly"}
	titleNouns   = []string{"Report", "Budget", "Plan", "Minutes", "Roadmap", "Invoice", "Contract", "Summary", "Forecast", "Review"}
	words        = []string{"order", "shipping", "invoice", "account", "update", "meeting", "delivery", "thanks",
		"question", "payment", "receipt", "schedule", "review", "follow", "request", "support"}
	pathDirs = []string{"reports", "contracts", "finance", "hr", "projects", "public", "archive"}
)
