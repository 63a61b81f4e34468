package report_test

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/herd-sh/herd/report"
)

var screenshots = flag.String("screenshots", "", "write the HTML report's screenshots (PNG) to this folder, e.g. ../docs/img")

// layout is what the browser measured of the page at one width.
type layout struct {
	Width        float64  `json:"width"`        // the viewport
	ScrollWidth  float64  `json:"scrollWidth"`  // the page: wider than the viewport means a sideways scroll
	Height       float64  `json:"height"`       // the whole page
	FindingText  string   `json:"findingText"`  // the banner's h1
	FindingFont  float64  `json:"findingFont"`  // its font size
	LargestOther float64  `json:"largestOther"` // the largest font size of any other text
	FindingTop   float64  `json:"findingTop"`
	FindingBot   float64  `json:"findingBot"`
	CompareTop   float64  `json:"compareTop"` // where the variant comparison starts; -1 when there is none
	Columns      int      `json:"columns"`    // columns of bars checked
	Misaligned   []string `json:"misaligned"`
	Background   string   `json:"background"`
}

// measureJS measures the page. Columns of bars are found by the right
// edge of their cells (a column's cells share it, whatever rowspans do to
// cell indices); in each, every bar and the axis above must start at the
// same x and be drawn on the same scale.
const measureJS = `(() => {
	const h1 = document.querySelector('h1.finding');
	const r = h1.getBoundingClientRect();
	let largest = 0;
	for (const el of document.querySelectorAll('body *')) {
		if (el === h1 || h1.contains(el) || !el.childNodes.length) continue;
		const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim() !== '');
		if (own) largest = Math.max(largest, parseFloat(getComputedStyle(el).fontSize));
	}
	const misaligned = [];
	let columns = 0;
	for (const table of document.querySelectorAll('table')) {
		const groups = new Map();
		for (const svg of table.querySelectorAll('svg.iv, svg.axis')) {
			const cell = svg.closest('td, th');
			const key = Math.round(cell.getBoundingClientRect().right);
			if (!groups.has(key)) groups.set(key, []);
			groups.get(key).push(svg);
		}
		for (const [key, svgs] of groups) {
			if (svgs.length < 2) continue;
			columns++;
			const x0 = svgs[0].getBoundingClientRect().left, s0 = svgs[0].dataset.scale;
			for (const s of svgs) {
				const x = s.getBoundingClientRect().left;
				if (Math.abs(x - x0) > 0.5 || s.dataset.scale !== s0) {
					misaligned.push((table.className || 'table') + ' column at ' + key + ': x ' + x.toFixed(1) + ' vs ' + x0.toFixed(1) + ', scale ' + s.dataset.scale + ' vs ' + s0);
					break;
				}
			}
		}
	}
	const cmp = document.getElementById('variants');
	return {
		width: window.innerWidth, scrollWidth: document.documentElement.scrollWidth,
		height: document.documentElement.scrollHeight,
		findingText: h1.innerText, findingFont: parseFloat(getComputedStyle(h1).fontSize), largestOther: largest,
		findingTop: r.top, findingBot: r.bottom,
		compareTop: cmp ? cmp.getBoundingClientRect().top + window.scrollY : -1,
		columns: columns, misaligned: misaligned,
		background: getComputedStyle(document.body).backgroundColor,
	};
})()`

// view is one way of looking at the page.
type view struct {
	name          string
	width, height int64
	dark, print   bool
}

// look opens the page in a fresh tab as v says, and returns what it
// measured and a screenshot of the first screen.
func look(t *testing.T, browser context.Context, pageURL string, v view) (layout, []byte) {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	scheme := "light"
	if v.dark {
		scheme = "dark"
	}
	media := ""
	if v.print {
		media = "print"
	}
	err := chromedp.Do(tab,
		chromedp.EmulateViewport(v.width, v.height),
		func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Media: media, Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return chromedp.Void{}, err
		},
		chromedp.Navigate(pageURL), chromedp.WaitReady(chromedp.CSS("footer")))
	if err != nil {
		t.Fatalf("%s: loading the page: %v", v.name, err)
	}
	got, err := chromedp.Run(tab, chromedp.Evaluate[layout](measureJS))
	if err != nil {
		t.Fatalf("%s: measuring: %v", v.name, err)
	}
	shot, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("%s: screenshot: %v", v.name, err)
	}
	return got, shot
}

