package classify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"time"
)

// DefaultMaxFindings is how many findings a scan keeps per file by default.
const DefaultMaxFindings = 100_000

// chunkSize is how much of a file is read and searched at once: large
// enough that per-read costs vanish, small enough to stay in the caches
// that matter less than the search itself.
const chunkSize = 4 << 20

// Options tune a scan. A nil *Options means every default.
type Options struct {
	// MaxFindings caps the findings kept per file; later ones are still
	// counted (FileSummary.Dropped, Report.Counts). Zero means
	// DefaultMaxFindings; negative means no cap.
	MaxFindings int
	// Location reads timestamps that carry no zone. Nil means time.Local.
	Location *time.Location
}

// Scan classifies every line of each file in paths, in order, and merges
// the reports. It reads a file in large chunks, searches each chunk for
// the prefilter literals (Literals) in one pass, and finds line boundaries
// and line numbers only around the hits, so it runs at memory speed on
// files with few relevant lines. Session ids in the report are masked. A
// file that cannot be read is recorded in its summary and the scan goes
// on; the returned error joins every failure (errors.Is works on each).
func Scan(ctx context.Context, paths []string, opts *Options) (Report, error) {
	s := newScanner(opts)
	rep := newReport()
	var errs []error
	for _, p := range paths {
		sum, found, err := s.scanPath(ctx, p)
		rep.add(sum, found)
		if err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	return rep, errors.Join(errs...)
}

type scanner struct {
	chunk       int
	maxLine     int
	maxFindings int
	loc         *time.Location
	workers     int   // sections scanned at once; 1: sequential
	minSection  int64 // a file is split only into sections at least this long
}

// A large file is cut at line starts into sections scanned in parallel,
// one per CPU up to maxWorkers, each at least minSection long.
const (
	maxWorkers = 4
	minSection = 32 << 20
)

func newScanner(opts *Options) *scanner {
	s := &scanner{chunk: chunkSize, maxLine: MaxLine, maxFindings: DefaultMaxFindings, loc: time.Local,
		workers: min(runtime.GOMAXPROCS(0), maxWorkers), minSection: minSection}
	if opts != nil {
		if opts.MaxFindings != 0 {
			s.maxFindings = opts.MaxFindings
		}
		if opts.Location != nil {
			s.loc = opts.Location
		}
	}
	return s
}

func (s *scanner) scanPath(ctx context.Context, path string) (FileSummary, []Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		err = fmt.Errorf("scan %s: %w", path, err)
		return FileSummary{File: path, Error: err.Error()}, nil, err
	}
	defer f.Close()
	var sum FileSummary
	var found []Finding
	if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() {
		sum, found, err = s.scanAt(ctx, f, st.Size(), path)
	} else {
		sum, found, err = s.scan(ctx, f, path) // a pipe or device: one pass
	}
	if err != nil {
		err = fmt.Errorf("scan %s: %w", path, err)
		sum.Error = err.Error()
	}
	return sum, found, err
}

// scanAt scans size bytes of r (and whatever was appended since) in
// sections cut at line starts, in parallel, and joins the results as if
// scanned in one pass.
func (s *scanner) scanAt(ctx context.Context, r io.ReaderAt, size int64, name string) (FileSummary, []Finding, error) {
	cuts, err := s.sections(r, size)
	if err != nil {
		return FileSummary{File: name}, nil, err
	}
	type result struct {
		sum   FileSummary
		found []Finding
		err   error
	}
	res := make([]result, len(cuts))
	var wg sync.WaitGroup
	for i, start := range cuts {
		n := int64(math.MaxInt64) - start // the last section reads to EOF
		if i+1 < len(cuts) {
			n = cuts[i+1] - start
		}
		wg.Go(func() {
			res[i].sum, res[i].found, res[i].err = s.scan(ctx, io.NewSectionReader(r, start, n), name)
		})
	}
	wg.Wait()
	sum := FileSummary{File: name, Counts: map[string]int{}}
	var found []Finding
	var errs []error
	for _, x := range res {
		for _, f := range x.found {
			f.Line += sum.Lines // every earlier section ends with a newline
			found = append(found, f)
		}
		sum.Bytes += x.sum.Bytes
		sum.Lines += x.sum.Lines
		sum.Candidates += x.sum.Candidates
		sum.Findings += x.sum.Findings
		for k, v := range x.sum.Counts {
			sum.Counts[k] += v
		}
		if x.err != nil {
			errs = append(errs, x.err)
		}
	}
	if s.maxFindings >= 0 && len(found) > s.maxFindings {
		found = found[:s.maxFindings]
	}
	sum.Dropped = sum.Findings - len(found)
	if err := ctx.Err(); err != nil {
		return sum, found, err // once, not once per section
	}
	return sum, found, errors.Join(errs...)
}

