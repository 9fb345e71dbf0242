package timeline

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/durfmt"
	"github.com/mcpwatchdog/watchdog/internal/health"
)

//go:embed page.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("timeline").Funcs(template.FuncMap{
	"px": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
}).Parse(pageTemplate))

// Geometry of the page, in CSS pixels.
const (
	chartWidth = 1000.0
	labelWidth = 170.0
	rowHeight  = 12.0 // a bar is 9 high (the template's)
	laneGap    = 18.0
	hostHeight = 22.0
	// minMark is the least width of a bar, an incident band or a summed
	// stretch, so a one-second session shows on a week-long page.
	minMark = 4.0
)

// Options say how to write the page.
type Options struct {
	Location  *time.Location // times shown in this zone; nil: UTC
	Generated time.Time      // when the page was made
	Source    string         // the journal it was made from, for the footer
	Window    string         // what the window is ("the last 24h"); "": not said
}

// Render writes p as one self-contained HTML page: inline CSS and SVG, no
// script, nothing fetched.
func Render(w io.Writer, p Page, o Options) error {
	if o.Location == nil {
		o.Location = time.UTC
	}
	if err := tmpl.Execute(w, newView(p, o)); err != nil {
		return fmt.Errorf("timeline: render: %w", err)
	}
	return nil
}

type view struct {
	From, To, Generated, Source string
	Span, Window                string
	Summary                     Summary
	MedianRecovery              string
	Width, Height, Label        float64
	Axis                        []tick // x on the whole svg
	Lanes                       []lane // the host's, then one per server
	Incidents                   []incidentRow
}

type tick struct {
	X     float64
	Label string
}

type lane struct {
	Name, Timeout string
	Y, Height     float64
	MarkY         float64 // the baseline of its marks
	Bars          []bar
	Pings, Failed []float64
	AtRisk        []float64
	Bands         []band
	Marks         []point
	Others        []band  // the other clients' sessions, summed
	OthersY       float64 // their row's y on the lane
	OthersLabel   string
}

type bar struct {
	X, Y, W      float64
	IdleX, IdleW float64
	CapX, CapW   float64 // the strong-coloured end that says how it ended
	Class, ID    string
	End, Title   string
}

type band struct {
	X, W    float64
	Count   int     // of sessions summed in it
	Opacity float64 // more sessions, darker
	Title   string
}

type point struct {
	X            float64
	Class, Title string
}

type incidentRow struct {
	Server, Session, NewSession, Lost, Recovered, Took, Strategy, Heals, Detail string
	Open, Failed                                                                bool
}

func newView(p Page, o Options) view {
	sc := scale{from: p.From, to: p.To}
	v := view{From: stamp(p.From, o.Location), To: stamp(p.To, o.Location), Generated: stamp(o.Generated, o.Location),
		Source: o.Source, Span: durfmt.Short(p.To.Sub(p.From)), Window: o.Window, Summary: p.Summary,
		MedianRecovery: "—", Width: labelWidth + chartWidth + 10, Label: labelWidth,
		Axis: axis(sc, o.Location)}
	if p.Summary.Recovered > 0 {
		v.MedianRecovery = durfmt.Short(p.Summary.MedianRecovery)
	}
	v.Lanes = append(v.Lanes, hostLane(p, sc))
	for _, s := range p.Servers {
		v.Lanes = append(v.Lanes, serverLane(s, p.Incidents, sc))
	}
	y := 20.0 // below the axis labels
	for i := range v.Lanes {
		l := &v.Lanes[i]
		l.Height = max(l.Height, 30) // room for its name and timeout
		l.Y, l.MarkY = y, l.Height-1
		y += l.Height + laneGap
	}
	v.Height = y
	for _, inc := range p.Incidents {
		v.Incidents = append(v.Incidents, newIncidentRow(inc, o.Location))
	}
	return v
}

// scale maps a time to its x on the chart.
type scale struct{ from, to time.Time }