// TestHTMLLayoutInHeadlessChromium looks at the report as a reader does:
// at 400, 1,000 and 1,400 px, light and dark, and printed. The finding is
// the largest text and on the first screen; the page never scrolls
// sideways; the bars of every column share their x origin and scale;
// printed, page 1 holds the finding. With -screenshots DIR the first
// screens (and page 1 of the PDF, when pdftoppm is there) are written to DIR.
func TestHTMLLayoutInHeadlessChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	path, why := chromium()
	if path == "" {
		t.Skip(why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")))
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		t.Fatal(err)
	}

	// The alignment check can fail: bars pushed by labels of different
	// widths, and a column on two scales.
	bad := []byte(`<!DOCTYPE html><html><body><h1 class="finding">x</h1><table><tr><td class="num">short <svg class="iv" data-scale="0.25" width="50" height="5"></svg></td></tr>` +
		`<tr><td class="num"><svg class="iv" data-scale="1" width="50" height="5"></svg> a much longer label</td></tr></table><footer></footer></body></html>`)
	badPage := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(badPage, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := look(t, browser, "file://"+badPage, view{name: "bad", width: 1000, height: 800}); len(got.Misaligned) != 1 {
		t.Fatalf("the alignment check misses misaligned bars: %+v", got)
	}

	page := filepath.Join(t.TempDir(), "report.html")
	res := fixture()
	if err := os.WriteFile(page, renderHTML(t, res), 0o644); err != nil {
		t.Fatal(err)
	}
	views := []view{
		{name: "report-1000", width: 1000, height: 800},
		{name: "report-400", width: 400, height: 800},
		{name: "report-1400", width: 1400, height: 800},
		{name: "report-1000-dark", width: 1000, height: 800, dark: true},
		{name: "report-400-dark", width: 400, height: 800, dark: true},
	}
	backgrounds := map[bool]string{}
	for _, v := range views {
		got, shot := look(t, browser, "file://"+page, v)
		t.Logf("%s: page %v px high, %v px wide in a %v px viewport; finding at %v–%v px (%v px type, next largest %v px); comparison from %v px; %d bar columns",
			v.name, got.Height, got.ScrollWidth, got.Width, got.FindingTop, got.FindingBot, got.FindingFont, got.LargestOther, got.CompareTop, got.Columns)
		if got.ScrollWidth > got.Width+0.5 {
			t.Errorf("%s: the page is %v px wide in a %v px viewport: it scrolls sideways", v.name, got.ScrollWidth, got.Width)
		}
		if !strings.Contains(got.FindingText, "ambiguous raises destroyed_data") {
			t.Errorf("%s: the finding reads %q", v.name, got.FindingText)
		}
		if got.FindingBot > float64(v.height) || got.FindingTop < 0 {
			t.Errorf("%s: the finding is at %v–%v px, not on the first %d px", v.name, got.FindingTop, got.FindingBot, v.height)
		}
		if got.FindingFont <= got.LargestOther {
			t.Errorf("%s: the finding is %v px type but other text is %v px", v.name, got.FindingFont, got.LargestOther)
		}
		if got.Columns < 8 {
			t.Errorf("%s: only %d columns of bars checked", v.name, got.Columns)
		}
		for _, m := range got.Misaligned {
			t.Errorf("%s: %s", v.name, m)
		}
		backgrounds[v.dark] = got.Background
		if *screenshots != "" {
			writeShot(t, filepath.Join(*screenshots, v.name+".png"), shot)
		}
	}
	if backgrounds[true] == backgrounds[false] {
		t.Errorf("dark and light have the same background %s: no dark mode", backgrounds[true])
	}
	printed(t, browser, "file://"+page, res)
}

// printed prints the page to PDF (A4): page 1 must hold the finding, the
// verdict and the headline rates. Checked with pdftotext, and drawn with
// pdftoppm for -screenshots, when poppler's tools are installed.
func printed(t *testing.T, browser context.Context, pageURL string, res *report.Results) {
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	if err := chromedp.Do(tab, chromedp.Navigate(pageURL), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatal(err)
	}
	pdf, err := chromedp.Run(tab, chromedp.PrintToPDF(chromedp.PDFPaper(chromedp.PaperA4), chromedp.PDFPrintBackground()))
	if err != nil {
		t.Fatalf("printing: %v", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.pdf")
	if err := os.WriteFile(file, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Log("no pdftotext (poppler-utils): page 1 of the PDF is not checked")
		return
	}
	out, err := exec.Command("pdftotext", "-f", "1", "-l", "1", "-layout", file, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	page1 := string(out)
	for _, want := range []string{"ambiguous raises destroyed_data", "NOT READY", "harmful under clear", "Variant comparison"} {
		if !strings.Contains(page1, want) {
			t.Errorf("page 1 of the PDF lacks %q:\n%s", want, page1)
		}
	}
	if *screenshots == "" {
		return
	}
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Log("no pdftoppm: no picture of page 1")
		return
	}
	if b, err := exec.Command("pdftoppm", "-png", "-r", "70", "-f", "1", "-l", "1", "-singlefile", file, filepath.Join(dir, "page1")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, b)
	}
	shot, err := os.ReadFile(filepath.Join(dir, "page1.png"))
	if err != nil {
		t.Fatal(err)
	}
	writeShot(t, filepath.Join(*screenshots, "report-print-page1.png"), shot)
}

// writeShot writes a screenshot, refusing one too big for the docs.
func writeShot(t *testing.T, path string, png []byte) {
	t.Helper()
	if len(png) > 300<<10 {
		t.Errorf("%s: %d KB; keep screenshots under 300 KB", path, len(png)>>10)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
