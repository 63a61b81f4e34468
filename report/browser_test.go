package report_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds a Chromium to drive, or says why there is none.
func chromium() (string, string) {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", ""
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p, ""
	}
	return "", "no Chromium: neither /usr/bin/chromium nor chromium on PATH (apt-get install chromium)"
}

// pageReport is what the browser saw of a page.
type pageReport struct {
	Verdict   string  `json:"verdict"`
	Top       float64 `json:"top"`
	Bottom    float64 `json:"bottom"`
	SVGs      int     `json:"svgs"`
	EmptySVGs int     `json:"emptySVGs"`
	problems  []string
	shot      []byte
}

// open loads html from a file in a fresh tab and reports console errors,
// exceptions, network requests (anything but the page itself) and layout.
func open(t *testing.T, browser context.Context, html []byte) pageReport {
	t.Helper()
	page := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Fatal(err)
	}
	pageURL := "file://" + page
	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	// Listening needs the tab: an empty Do opens it.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(tab, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, fmt.Sprintf("console.%s", e.Type))
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, "log: "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != pageURL {
				problems = append(problems, "network request: "+e.Request.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(pageURL), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	got, err := chromedp.Run(tab, chromedp.Evaluate[pageReport](`(() => {
		const el = document.querySelector('.verdict');
		const v = el ? el.getBoundingClientRect() : {top: -1, bottom: -1};
		const svgs = Array.from(document.querySelectorAll('svg'));
		return {
			verdict: el ? el.innerText : "",
			top: v.top, bottom: v.bottom,
			svgs: svgs.length,
			emptySVGs: svgs.filter(s => { const r = s.getBoundingClientRect(); return !(r.width > 0 && r.height > 0); }).length,
		};
	})()`))
	if err != nil {
		t.Fatalf("measuring the page: %v", err)
	}
	if got.shot, err = chromedp.Run(tab, chromedp.CaptureScreenshot()); err != nil { // the first screen, PNG
		t.Fatalf("screenshot: %v", err)
	}
	// Let late events (a failed image load) arrive before reading them.
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	got.problems = append(got.problems, problems...)
	return got
}

// TestHTMLInHeadlessChromium opens the report in a real browser: it must
// load with no console error and no network request, draw every chart at a
// non-zero size, and show the verdict on the first screen. A screenshot is
// left in testdata/out/report.png (the first screen). A deliberately broken page first proves
// the checks can fail.
func TestHTMLInHeadlessChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	path, why := chromium()
	if path == "" {
		t.Skip(why)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.WindowSize(1280, 900),
	)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()

	broken := open(t, browser, []byte(`<!DOCTYPE html><html><body><div style="height:1200px"></div>`+
		`<p class="verdict">READY</p><svg width="0" height="0"></svg><img src="http://127.0.0.1:9/x.png"/>`+
		`<script>console.error("boom")</script><footer></footer></body></html>`))
	if len(broken.problems) < 2 || broken.EmptySVGs != 1 || broken.Top < 900 {
		t.Fatalf("the checks miss a broken page: problems %q, %d empty charts, verdict at %vpx", broken.problems, broken.EmptySVGs, broken.Top)
	}

	got := open(t, browser, renderHTML(t, fixture()))
	for _, p := range got.problems {
		t.Error(p)
	}
	if strings.TrimSpace(got.Verdict) != "NOT READY" {
		t.Errorf("verdict reads %q; want NOT READY", got.Verdict)
	}
	if got.Top < 0 || got.Bottom > 900 || got.Bottom <= got.Top {
		t.Errorf("verdict at %v–%vpx; want it within the first 900px", got.Top, got.Bottom)
	}
	if got.SVGs < 40 || got.EmptySVGs != 0 {
		t.Errorf("%d charts, %d of them with zero size", got.SVGs, got.EmptySVGs)
	}
	out := filepath.Join("testdata", "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "report.png"), got.shot, 0o644); err != nil {
		t.Fatal(err)
	}
}
