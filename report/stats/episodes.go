package stats

// MinEpisodes is the number of episodes below which a report must say "too
// few episodes to decide".
//
// Why 300: the tightest threshold herd's design cites is destroyed_data<1%.
// With zero events in n trials the 95% upper bound is about 3/n (the "rule of
// three"; the Wilson bound is z²/(n+z²) = 1.26% at n=300), so 300 is roughly
// the smallest sample on which a clean run can even approach a 1% claim.
// It also caps the worst-case (p=0.5) 95% Wilson half-width at about 5.6
// percentage points, the same size as the 5% thresholds the design uses for
// harmful actions — below that, intervals are wider than the effects being
// judged and a READY/NOT READY verdict would mostly reflect noise.
const MinEpisodes = 300

// TooFew reports whether n is below MinEpisodes.
func TooFew(n int) bool { return n < MinEpisodes }
