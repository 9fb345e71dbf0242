package notify

import (
	"slices"
	"strings"
)

// queue holds the bubbles decided and not yet shown, bounded whatever the
// sender does (a slow or hung notification service, or a restart that
// re-sends a run's worth at once). A bubble that does not fold replaces an
// older one of its kind about its server, stale by then. One that folds
// (a loss, a recovery, a heal failure) is news about an incident of its
// own, so it is never dropped: when its server already has one of its
// kind waiting, or a summary of its kind waits, they become one summary
// that names each incident. So the queue holds at most one bubble per
// server and kind, plus a summary per kind.
type queue struct {
	msgs []Message // in the order decided
}

// push queues m at the end, merged with or replacing what it supersedes.
func (q *queue) push(m Message) {
	k, folds := foldKindOf(m.About)
	for i, old := range q.msgs {
		switch {
		case folds && sameFold(old, k) && (old.Server == m.Server || old.About == k.summary || m.About == k.summary):
			m = merged(k, old, m)
		case !folds && old.Server == m.Server && old.About == m.About:
		default:
			continue
		}
		q.msgs = slices.Delete(q.msgs, i, i+1)
		break
	}
	q.msgs = append(q.msgs, m)
}

// take empties the queue and returns what it held, in order.
func (q *queue) take() []Message {
	out := q.msgs
	q.msgs = nil
	return out
}

// foldKindOf is the fold kind a bubble (or a summary) of about belongs to.
func foldKindOf(about string) (foldKind, bool) {
	for _, k := range foldKinds() {
		if about == k.about || about == k.summary {
			return k, true
		}
	}
	return foldKind{}, false
}

func sameFold(m Message, k foldKind) bool { return m.About == k.about || m.About == k.summary }

// merged is one summary of a and b, naming every incident either tells.
func merged(k foldKind, a, b Message) Message {
	var msgs []Message
	for _, m := range []Message{a, b} {
		if m.About != k.summary {
			msgs = append(msgs, m)
			continue
		}
		_, servers, _ := ParseSummary(m.Title)
		for i, s := range servers {
			part := Message{Server: s, About: k.about}
			if i == 0 {
				part.Body = m.Body
			}
			msgs = append(msgs, part)
		}
	}
	out := summarize(k, msgs)[0]
	out.Body = strings.TrimSpace(out.Body)
	return out
}