func (s scale) x(t time.Time) float64 {
	span := s.to.Sub(s.from)
	if span <= 0 {
		return 0
	}
	f := float64(t.Sub(s.from)) / float64(span)
	return min(max(f, 0), 1) * chartWidth
}

func serverLane(s *Server, incidents []*Incident, sc scale) lane {
	l := lane{Name: s.Name, Timeout: "idle timeout unknown", Height: float64(s.Rows)*rowHeight + 4}
	if s.Timeout > 0 {
		l.Timeout = "idle timeout " + durfmt.Short(s.Timeout)
	}
	for _, sess := range s.Sessions {
		if s.Others > 0 && !sess.Host {
			continue // summed below
		}
		l.Bars = append(l.Bars, newBar(sess, s.Timeout, sc))
		l.Pings = appendX(l.Pings, sess.Pings, sc)
		l.Failed = appendX(l.Failed, sess.Failed, sc)
		l.AtRisk = appendX(l.AtRisk, sess.AtRisk, sc)
	}
	for _, inc := range incidents {
		if inc.Server != s.Name {
			continue
		}
		end := inc.Recovered
		if end.IsZero() {
			end = sc.to
		}
		x, w := span(sc, inc.Lost, end)
		l.Bands = append(l.Bands, band{X: x, W: w, Title: incidentTitle(inc)})
	}
	if s.Others > 0 {
		l.Others = summed(s.Sessions, sc)
		l.OthersY = float64(s.Rows-1)*rowHeight + 2
		l.OthersLabel = fmt.Sprintf("%d others, summed", s.Others)
		l.Height = max(l.Height, 44) // room for the label's third line
	}
	for _, m := range s.Marks {
		l.Marks = append(l.Marks, point{X: sc.x(m.At), Class: markClass(m.Kind), Title: m.Detail})
	}
	return l
}

// span is where from..to lies on the chart, at least minMark wide and
// moved left at the chart's end so all of it shows.
func span(sc scale, from, to time.Time) (x, w float64) {
	x = sc.x(from)
	w = max(sc.x(to)-x, minMark)
	return min(x, chartWidth-w), w
}

func newBar(sess *Session, timeout time.Duration, sc scale) bar {
	x, w := span(sc, sess.From, sess.To)
	end := endClass(sess)
	b := bar{X: x, Y: float64(sess.Row)*rowHeight + 2, W: w, ID: sess.ID,
		Class: "session " + end, End: end, Title: sessionTitle(sess, timeout)}
	b.CapW = min(b.W, 2)
	b.CapX = b.X + b.W - b.CapW
	if sess.Idle > 0 && !sess.Open {
		b.IdleX = min(max(sc.x(sess.To.Add(-sess.Idle)), x), x+w)
		b.IdleW = x + w - b.IdleX
	}
	return b
}

// summed is the other clients' sessions as one row: a stretch for each
// span of time the same number of them were open, darker the more.
func summed(sessions []*Session, sc scale) []band {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, sess := range sessions {
		if !sess.Host {
			edges = append(edges, edge{sess.From, 1}, edge{sess.To, -1})
		}
	}
	slices.SortStableFunc(edges, func(a, b edge) int { return a.at.Compare(b.at) })
	var out []band
	open := 0
	for i, e := range edges {
		open += e.delta
		if open <= 0 || i+1 == len(edges) || !edges[i+1].at.After(e.at) {
			continue
		}
		x, w := span(sc, e.at, edges[i+1].at)
		out = append(out, band{X: x, W: w, Count: open, Opacity: min(0.3+0.14*float64(open), 1),
			Title: fmt.Sprintf("%d session(s) of other clients open", open)})
	}
	return out
}

func endClass(sess *Session) string {
	switch {
	case sess.Open:
		return "open"
	case sess.End == health.EvSessionExpired:
		return "expired"
	case sess.End == health.EvSessionLost:
		return "lost"
	}
	return "ended"
}

