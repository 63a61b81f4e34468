// Package stats holds the small statistics behind herd's readiness report:
// intervals on rates, paired and unpaired comparisons of variants, bootstrap
// intervals on latency percentiles, and the sample-size floor below which a
// report refuses to decide. Every function is deterministic and pure; none
// panics on bad input (nonsense is clamped or answered with the widest honest
// interval, and CheckCount exists to report bad counts as an error).
//
// Wilson (and NewRate) use the Wilson score interval. Agent failure rates
// are often near 0 (destroyed data, double refunds), where the textbook Wald
// interval p̂ ± z·sqrt(p̂(1-p̂)/n) collapses to zero width and covers badly;
// the score interval stays inside [0,1], is never degenerate at k=0 or k=n,
// and keeps close to nominal coverage for small n and extreme p (Newcombe
// 1998a compares seven methods and recommends it; Brown, Cai & DasGupta 2001
// agree). It is closed-form, so it is cheap for every rate in a report.
//
// McNemarExact is the exact (conditional binomial) McNemar test. Variants are
// compared on the same agent seeds, so the pairs where both or neither
// variant succeeded carry no information about the difference; only the
// discordant pairs do, and under "no difference" each is a fair coin. The
// exact binomial form is used rather than the chi-square approximation
// because discordant counts are often small. Fagerland, Lydersen & Laake
// (2013) show it is conservative (it rejects less often than the nominal
// level), which errs on the side herd wants: a variant is not declared
// different on weak evidence.
//
// PairedDiff uses Newcombe's method 10 for paired proportions (Newcombe
// 1998c): the Wilson intervals of the two marginal rates combined by "square
// and add", with the correlation between the arms estimated by the phi
// coefficient (continuity-corrected when positive). Pairing by seed makes the
// arms strongly correlated, and ignoring that would give needlessly wide
// intervals; unlike the Wald interval for paired data it behaves at
// boundaries and with few discordant pairs. It is closed-form and agrees with
// the published examples to four decimals.
//
// TwoSampleDiff uses Newcombe's hybrid score interval (method 10 of Newcombe
// 1998b), square-and-add of the two Wilson intervals, for comparisons of
// independent runs (different seeds or worlds). It inherits the Wilson
// interval's good behaviour near 0 and 1, where the Wald difference interval
// overshoots and under-covers. Its p-value comes from Fisher's exact test
// when any expected cell count is below 5 (Cochran's rule: there the normal
// approximation is untrustworthy and the exact sum is short), and from the
// pooled two-proportion z-test otherwise (equivalent to the uncorrected
// chi-square test, accurate at those counts and O(1)).
//
// BootstrapQuantile gives percentile-bootstrap intervals for latency
// percentiles (Efron & Tibshirani 1993, ch. 13). Latency distributions are
// skewed and heavy-tailed, so no distributional formula is trusted; the
// bootstrap needs none. It works on histogram bars, not raw observations: a
// resample is a multinomial draw over the bars, generated exactly as a chain
// of conditional binomials (gonum distuv.Binomial) and stopped at the bar
// holding the wanted rank, so a million-observation HDR histogram costs the
// same as a thousand-observation one. Resolution is that of the histogram.
//
// MinEpisodes (300) is the floor below which a report says "too few episodes
// to decide"; see its comment for the derivation from the 1% and 5%
// thresholds herd's design uses.
//
// References:
//
//   - Wilson EB (1927). Probable inference, the law of succession, and
//     statistical inference. J Am Stat Assoc 22:209-212.
//   - Newcombe RG (1998a). Two-sided confidence intervals for the single
//     proportion: comparison of seven methods. Stat Med 17:857-872.
//   - Newcombe RG (1998b). Interval estimation for the difference between
//     independent proportions: comparison of eleven methods. Stat Med
//     17:873-890.
//   - Newcombe RG (1998c). Improved confidence intervals for the difference
//     between binomial proportions based on paired data. Stat Med
//     17:2635-2650.
//   - Brown LD, Cai TT, DasGupta A (2001). Interval estimation for a
//     binomial proportion. Stat Sci 16:101-133.
//   - McNemar Q (1947). Note on the sampling error of the difference between
//     correlated proportions or percentages. Psychometrika 12:153-157.
//   - Fagerland MW, Lydersen S, Laake P (2013). The McNemar test for binary
//     matched-pairs data: mid-p and asymptotic are better than exact
//     conditional. BMC Med Res Methodol 13:91.
//   - Fagerland MW, Lydersen S, Laake P (2017). Statistical Analysis of
//     Contingency Tables. CRC Press.
//   - Efron B, Tibshirani RJ (1993). An Introduction to the Bootstrap.
//     Chapman & Hall.
package stats
