package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// waitLong bounds every wait: generous for a loaded 2-core machine.
const waitLong = 30 * time.Second

// serveForTest serves m on a real HTTP server at 127.0.0.1:0 and returns
// the /metrics URL. The server stops when the test ends.
func serveForTest(t *testing.T, m *Metrics) string {
	t.Helper()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, ln, m, nil) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeListener: %v", err)
			}
		case <-time.After(waitLong):
			t.Errorf("ServeListener did not stop after cancel")
		}
	})
	return "http://" + ln.Addr().String() + "/metrics"
}

// scrapeRaw fetches url in the text exposition format.
func scrapeRaw(t *testing.T, url string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	client := &http.Client{Timeout: waitLong}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("scrape %s: %s %q\n%s", url, resp.Status, resp.Header.Get("Content-Type"), body)
	}
	return string(body)
}

// parse reads a text exposition into metric families.
func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parse exposition: %v\n%s", err, text)
	}
	return fams
}

// scrape fetches url and flattens it: one entry per series, keyed
// `name{label="value",...}` with labels sorted; histograms give
// name_count and name_sum (buckets are checked separately).
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	return flatten(parse(t, scrapeRaw(t, url)))
}

func flatten(fams map[string]*dto.MetricFamily) map[string]float64 {
	out := make(map[string]float64)
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			key := seriesKey(m.GetLabel())
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[name+key] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[name+key] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[name+"_count"+key] = float64(m.GetHistogram().GetSampleCount())
				out[name+"_sum"+key] = m.GetHistogram().GetSampleSum()
			default:
				out[name+key+" (unexpected type "+f.GetType().String()+")"] = 1
			}
		}
	}
	return out
}

func seriesKey(labels []*dto.LabelPair) string {
	if len(labels) == 0 {
		return ""
	}
	parts := make([]string, 0, len(labels))
	for _, l := range labels {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

// diff lists the differences between two flattened scrapes.
func diff(got, want map[string]float64) []string {
	var out []string
	for k, w := range want {
		if g, ok := got[k]; !ok {
			out = append(out, fmt.Sprintf("missing %s (want %v)", k, w))
		} else if g != w {
			out = append(out, fmt.Sprintf("%s = %v, want %v", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("unexpected %s = %v", k, g))
		}
	}
	slices.Sort(out)
	return out
}

// recordHandler hands log records to a channel, so a test can wait for one.
type recordHandler struct{ ch chan slog.Record }

func newRecordLogger() (*slog.Logger, <-chan slog.Record) {
	h := recordHandler{ch: make(chan slog.Record, 64)}
	return slog.New(h), h.ch
}

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordHandler) WithGroup(string) slog.Handler            { return h }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h.ch <- r.Clone():
		return nil
	default:
		return errors.New("record channel full")
	}
}

// waitAddr waits for the "serving" record and returns its addr attribute.
func waitAddr(t *testing.T, records <-chan slog.Record) string {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case r := <-records:
			var addr string
			r.Attrs(func(a slog.Attr) bool {
				if a.Key == "addr" {
					addr = a.Value.String()
				}
				return true
			})
			if addr != "" && strings.Contains(r.Message, "serving") {
				return addr
			}
		case <-deadline:
			t.Fatal("no 'serving' log record")
		}
	}
}

// dialFails reports whether nothing accepts connections at addr any more.
func dialFails(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return true
	}
	c.Close()
	return false
}
