package library

// PromoteResult reports a promotion.
type PromoteResult struct {
	Graduations []Graduation  `json:"graduations"`
	Files       []PromoteFile `json:"files"`
	Diff        string        `json:"diff"`
	Branch      string        `json:"branch,omitempty"`
	Commit      string        `json:"commit,omitempty"`
	Applied     bool          `json:"applied,omitempty"`
	DryRun      bool          `json:"dry_run,omitempty"`
	// Pending are candidates already proposed on an unmerged promotion
	// branch; they are not proposed twice.
	Pending []string `json:"pending,omitempty"`
	// Covered are candidates that met their rule but that a library note
	// already says: they do not become a second note.
	Covered []Covered `json:"covered,omitempty"`
}
