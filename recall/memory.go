package recall

// Per-session memory: a lesson shown once in a session is in the agent's
// context already. Shown again on every call of a kind (every test edit,
// every commit) it is noise that pushes out what is new; it comes back
// only when the call repeats what the lesson prohibits (Item.Specific: its
// signature in what the call runs or writes), and then at most
// MaxSpecificShows times in all: an agent shown a lesson that often either
// follows it in a way the signature cannot tell, or will not, and the
// lesson takes the room of what is new. An established high-consequence
// lesson, which decides the call (ask, deny), comes back every time. The
// hook keeps the ids a session was shown, and how often
// (agents.SessionMemory).

// MaxSpecificShows bounds how often one session is shown a lesson that
// its calls repeat.
const MaxSpecificShows = 3

// Unseen returns the items of r that the session has not been shown, with
// those a call is specifically about even when it has (MaxSpecificShows);
// seen holds how many times each id was shown before. The Result's tokens
// are counted again.
func (r *Result) Unseen(seen map[string]int) {
	if r == nil || len(seen) == 0 {
		return
	}
	kept := r.Items[:0]
	for _, it := range r.Items {
		n := seen[it.ID]
		if n == 0 || it.Specific && (n < MaxSpecificShows || it.Established && it.HighConsequence) {
			kept = append(kept, it)
		}
	}
	r.Items = kept
	r.Tokens = Tokens(r.Markdown())
}

// IDs are the ids of the items, in order.
func (r *Result) IDs() []string {
	if r == nil {
		return nil
	}
	ids := make([]string, 0, len(r.Items))
	for _, it := range r.Items {
		ids = append(ids, it.ID)
	}
	return ids
}
