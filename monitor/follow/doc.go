// Package follow follows log files, as tail -F does, without losing or
// repeating lines across rotation and restarts.
//
// # Files
//
// Each Source names files by globs (filepath.Match syntax, absolute). The
// follower watches the parent directories with fsnotify, never the files
// themselves, so renames and re-creations are seen; it also watches every
// directory level a glob passes through and the parent of its fixed part
// (to see the log directory deleted and made again). While a directory does
// not exist yet, its nearest existing ancestor is watched. A matched file
// that is a symbolic link ("latest.log" to this session's log) is read as
// its target is written: the target's directory is watched too, and its
// events under the target's name count for the link. A periodic re-scan
// (Options.Backstop) catches whatever events missed: writes through another
// name, directories that became readable, an overflowed event queue.
// Problems that do not stop following (unreadable directory, skipped line)
// go to Options.Warn, each once until it clears.
//
// # Fingerprints
//
// A file is known by the hash of its first bytes, up to and including its
// first newline, or its first FingerprintSize (256) bytes when the first
// line is longer. A file whose first line has not ended has no fingerprint
// yet, and needs none: it has no complete line, so no Position names it.
// Once the first line has ended the fingerprint never changes, so every
// Position of a file carries the same one, even for files shorter than 256
// bytes. Inode numbers only link an open file to a new name while running.
//
// Rotation:
//   - rename and create: the old file is read to its end through its open
//     descriptor (and for a while longer, for late writes), then the new file
//     from offset 0; a rename to another name the globs match is followed
//     under that name without re-reading;
//   - copytruncate and truncation: the size fell below what was read, or the
//     first bytes changed: the file is read again from offset 0;
//   - delete and recreate: like rename and create.
//
// # Lines
//
// A line is delivered once its newline has arrived. Lines longer than
// Options.MaxLine are dropped as they are read (never buffered whole) and
// reported with ErrLineTooLong. Bytes are passed on as they are: NULs,
// invalid UTF-8 and '\r' stay in Line.Text. The unterminated tail of a file
// that is rotated away or deleted is never delivered.
//
// On first start (no saved position for the path), a file found at start-up
// gets up to Options.HistoryBytes of its existing tail as History lines,
// starting at the first whole line, and is then followed live; a last line
// still unterminated at start-up is live and comes whole. A file that
// appears while Run runs is new content: it is read from offset 0, live
// (also one in a directory that only becomes readable later).
//
// Lines() blocks rather than drops: when the consumer falls behind, reading
// stops until it catches up.
//
// # Resuming and exactly-once delivery
//
// Ack(p) tells the follower that everything up to p is durably handled. The
// checkpoint file (Options.CheckpointFile) holds acked positions only, with
// their fingerprints; it is replaced atomically (temp file, fsync, rename,
// mode 0600) at most once a second when changed, and when Run returns. On
// restart a file whose fingerprint matches a saved position resumes there;
// a file with another fingerprint, or shorter than the position, is read
// from offset 0.
//
// The checkpoint alone gives at-least-once delivery: a crash between the
// consumer's output and the next checkpoint write repeats those lines. For
// exactly-once, the consumer:
//  1. stores each line's Position in the same write as its own output for
//     that line, so both are durable or neither is;
//  2. calls Ack(l.Pos) after that write;
//  3. on restart, rebuilds its last committed Position per (Path,
//     Fingerprint) from its output and passes them as Options.Resume.
//
// Each file then starts at the furthest of its checkpoint and Resume
// positions with its fingerprint. A position saved under another path
// counts too, for a file renamed while the follower was down (the one saved
// under the file's own path wins).
//
// On a graceful stop, Run saves the acks it has and closes Lines. Lines
// still buffered there are not acked: the consumer either leaves them (they
// come again on restart) or handles and acks them; either way it then calls
// Flush, which saves acks that came after Run's own last write.
//
// # Descriptors
//
// Each followed file holds a descriptor, up to a budget derived from the
// soft RLIMIT_NOFILE when Run starts (the limit less a reserve of a quarter
// of it, 32 to 256, and at most 4,096; Options.MaxOpenFiles may lower it).
// Files found past the budget are
// polled: each event and backstop pass looks at them by stat, and one that
// grew is opened for the pass that reads it, then closed. One warning
// (ErrPolled) says how many are polled and why. An open that fails for want
// of descriptors anyway stops further holding; that file is tried again on
// the next scan.
//
// # Limits
//
// A polled file rotated away under a name no glob matches, or deleted,
// loses what was written to it after the last pass: there is no descriptor
// to read the rest through. Renamed within the globs, it is read on under
// its new name.
//
// Two files that start with the same first line (a fixed banner without a
// timestamp) share a fingerprint; the path keeps them apart, but a file
// rotated away while the follower is down can then be mistaken for its
// successor. Copytruncate loses what is written between the copy and the
// truncation, whoever reads the file, and what the follower had not read
// yet when the truncation came: every chunk read is checked against the
// file's first bytes, so no fragment of the new content is delivered as a
// line, but bytes that were read just before the truncation are dropped
// with the rest.
package follow
