package kb

import (
	"context"
	"strings"
)

// team checks what sharing memory with a team needs: the merge driver
// registered (.gitattributes, git config) and the .gitignore lines of
// kb.yaml's share section; --fix writes what is missing.
func (d *doctor) team(ctx context.Context) error {
	k := d.k
	if miss := MergeDriverRegistered(k.Root, k.ProjectRoot); miss != "" {
		c := d.add("warning", true, Problem{Path: ".gitattributes", Msg: "kb's merge driver is not registered (" + miss + "): two clones' memory files would conflict; kb doctor --fix registers it", Rule: "team"})
		if d.fix {
			if _, err := RegisterMergeDriver(k.Root, k.ProjectRoot); err == nil {
				c.Fixed = true
			}
		}
	}
	if miss := k.MissingIgnores(); len(miss) > 0 {
		c := d.add("warning", true, Problem{Path: ".gitignore", Msg: "kb.yaml's share section keeps these local, .gitignore does not: " + strings.Join(miss, " "), Rule: "team"})
		if d.fix && k.addIgnores(miss) == nil {
			c.Fixed = true
		}
	}
	return nil
}
