package recall

// Per-session memory: a lesson shown once in a session is in the agent's
// context already. Shown again on every call of a kind (every test edit,
// every commit) it is noise that pushes out what is new; it comes back
// only when the call repeats what the lesson prohibits (Item.Specific: its
// signature in what the call runs or writes). The hook keeps the ids a
// session was shown (agents.SessionMemory).

// Unseen returns the items of r that the session has not been shown, with
// those a call is specifically about even when it has; seen holds the ids
// shown before. The Result's tokens are counted again.
func (r *Result) Unseen(seen map[string]bool) {
	if r == nil || len(seen) == 0 {
		return
	}
	kept := r.Items[:0]
	for _, it := range r.Items {
		if !seen[it.ID] || it.Specific {
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