// sections returns the start offsets of the sections: 0, then the first line
// start at or after each cut point.
func (s *scanner) sections(r io.ReaderAt, size int64) ([]int64, error) {
	n := int64(min(s.workers, maxWorkers))
	if s.minSection > 0 {
		n = min(n, size/s.minSection)
	}
	cuts := []int64{0}
	buf := make([]byte, 64<<10)
	for i := int64(1); i < n; i++ {
		at := max(i*size/n-1, cuts[len(cuts)-1]) // a newline at cut-1 makes cut a line start
		next, err := lineStartAfter(r, at, buf)
		if err != nil {
			return nil, err
		}
		if next >= size {
			break
		}
		if next > cuts[len(cuts)-1] {
			cuts = append(cuts, next)
		}
	}
	return cuts, nil
}

// lineStartAfter returns one past the first newline at or after off, or an
// offset at EOF when there is none.
func lineStartAfter(r io.ReaderAt, off int64, buf []byte) (int64, error) {
	for {
		n, err := r.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
		off += int64(n)
		if errors.Is(err, io.EOF) {
			return off, nil
		}
		if err != nil {
			return 0, fmt.Errorf("read: %w", err)
		}
	}
}

// fileScan is the state of one file's scan.
type fileScan struct {
	*scanner
	sum    FileSummary
	found  []Finding
	hits   []hit
	base   int64 // newlines consumed before the region being processed
	counts [lastKind + 1]int
}

// scan reads r to the end. Complete lines are searched a chunk at a time;
// the partial last line is carried to the front of the buffer. A line longer
// than maxLine is judged by its first maxLine bytes and the rest skipped.
func (s *scanner) scan(ctx context.Context, r io.Reader, name string) (FileSummary, []Finding, error) {
	fs := &fileScan{scanner: s, sum: FileSummary{File: name}}
	buf := make([]byte, s.chunk+s.maxLine)
	carry, skipping := 0, false
	var last byte
	for {
		if err := ctx.Err(); err != nil {
			return fs.finish(last), fs.found, err
		}
		n, err := io.ReadFull(r, buf[carry:carry+s.chunk])
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fs.finish(last), fs.found, fmt.Errorf("read: %w", err)
		}
		if n > 0 {
			fs.sum.Bytes += int64(n)
			last = buf[carry+n-1]
		}
		data := buf[:carry+n]
		start := 0
		if skipping { // the rest of an over-long line
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				carry = 0
				if eof {
					return fs.finish(last), fs.found, nil
				}
				continue
			}
			fs.base++
			start, skipping = i+1, false
		}
		end := len(data)
		if !eof {
			end = start + bytes.LastIndexByte(data[start:], '\n') + 1
		}
		fs.region(data[start:end])
		if eof {
			return fs.finish(last), fs.found, nil
		}
		rest := data[end:]
		if len(rest) > s.maxLine {
			fs.region(rest[:s.maxLine]) // holds no newline: one line's prefix
			skipping, carry = true, 0
			continue
		}
		carry = copy(buf, rest)
	}
}

// finish counts a last line that has no newline.
func (fs *fileScan) finish(last byte) FileSummary {
	fs.sum.Lines = fs.base
	if fs.sum.Bytes > 0 && last != '\n' {
		fs.sum.Lines++
	}
	fs.sum.Counts = make(map[string]int)
	for _, k := range Kinds() {
		if fs.counts[k] > 0 {
			fs.sum.Counts[k.String()] = fs.counts[k]
		}
	}
	return fs.sum
}

// region handles whole lines (the last one may lack its newline) and
// advances base past the region's newlines.
func (fs *fileScan) region(t []byte) {
	fs.hits = std.match.find(t, fs.hits[:0])
	counted, lineNo := 0, fs.base // newlines in t[:counted]; lineNo = base + that count
	ls, le := -1, -1              // bounds of the line holding the current hit
	done := -1                    // end of the last line classified
	for _, h := range fs.hits {
		if h.pos <= done {
			continue
		}
		if h.pos >= le {
			ls = bytes.LastIndexByte(t[:h.pos], '\n') + 1
			le = bytes.IndexByte(t[h.pos:], '\n')
			if le < 0 {
				le = len(t)
			} else {
				le += h.pos
			}
		}
		if h.pos+len(std.lits[h.lit]) > ls+fs.maxLine {
			continue // outside the part of the line that is classified
		}
		lineNo += int64(bytes.Count(t[counted:ls], []byte{'\n'}))
		counted, done = ls, le
		fs.line(t[ls:le], lineNo+1)
	}
	fs.base = lineNo + int64(bytes.Count(t[counted:], []byte{'\n'}))
}

// line classifies one candidate line.
func (fs *fileScan) line(l []byte, no int64) {
	fs.sum.Candidates++
	m, ok := classifyLine(l, fs.loc, fs.maxLine)
	if !ok {
		return
	}
	fs.sum.Findings++
	fs.counts[m.Kind]++
	if fs.maxFindings >= 0 && len(fs.found) >= fs.maxFindings {
		fs.sum.Dropped++
		return
	}
	l = clip(l, fs.maxLine)
	if m.Session == "" {
		m.Session = displaySession(stripANSI(l))
	}
	text := displayText(l, m.Session)
	m.Session = MaskSession(m.Session)
	fs.found = append(fs.found, Finding{File: fs.sum.File, Line: no, Match: m, Text: text})
}
