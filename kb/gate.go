package kb

import "github.com/kbmem/kb/observations"

// Gate is the one gate for what is worth keeping (observations.Gate), over
// this KB's project: extraction, promote and learn ask it the same question.
func (k *KB) Gate() *observations.Gate {
	return &observations.Gate{Repo: &observations.Repo{Root: k.ProjectRoot, KBRoot: k.Root, Layers: Layers}}
}
