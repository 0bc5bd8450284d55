package doc

import "bytes"

// SetStatus sets the status key of a document. The common case, a plain
// "status: word" line in the frontmatter kb wrote, is replaced in place (a
// full surgical update re-parses and verifies the YAML, which dominates a
// large promotion); anything else goes through Update.
func SetStatus(src []byte, status string) ([]byte, error) {
	if bytes.HasPrefix(src, []byte("---\n")) {
		end := bytes.Index(src[4:], []byte("\n---\n"))
		if end >= 0 {
			fm := src[:4+end+1]
			i := bytes.Index(fm, []byte("\nstatus: "))
			if i >= 0 && bytes.Count(fm, []byte("\nstatus:")) == 1 {
				j := bytes.IndexByte(fm[i+1:], '\n') + i + 1
				val := string(fm[i+len("\nstatus: ") : j])
				if isWord(val) {
					out := make([]byte, 0, len(src)+len(status))
					out = append(out, src[:i+len("\nstatus: ")]...)
					out = append(out, status...)
					return append(out, src[j:]...), nil
				}
			}
		}
	}
	return Update(src, map[string]any{"status": status}, nil)
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '-') {
			return false
		}
	}
	return true
}