func sessionTitle(sess *Session, timeout time.Duration) string {
	client := sess.Client
	if client == "" {
		client = "unknown client"
	}
	life := durfmt.Short(sess.To.Sub(sess.From))
	var end string
	switch {
	case sess.Open:
		end = "still tracked"
	case sess.End == health.EvSessionExpired:
		end = "expired after " + durfmt.Short(sess.Idle) + " idle"
	case sess.End == health.EvSessionLost:
		end = "lost"
	default:
		end = "ended after " + durfmt.Short(sess.Idle) + " idle"
	}
	if timeout > 0 && !sess.Open {
		end += " (timeout " + durfmt.Short(timeout) + ")"
	}
	return fmt.Sprintf("%s of %s: %s, %s; %d keep-warm ping(s)", sess.ID, client, life, end, len(sess.Pings))
}

func hostLane(p Page, sc scale) lane {
	l := lane{Name: "host", Height: hostHeight}
	for _, m := range p.Host {
		l.Marks = append(l.Marks, point{X: sc.x(m.At), Class: markClass(m.Kind), Title: m.Detail})
	}
	return l
}

func markClass(k health.EventKind) string {
	switch k {
	case health.EvHealStarted:
		return "heal"
	case health.EvHealFailed, health.EvServerDown, health.EvHostDown, health.EvStdioExited, health.EvStdioCallFailed,
		health.EvStdioGaveUp, health.EvStdioHung:
		return "bad"
	case health.EvHostRestarted, health.EvStdioRestarted:
		return "restart"
	case health.EvStarted, health.EvStopped:
		return "watchdog"
	}
	return "good"
}

func appendX(xs []float64, ts []time.Time, sc scale) []float64 {
	for _, t := range ts {
		xs = append(xs, sc.x(t))
	}
	return xs
}

func incidentTitle(inc *Incident) string {
	if inc.Recovered.IsZero() {
		return fmt.Sprintf("%s lost its session %s; not recovered", inc.Server, inc.Session)
	}
	return fmt.Sprintf("%s lost its session %s; recovered in %s", inc.Server, inc.Session, durfmt.Short(inc.Took))
}

func newIncidentRow(inc *Incident, loc *time.Location) incidentRow {
	r := incidentRow{Server: inc.Server, Session: inc.Session, NewSession: inc.NewSession, Lost: stamp(inc.Lost, loc),
		Strategy: inc.Strategy, Detail: inc.Detail, Open: inc.Recovered.IsZero(), Failed: inc.Failed}
	if !r.Open {
		r.Recovered, r.Took = stamp(inc.Recovered, loc), durfmt.Short(inc.Took)
	}
	for i, h := range inc.Heals {
		if i > 0 {
			r.Heals += ", "
		}
		r.Heals += string(h.Kind)
		if h.Strategy != "" {
			r.Heals += " (" + h.Strategy + ")"
		}
	}
	return r
}

// axis puts a labelled tick at round times: up to ten across the chart.
func axis(sc scale, loc *time.Location) []tick {
	span := sc.to.Sub(sc.from)
	steps := []time.Duration{time.Second, 5 * time.Second, 15 * time.Second, 30 * time.Second, time.Minute,
		2 * time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 3 * time.Hour,
		6 * time.Hour, 12 * time.Hour, 24 * time.Hour}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= 10 {
			step = s
			break
		}
	}
	layout := "15:04"
	switch {
	case step < time.Minute:
		layout = "15:04:05"
	case step >= 24*time.Hour:
		layout = "Mon 2 Jan"
	case span > 24*time.Hour:
		layout = "Mon 15:04"
	}
	var out []tick
	for t := sc.from.In(loc).Truncate(step); !t.After(sc.to); t = t.Add(step) {
		if t.Before(sc.from) {
			continue
		}
		out = append(out, tick{X: labelWidth + sc.x(t), Label: t.In(loc).Format(layout)})
	}
	return out
}

func stamp(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04:05 MST")
}
